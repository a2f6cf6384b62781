// The alerting engine's walk over the organizations with retrying deliveries (alert-settings-repo.ts,
// retryingCounts), without a server: a stand-in for two months' deliveries that answers the walk's
// seek (the first organization after a cursor with a retrying delivery) and its counts (stopped at
// their limit), as deliveries_retrying would. What is tested: a page reads at most its budget of
// organizations and says where the next goes on, the pages together read each organization once,
// and each organization's reads go out at once rather than one after another.
import type { OrgId } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { MongoAlertSettingsRepo } from './alert-settings-repo.ts';

type Row = { orgId: string; env: 'live' | 'test'; status: string };

function standIn(byMonth: Record<string, Row[]>) {
  const log = { seeks: 0, counts: 0, inFlight: 0, most: 0 };
  const track = async <T>(answer: () => T): Promise<T> => {
    log.inFlight++;
    log.most = Math.max(log.most, log.inFlight);
    await new Promise((resolve) => setImmediate(resolve));
    log.inFlight--;
    return answer();
  };
  const bucket = (month: string) => {
    const rows = byMonth[month] ?? [];
    return {
      deliveries: {
        findOne: (filter: { status: string; orgId: { $gt: string } }) => {
          log.seeks++;
          return track(() => {
            const found = rows.filter((r) => r.status === filter.status && r.orgId > filter.orgId.$gt).sort((a, b) => (a.orgId < b.orgId ? -1 : 1))[0];
            return found === undefined ? null : { orgId: found.orgId };
          });
        },
        countDocuments: (filter: { status: string; orgId: string; env: string }, options: { limit?: number }) => {
          log.counts++;
          return track(() =>
            Math.min(rows.filter((r) => r.status === filter.status && r.orgId === filter.orgId && r.env === filter.env).length, options.limit ?? Infinity),
          );
        },
      },
    };
  };
  const conn = { months: async () => Object.keys(byMonth).sort(), bucket } as unknown as MongoConnection;
  return { repo: new MongoAlertSettingsRepo(conn), log };
}

const retrying = (orgId: string, n: number, env: 'live' | 'test' = 'live'): Row[] => Array.from({ length: n }, () => ({ orgId, env, status: 'retrying' }));

describe("the alerting engine's walk over retrying organizations (MongoDB, a stand-in)", () => {
  const months = {
    '202611': [...retrying('org_a', 3), ...retrying('org_c', 1), ...retrying('org_d', 3, 'test')],
    '202612': [...retrying('org_b', 3), ...retrying('org_c', 2), { orgId: 'org_e', env: 'live', status: 'failed' } as Row],
  };

  it('reads at most its budget of organizations a page, and the next page goes on after the last it read', async () => {
    const { repo } = standIn(months);
    const first = await repo.retryingCounts(3, null, 2);
    expect(first.counts.map((r) => r.tenant.orgId)).toEqual(['org_a', 'org_b']);
    expect(first.next).toBe('org_b');
    // org_c's 1 and 2 are counted together over the months holding it; org_d's in its test environment.
    const second = await repo.retryingCounts(3, first.next, 2);
    expect(second.counts.map((r) => [r.tenant.orgId, r.tenant.env, r.count, r.exact])).toEqual([
      ['org_c', 'live', 3, false],
      ['org_d', 'test', 3, false],
    ]);
    // Nothing retrying after org_d (org_e's delivery failed for good): the walk has ended with this page.
    expect(second.next).toBeNull();
    expect(await repo.retryingCounts(3, 'org_d' as OrgId, 2)).toEqual({ counts: [], next: null });
  });

  it('refuses a page of no organization (it could only say the walk had ended)', async () => {
    const { repo } = standIn(months);
    await expect(repo.retryingCounts(3, null, 0)).rejects.toThrow(RangeError);
  });

  it('says the walk ended on the page that reads the last organization', async () => {
    const { repo } = standIn(months);
    const all = await repo.retryingCounts(3, null, 10);
    expect(all.counts.map((r) => r.tenant.orgId)).toEqual(['org_a', 'org_b', 'org_c', 'org_d']);
    expect(all.next).toBeNull();
    // Exactly the budget: no organization left after the last one read, so no page more.
    expect((await repo.retryingCounts(3, null, 4)).next).toBeNull();
    expect((await repo.retryingCounts(3, null, 3)).next).toBe('org_c');
  });

  it('sends an organization’s next seeks and both environments’ counts at once, and examines a bounded number a page', async () => {
    const { repo, log } = standIn(months);
    await repo.retryingCounts(3, null, 1);
    // The months' first seeks (2), then org_a's: its month's next seek and its two counts, together.
    expect(log.seeks).toBe(2 + 1);
    expect(log.counts).toBe(2);
    expect(log.most).toBeGreaterThanOrEqual(3);
  });
});
