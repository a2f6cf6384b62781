// NoticeTurns' asynchronous walk (MongoDB's claimNotices): each claim is a write of its own.
import { describe, expect, it } from 'vitest';
import { NoticeTurns } from './alert-notice-turns.ts';
import type { ClaimedNotice } from './ports/alert-settings-port.ts';

const notice = (orgId: string, n: number) => ({ id: `ntc_${orgId}_${n}`, orgId, targetId: `atg_${n}` }) as unknown as ClaimedNotice;

/** Two organizations with notices due; the claim of `failAt` (1-based) throws `failure` (a failover's by default). */
function ops(failAt: number, failure = new Error('waiting for replication timed out')) {
  let claims = 0;
  const orgs = ['org_a', 'org_b'];
  return {
    nextOrg: async (after: string) => orgs.find((o) => o > after) ?? null,
    takeOf: async (orgId: string) => {
      claims++;
      if (claims === failAt) throw failure;
      return notice(orgId, claims);
    },
    interrupts: (err: unknown) => (err as Error).message === 'waiting for replication timed out',
  };
}

describe('NoticeTurns.claimAsync', () => {
  it('a claim that fails ends the walk, and the claims before it are returned to be sent', async () => {
    const claimed = await new NoticeTurns().claimAsync(10, undefined, ops(2));
    expect(claimed.map((n) => n.orgId)).toEqual(['org_a']);
  });

  it('a later claim that fails for another reason than the store (a fault) is thrown, not passed over', async () => {
    await expect(new NoticeTurns().claimAsync(10, undefined, ops(2, new TypeError('d.orgId is undefined')))).rejects.toThrow('d.orgId is undefined');
  });

  it('a first claim that fails is the caller’s error', async () => {
    await expect(new NoticeTurns().claimAsync(10, undefined, ops(1))).rejects.toThrow('waiting for replication timed out');
  });
});
