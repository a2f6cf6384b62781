// The alerting engine's minute reading of usage without a server: a send whose organization's
// live messages of the month reach USAGE_NOTICE_FLOOR (5,000) marks it over the floor, once a
// process and month, and liveMonthUsage reads only the marked organizations' counters, a page
// of 500 marks at a time. A stand-in `counters` collection keeps the documents in a Map, answers
// the calls this code makes (as the _id index would: a range by prefix, in order, limited) and
// records what each read touched.
import { USAGE_NOTICE_FLOOR, type OrgId, type PlanName } from '@wirehook/core';
import { describe, expect, it, vi } from 'vitest';
import type { UsageCounter } from '../ports/message-port.ts';
import { MongoAlertSettingsRepo } from './alert-settings-repo.ts';
import type { MongoConnection } from './connection.ts';
import { MongoOrgRepo } from './org-repo.ts';
import { USAGE_MARKS_PAGE } from './plans/alerts.ts';
import { shardIds, takeCounts, usageOverMarkId } from './usage-counters.ts';

const NOW = Date.UTC(2026, 11, 2);
const EXPIRES = Date.UTC(2027, 1, 1);
const live = (org: string, month = '2026-12'): UsageCounter => ({ key: `live:${org}:${month}`, limit: null, increment: true, expiresAt: EXPIRES });

interface Doc {
  value: number;
  expiresAt: Date;
}
type IdFilter = { _id: string | { $in: string[] } | { $gt: string; $lt: string } };

function countersOf() {
  const docs = new Map<string, Doc>();
  const calls = { upserts: [] as string[], read: [] as string[], failUpserts: 0, limits: [] as number[], ins: [] as number[] };
  const select = (filter: IdFilter): string[] => {
    const id = filter._id;
    if (typeof id === 'string') return docs.has(id) ? [id] : [];
    if ('$in' in id) return id.$in.filter((one) => docs.has(one));
    return [...docs.keys()].filter((one) => one > id.$gt && one < id.$lt).sort();
  };
  const counters = {
    updateOne: async (filter: { _id: string }, update: unknown, options: { upsert?: boolean }) => {
      const doc = docs.get(filter._id);
      if (doc === undefined && options.upsert !== true) return { matchedCount: 0, modifiedCount: 0 };
      if (Array.isArray(update)) docs.set(filter._id, { value: (doc?.value ?? 0) + 1, expiresAt: new Date(EXPIRES) });
      else if ((update as { $setOnInsert?: Doc }).$setOnInsert) {
        calls.upserts.push(filter._id);
        if (calls.failUpserts > 0) {
          calls.failUpserts--;
          throw new Error('not primary');
        }
        if (doc === undefined) docs.set(filter._id, { ...(update as { $setOnInsert: Doc }).$setOnInsert });
      } else throw new Error(`unexpected update ${JSON.stringify(update)}`);
      return { matchedCount: 1, modifiedCount: 1 };
    },
    find: (filter: IdFilter) => {
      if (typeof filter._id === 'object' && '$in' in filter._id) calls.ins.push(filter._id.$in.length);
      let limit = Infinity;
      const cursor = {
        limit: (n: number) => {
          limit = n;
          calls.limits.push(n);
          return cursor;
        },
        toArray: async () => {
          const found = select(filter).slice(0, limit);
          calls.read.push(...found);
          return found.map((id) => ({ _id: id, ...docs.get(id)! }));
        },
      };
      return cursor;
    },
  };
  /** Sets a counter's value (in its first shard, as a long month of sends would leave it). */
  const set = (key: string, value: number) => docs.set(shardIds(key)[0]!, { value, expiresAt: new Date(EXPIRES) });
  return { conn: { counters } as unknown as MongoConnection, docs, calls, set };
}

/**
 * A stand-in `orgs` of one organization, and the order of setPlan's steps: its read, the mark
 * (an upsert into `conn`'s counters), the plan's write.
 */
function orgsOf(conn: MongoConnection, id: string, initial: string) {
  let plan = initial;
  let failPlanWrites = 0;
  const order: string[] = [];
  const upsert = conn.counters.updateOne.bind(conn.counters);
  (conn.counters as unknown as { updateOne: typeof upsert }).updateOne = ((...args: Parameters<typeof upsert>) => {
    order.push('mark');
    return upsert(...args);
  }) as typeof upsert;
  const orgs = {
    findOne: async (filter: { _id: string }, options: { comment?: string }) => {
      expect(options.comment, 'sent as its plan').toBe('tenancy.orgById');
      order.push('read');
      return filter._id === id ? { _id: id } : null;
    },
    findOneAndUpdate: async (filter: { _id: string }, update: { $set: { plan: string } }) => {
      order.push('plan');
      if (failPlanWrites > 0) {
        failPlanWrites--;
        throw new Error('connection lost');
      }
      if (filter._id !== id) return null;
      plan = update.$set.plan;
      return { _id: id, name: 'P', plan, ownerEmail: null, createdAt: 0 };
    },
  };
  return { orgs, order, plan: () => plan, failPlanWriteOnce: () => void (failPlanWrites = 1) };
}

/** setPlan marks the month of the real clock: the test's December. */
async function setPlanInDecember(conn: MongoConnection, id: string, plan: string) {
  vi.useFakeTimers({ toFake: ['Date'], now: NOW });
  try {
    return await new MongoOrgRepo(conn).setPlan(id as OrgId, plan as PlanName);
  } finally {
    vi.useRealTimers();
  }
}

describe('usage-over marks (MongoDB): the minute reading of usage reads only organizations at 5,000 or more', () => {
  it('a send that brings the month to 5,000 marks its organization, one at 4,999 does not; marked once a process', async () => {
    const { conn, docs, calls, set } = countersOf();
    expect(USAGE_NOTICE_FLOOR).toBe(5_000);
    set(live('org_a').key, 4_998);
    await takeCounts(conn, [live('org_a')], NOW); // 4,999
    expect(docs.has(usageOverMarkId('2026-12', 'org_a'))).toBe(false);
    await takeCounts(conn, [live('org_a')], NOW); // 5,000
    expect(docs.get(usageOverMarkId('2026-12', 'org_a'))).toEqual({ value: 0, expiresAt: new Date(EXPIRES) });
    await takeCounts(conn, [live('org_a')], NOW); // 5,001: no second write
    expect(calls.upserts).toEqual(['usage-over:2026-12:org_a']);
  });

  it("marks at its own plan's first threshold: a starter plan (250,000) at 124,999 is no mark, at 125,000 it is", async () => {
    const { conn, docs, set } = countersOf();
    const starter = { ...live('org_s'), limit: 250_000 };
    set(starter.key, 124_998);
    await takeCounts(conn, [starter], NOW); // 124,999: over 5,000, under 50 % of its plan
    expect(docs.has(usageOverMarkId('2026-12', 'org_s'))).toBe(false);
    await takeCounts(conn, [starter], NOW); // 125,000
    expect(docs.has(usageOverMarkId('2026-12', 'org_s'))).toBe(true);
  });

  it('a plan lowered under the count already reached marks its organization, so it is read without another send', async () => {
    const { conn, docs, set } = countersOf();
    const starter = { ...live('org_p'), limit: 250_000 };
    set(starter.key, 99_999);
    await takeCounts(conn, [starter], NOW); // 100,000: under starter's 125,000
    expect(docs.has(usageOverMarkId('2026-12', 'org_p'))).toBe(false);
    const { orgs } = orgsOf(conn, 'org_p', 'starter');
    const withOrgs = Object.assign(Object.create(conn) as MongoConnection, { orgs });
    expect((await setPlanInDecember(withOrgs, 'org_p', 'free'))?.plan).toBe('free');
    expect(await new MongoAlertSettingsRepo(conn).liveMonthUsage('2026-12', NOW)).toEqual([{ orgId: 'org_p', used: 100_000 }]);
  });

  it('a plan change marks before it changes: a mark that fails leaves the plan as it was (the command fails, to be run again)', async () => {
    const { conn, docs, calls } = countersOf();
    const { orgs, plan, order } = orgsOf(conn, 'org_q', 'starter');
    const withOrgs = Object.assign(Object.create(conn) as MongoConnection, { orgs });
    calls.failUpserts = 1;
    await expect(setPlanInDecember(withOrgs, 'org_q', 'free')).rejects.toThrow('not primary');
    expect(plan(), 'not lowered unmarked').toBe('starter');
    expect((await setPlanInDecember(withOrgs, 'org_q', 'free'))?.plan).toBe('free');
    expect(docs.has(usageOverMarkId('2026-12', 'org_q'))).toBe(true);
    expect(order, 'the mark, then the plan').toEqual(['read', 'mark', 'read', 'mark', 'plan']);
  });

  it('a plan change of an organization that does not exist writes nothing (no stray mark)', async () => {
    const { conn, docs } = countersOf();
    const { orgs } = orgsOf(conn, 'org_r', 'starter');
    const withOrgs = Object.assign(Object.create(conn) as MongoConnection, { orgs });
    expect(await setPlanInDecember(withOrgs, 'org_gone', 'free')).toBeNull();
    expect([...docs.keys()]).toEqual([]);
  });

  it('a plan write lost after its mark leaves the mark and the plan as it was; run again, the plan changes and the mark is kept', async () => {
    const { conn, docs, calls } = countersOf();
    const { orgs, plan, failPlanWriteOnce } = orgsOf(conn, 'org_w', 'starter');
    const withOrgs = Object.assign(Object.create(conn) as MongoConnection, { orgs });
    failPlanWriteOnce();
    await expect(setPlanInDecember(withOrgs, 'org_w', 'free')).rejects.toThrow('connection lost');
    expect(plan()).toBe('starter');
    expect(docs.has(usageOverMarkId('2026-12', 'org_w')), 'the mark written first stays').toBe(true);
    expect((await setPlanInDecember(withOrgs, 'org_w', 'free'))?.plan).toBe('free');
    expect(calls.upserts.filter((id) => id === usageOverMarkId('2026-12', 'org_w'))).toHaveLength(2); // the second a no-op upsert
    // A mark whose organization has no counter this month (nothing sent): read as nothing used, left out.
    expect(await new MongoAlertSettingsRepo(conn).liveMonthUsage('2026-12', NOW)).toEqual([]);
  });

  it('remembers the marks of the two months it last began: one of a month forgotten since is written again, once', async () => {
    const { conn, calls, set } = countersOf();
    // November again just after December began (two clocks either side of midnight): still remembered.
    for (const month of ['2026-10', '2026-11', '2026-12', '2026-11', '2026-10']) {
      set(live('org_m', month).key, 6_000);
      await takeCounts(conn, [live('org_m', month)], NOW);
      await takeCounts(conn, [live('org_m', month)], NOW); // remembered: no second write
    }
    // October's forgotten once December came (a send of three months back is a clock far off, or a test's); then remembered again.
    expect(calls.upserts).toEqual(['usage-over:2026-10:org_m', 'usage-over:2026-11:org_m', 'usage-over:2026-12:org_m', 'usage-over:2026-10:org_m']);
  });

  it('a send refused at its plan limit marks its organization too (every later send of the month is refused)', async () => {
    const { conn, docs, set } = countersOf();
    set(live('org_full').key, 10_000);
    await expect(takeCounts(conn, [{ ...live('org_full'), limit: 10_000 }], NOW)).rejects.toThrow('at its limit of 10000');
    expect(docs.has(usageOverMarkId('2026-12', 'org_full'))).toBe(true);
  });

  it('marks only live month counters: a test day counter over the floor, or one only read, is no mark', async () => {
    const { conn, calls, set } = countersOf();
    const day: UsageCounter = { key: 'test:org_b:2026-12-02', limit: null, increment: true, expiresAt: EXPIRES };
    set(day.key, 9_000);
    set(live('org_b').key, 9_000);
    await takeCounts(conn, [day, { ...live('org_b'), increment: false }], NOW);
    expect(calls.upserts).toEqual([]);
  });

  it('a mark that fails to be written does not fail the send, and the next send writes it', async () => {
    const { conn, docs, calls, set } = countersOf();
    set(live('org_c').key, 5_000);
    calls.failUpserts = 1;
    await expect(takeCounts(conn, [live('org_c')], NOW)).resolves.toMatchObject({ values: { [live('org_c').key]: 5_001 } });
    expect(docs.has(usageOverMarkId('2026-12', 'org_c'))).toBe(false);
    await takeCounts(conn, [live('org_c')], NOW);
    expect(docs.has(usageOverMarkId('2026-12', 'org_c'))).toBe(true);
    expect(calls.upserts).toHaveLength(2);
  });

  it(`lists the marked organizations of the month with their sums, ${USAGE_MARKS_PAGE} marks a page, reading no unmarked counter`, async () => {
    const { conn, docs, calls, set } = countersOf();
    // 501 marked organizations of December (two pages), each over the floor but one given back under it.
    const marked = Array.from({ length: USAGE_MARKS_PAGE + 1 }, (_, i) => `org_${String(i).padStart(4, '0')}`);
    for (const org of marked) {
      set(live(org).key, 5_000);
      docs.set(`3|${live(org).key}`, { value: 7, expiresAt: new Date(EXPIRES) }); // another shard: summed
      docs.set(usageOverMarkId('2026-12', org), { value: 0, expiresAt: new Date(EXPIRES) });
    }
    set(live(marked[7]!).key, 4_992); // 4,999 with its other shard: given back under the floor since its mark
    // Unmarked: 1,000 organizations under the floor this month, and a November mark.
    for (let i = 0; i < 1_000; i++) set(live(`small_${i}`).key, 40);
    docs.set(usageOverMarkId('2026-11', 'org_nov'), { value: 0, expiresAt: new Date(EXPIRES) });
    set(live('org_nov', '2026-11').key, 9_000);

    const used = await new MongoAlertSettingsRepo(conn).liveMonthUsage('2026-12', NOW);
    expect(used).toHaveLength(USAGE_MARKS_PAGE);
    expect(used).toContainEqual({ orgId: marked[0] as OrgId, used: 5_007 });
    expect(used).toContainEqual({ orgId: marked.at(-1) as OrgId, used: 5_007 });
    expect(used.map((u) => u.orgId)).not.toContain(marked[7]);
    // Read: the 501 marks and the marked counters' shards, never a small organization's or November's.
    expect(calls.read.filter((id) => id.startsWith('usage-over:'))).toHaveLength(USAGE_MARKS_PAGE + 1);
    // Two pages of marks, each limited to 500, and each page's counters in one $in of 8 shards a mark.
    expect(calls.limits).toEqual([USAGE_MARKS_PAGE, USAGE_MARKS_PAGE]);
    expect(calls.ins).toEqual([USAGE_MARKS_PAGE * 8, 8]);
    expect(calls.read.some((id) => id.includes('small_') || id.includes('2026-11'))).toBe(false);
  });
});
