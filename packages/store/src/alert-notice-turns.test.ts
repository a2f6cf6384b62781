// NoticeTurns' asynchronous walk (MongoDB's claimNotices): each claim is a write of its own.
import { describe, expect, it } from 'vitest';
import { NoticeTurns } from './alert-notice-turns.ts';
import type { ClaimedNotice } from './ports/alert-settings-port.ts';

const notice = (orgId: string, n: number) => ({ id: `ntc_${orgId}_${n}`, orgId, targetId: `atg_${n}` }) as unknown as ClaimedNotice;

/** Two organizations with notices due; the claim of `failAt` (1-based) throws. */
function ops(failAt: number) {
  let claims = 0;
  const orgs = ['org_a', 'org_b'];
  return {
    nextOrg: async (after: string) => orgs.find((o) => o > after) ?? null,
    takeOf: async (orgId: string) => {
      claims++;
      if (claims === failAt) throw new Error('waiting for replication timed out');
      return notice(orgId, claims);
    },
  };
}

describe('NoticeTurns.claimAsync', () => {
  it('a claim that fails ends the walk, and the claims before it are returned to be sent', async () => {
    const claimed = await new NoticeTurns().claimAsync(10, undefined, ops(2));
    expect(claimed.map((n) => n.orgId)).toEqual(['org_a']);
  });

  it('a first claim that fails is the caller’s error', async () => {
    await expect(new NoticeTurns().claimAsync(10, undefined, ops(1))).rejects.toThrow('waiting for replication timed out');
  });
});
