// The sweep's share per tenant (delivery-claim.ts dueDeliveries), without a server: a stand-in
// for the collections the sweep reads and writes — the due queue's first level (`dueEndpoints`,
// by bound then _id), endpoints by _id and one month's deliveries by endpoint then due time —
// matching the filters the plans build (equality, $gt, $lte, $in) and sorting as they ask.
import { describe, expect, it } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { DUE_ENDPOINTS_PAGE, dueDeliveries, sharePerTenant, withinShares } from './delivery-claim.ts';
import { dueEntryId } from './due-queue.ts';

type Doc = Record<string, unknown>;
const MONTH = '202612';

function matches(doc: Doc, filter: Doc): boolean {
  return Object.entries(filter).every(([key, want]) => {
    const have = doc[key];
    if (want === null || typeof want !== 'object' || Array.isArray(want)) return have === want;
    const ops = want as Record<string, unknown>;
    return Object.entries(ops).every(([op, v]) => {
      if (op === '$gt') return (have as number | string) > (v as number | string);
      if (op === '$lte') return (have as number | string) <= (v as number | string);
      if (op === '$in') return (v as unknown[]).includes(have);
      if (op === '$type') return typeof have === v;
      throw new Error(`the stand-in has no ${op}`);
    });
  });
}

function sorted(docs: Doc[], sort: Record<string, 1 | -1> | undefined): Doc[] {
  if (sort === undefined) return docs;
  return [...docs].sort((a, b) => {
    for (const [key, dir] of Object.entries(sort)) {
      const x = a[key] as number | string;
      const y = b[key] as number | string;
      if (x !== y) return (x < y ? -1 : 1) * dir;
    }
    return 0;
  });
}

function collection(docs: Doc[], counts: { writes: number; finds?: number }) {
  return {
    find: (filter: Doc, options: { sort?: Record<string, 1 | -1> } = {}) => {
      if (counts.finds !== undefined) counts.finds++;
      let limit = Infinity;
      const cursor = {
        limit: (n: number) => {
          limit = n;
          return cursor;
        },
        toArray: async () =>
          sorted(
            docs.filter((d) => matches(d, filter)),
            options.sort,
          )
            .slice(0, limit)
            .map((d) => ({ ...d })),
      };
      return cursor;
    },
    updateOne: async (filter: Doc, update: { $set: Doc }) => {
      const doc = docs.find((d) => matches(d, filter));
      if (doc === undefined) return { modifiedCount: 0 };
      counts.writes++;
      Object.assign(doc, update.$set);
      return { modifiedCount: 1 };
    },
    deleteOne: async (filter: Doc) => {
      const i = docs.findIndex((d) => matches(d, filter));
      if (i >= 0) docs.splice(i, 1);
      return { deletedCount: i >= 0 ? 1 : 0 };
    },
    bulkWrite: async (ops: { updateOne: { filter: Doc; update: { $min: { dueAt: number }; $setOnInsert: Doc } } }[]) => {
      for (const { updateOne } of ops) {
        const doc = docs.find((d) => matches(d, updateOne.filter));
        if (doc === undefined) docs.push({ ...updateOne.filter, ...updateOne.update.$setOnInsert, dueAt: updateOne.update.$min.dueAt });
        else if (updateOne.update.$min.dueAt < (doc['dueAt'] as number)) doc['dueAt'] = updateOne.update.$min.dueAt;
      }
      return {};
    },
  };
}

/** A store of `endpoints` (one tenant each as given), each with one delivery due at its `dueAt`. */
function store(endpoints: { id: string; orgId: string; dueAt: number }[]) {
  const queueCounts = { writes: 0, finds: 0 };
  const ownWrites = { writes: 0 };
  /** Writes across collections. */
  const counts = {
    get writes() {
      return queueCounts.writes + ownWrites.writes;
    },
  };
  const queue: Doc[] = endpoints.map((e) => ({ _id: dueEntryId(MONTH, e.id), orgId: e.orgId, env: 'live', endpointId: e.id, month: MONTH, dueAt: e.dueAt }));
  const deliveries: Doc[] = endpoints.map((e) => ({
    _id: `dlv_${e.id}`,
    endpointId: e.id,
    orgId: e.orgId,
    env: 'live',
    status: 'pending',
    held: false,
    laneWait: false,
    dueAt: e.dueAt,
  }));
  const eps: Doc[] = endpoints.map((e) => ({ _id: e.id, status: 'active' }));
  const conn = {
    dueEndpoints: collection(queue, queueCounts),
    endpoints: collection(eps, ownWrites),
    bucket: () => ({ deliveries: collection(deliveries, ownWrites) }),
    months: async () => [MONTH],
  } as unknown as MongoConnection;
  return { conn, counts, queue, deliveries, queueFinds: () => queueCounts.finds };
}

const busyEndpoints = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `ep_busy_${String(i).padStart(4, '0')}`, orgId: 'org_busy', dueAt: 1 + i }));

describe('the sweep’s share per tenant (MongoDB, stand-in collections)', () => {
  it('takes a tenant’s first perTenant entries of a call and passes over the rest; other tenants are untouched', () => {
    const taken = new Map<string, number>([['org_a/live', 1]]);
    const page = [
      { id: 1, orgId: 'org_a', env: 'live' },
      { id: 2, orgId: 'org_b', env: 'live' },
      { id: 3, orgId: 'org_a', env: 'live' },
      { id: 4, orgId: 'org_a', env: 'test' },
    ];
    expect(withinShares(page, taken, 2).map((q) => q.id)).toEqual([1, 2, 4]);
    // `all`: every entry of a tenant still below its share.
    expect(withinShares(page, taken, 2, true).map((q) => q.id)).toEqual([1, 2, 3, 4]);
    // What was given is counted by the caller, after the entries were read (an entry may give none).
    expect(Object.fromEntries(taken)).toEqual({ 'org_a/live': 1 });
    const t = (orgId: string) => ({ tenant: { orgId: orgId as never, env: 'live' as const } });
    expect(sharePerTenant([t('a'), t('b'), t('a'), t('a')], 2)).toEqual([t('a'), t('b'), t('a')]);
  });

  it('a tenant with 500 endpoints due: the call lists 2 of it (a share of 2) and the tenant behind, writing only what it takes', async () => {
    // A call of limit 4 reads at most ⌈4 / 64⌉ + 8 = 9 pages (576 entries): the quiet tenant's lies within them.
    expect(DUE_ENDPOINTS_PAGE).toBe(64);
    const { conn, counts, queue } = store([...busyEndpoints(500), { id: 'ep_quiet', orgId: 'org_quiet', dueAt: 1_000 }]);
    const listed = await dueDeliveries(conn, 10_000, 4, 1, 2);
    expect(listed.map((d) => d.id)).toEqual(['dlv_ep_busy_0000', 'dlv_ep_busy_0001', 'dlv_ep_quiet']);
    // Taken and moved: 2 writes for each of the 3 entries taken; the 498 passed over kept their bounds (their order).
    expect(counts.writes).toBe(3 * 2);
    expect(queue.filter((e) => e['orgId'] === 'org_busy').map((e) => e['dueAt'])).toEqual(busyEndpoints(500).map((e) => e.dueAt));
    // The next call, nothing sent meanwhile: the same answer.
    expect((await dueDeliveries(conn, 10_001, 4, 1, 2)).map((d) => d.id)).toEqual(listed.map((d) => d.id));
  });

  it('without a share (perTenant unset: the limit, 4), the busy tenant’s oldest 4 fill the page and the quiet one waits', async () => {
    const { conn, counts } = store([...busyEndpoints(500), { id: 'ep_quiet', orgId: 'org_quiet', dueAt: 1_000 }]);
    expect((await dueDeliveries(conn, 10_000, 4, 1)).map((d) => d.id)).toEqual([
      'dlv_ep_busy_0000',
      'dlv_ep_busy_0001',
      'dlv_ep_busy_0002',
      'dlv_ep_busy_0003',
    ]);
    // Only the 4 it lists are taken and moved (a page of 64 taken would be 128 writes).
    expect(counts.writes).toBe(4 * 2);
  });

  it('a tenant whose oldest entries are stale (their deliveries leased since): the call takes its next entries of the page, not none', async () => {
    const { conn, deliveries } = store([...busyEndpoints(300), { id: 'ep_quiet', orgId: 'org_quiet', dueAt: 1_000 }]);
    const now = 10_000;
    expect((await dueDeliveries(conn, now, 4, 1, 2)).map((d) => d.id)).toEqual(['dlv_ep_busy_0000', 'dlv_ep_busy_0001', 'dlv_ep_quiet']);
    // Claimed by the dispatcher: their dueAt moves to the lease's end; their entries' bounds stay (the claim writes no entry).
    for (const d of deliveries.filter((d) => ['dlv_ep_busy_0000', 'dlv_ep_busy_0001', 'dlv_ep_quiet'].includes(d['_id'] as string))) d['dueAt'] = now + 17_000;
    expect((await dueDeliveries(conn, now + 1, 4, 1, 2)).map((d) => d.id)).toEqual(['dlv_ep_busy_0002', 'dlv_ep_busy_0003']);
  });

  it('64 stale entries ahead of a tenant one short of its share: two rounds of takes, not one an entry', async () => {
    const { conn, deliveries, queueFinds } = store(busyEndpoints(200));
    const now = 10_000;
    // The first 64 endpoints' deliveries leased since their bounds were set: each entry gives nothing.
    for (const d of deliveries.slice(0, 64)) d['dueAt'] = now + 17_000;
    const endpointReads = (conn as unknown as { endpoints: { find: (...args: unknown[]) => unknown } }).endpoints;
    let statusReads = 0;
    const find = endpointReads.find;
    endpointReads.find = (...args: unknown[]) => (statusReads++, find(...args));
    expect((await dueDeliveries(conn, now, 1, 1, 1)).map((d) => d.id)).toEqual(['dlv_ep_busy_0064']);
    // Page 1: a round of 1, then the other 63 at once; page 2: its first entry. A status read a round.
    expect(statusReads).toBeLessThanOrEqual(2 + 1);
    expect(queueFinds()).toBeLessThanOrEqual(9 * 2);
  });

  it('entries another dispatcher won (its compare-and-set first) are no reason for a second round: that sweep reads them', async () => {
    const { conn } = store(busyEndpoints(200));
    const queue = (conn as unknown as { dueEndpoints: { updateOne: (filter: { _id: string }, update: unknown) => Promise<{ modifiedCount: number }> } })
      .dueEndpoints;
    const updateOne = queue.updateOne;
    const tried: string[] = [];
    queue.updateOne = async (filter, update) => {
      tried.push(filter._id);
      // The first page's entries: taken by another dispatcher just before.
      if (Number(filter._id.slice(-4)) < 64) return { modifiedCount: 0 };
      return updateOne(filter, update);
    };
    expect((await dueDeliveries(conn, 10_000, 1, 1, 1)).map((d) => d.id)).toEqual(['dlv_ep_busy_0064']);
    // Of the first page, only the one its share had room for was tried.
    expect(tried.filter((id) => Number(id.slice(-4)) < 64)).toEqual(['202612:ep_busy_0000']);
  });

  it('a tenant the caller skips (its share full) is passed over with no write; the tenant behind it is listed', async () => {
    const { conn, counts, queueFinds } = store([...busyEndpoints(500), { id: 'ep_quiet', orgId: 'org_quiet', dueAt: 1_000 }]);
    const listed = await dueDeliveries(conn, 10_000, 4, 1, 2, [{ orgId: 'org_busy' as never, env: 'live' }]);
    expect(listed.map((d) => d.id)).toEqual(['dlv_ep_quiet']);
    // The quiet tenant's entry taken and moved: 2 writes; none of the 500.
    expect(counts.writes).toBe(2);
    // Its reads: the 9 pages of the call, at most 2 finds each (the tie of a page's last bound, then the rest).
    expect(queueFinds()).toBeLessThanOrEqual(9 * 2);
  });

  it('behind more of one tenant’s endpoints than a call’s pages hold, another tenant is not listed (the tenant level this queue lacks)', async () => {
    const { conn, counts } = store([...busyEndpoints(700), { id: 'ep_quiet', orgId: 'org_quiet', dueAt: 1_000 }]);
    expect((await dueDeliveries(conn, 10_000, 4, 1, 2)).map((d) => d.id)).toEqual(['dlv_ep_busy_0000', 'dlv_ep_busy_0001']);
    expect(counts.writes).toBe(2 * 2);
  });
});
