// The sweep's share per tenant (delivery-claim.ts dueDeliveries), without a server: a stand-in
// for the collections the sweep reads and writes — the due queue's first level (`dueEndpoints`,
// by bound then _id), endpoints by _id and one month's deliveries by endpoint then due time —
// matching the filters the plans build as MongoDB does (mingo: walk-collection.ts's `matcher`) and sorting as they ask.
import { describe, expect, it, vi } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { dueDeliveries, HEAL_ENTRIES, healDueQueue, healTenantBounds, sharePerTenant, withinShares } from './delivery-claim.ts';
import { DUE_NEVER, type DueNote, dueEntryId, noteDue } from './due-queue.ts';
import { byNextTurn } from '../../test/next-turn.ts';
import { matcher } from '../../test/mongo/walk-collection.ts';

type Doc = Record<string, unknown>;
const MONTH = '202612';

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

function collection(docs: Doc[], counts: { writes: number; finds?: number; read?: number }) {
  return {
    find: (filter: Doc, options: { sort?: Record<string, 1 | -1> } = {}) => {
      if (counts.finds !== undefined) counts.finds++;
      let limit = Infinity;
      const cursor = {
        limit: (n: number) => {
          limit = n;
          return cursor;
        },
        toArray: async () => {
          const found = sorted(docs.filter(matcher(filter)), options.sort)
            .slice(0, limit)
            .map((d) => ({ ...d }));
          if (counts.read !== undefined) counts.read += found.length;
          return found;
        },
      };
      return cursor;
    },
    updateOne: async (
      filter: Doc,
      update: { $set?: Doc; $min?: { dueAt: number }; $inc?: Record<string, number>; $setOnInsert?: Doc },
      options: { upsert?: boolean } = {},
    ) => {
      const doc = docs.find(matcher(filter));
      if (doc === undefined) {
        if (options.upsert !== true) return { matchedCount: 0, modifiedCount: 0 };
        counts.writes++;
        docs.push({ ...filter, ...update.$setOnInsert, ...update.$set, ...update.$min });
        return { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 };
      }
      const min = update.$min;
      if (min !== undefined && min.dueAt >= (doc['dueAt'] as number)) return { matchedCount: 1, modifiedCount: 0 };
      counts.writes++;
      Object.assign(doc, update.$set, min);
      for (const [key, by] of Object.entries(update.$inc ?? {})) doc[key] = ((doc[key] as number | undefined) ?? 0) + by;
      return { matchedCount: 1, modifiedCount: 1 };
    },
    deleteOne: async (filter: Doc) => {
      const i = docs.findIndex(matcher(filter));
      if (i >= 0) docs.splice(i, 1);
      return { deletedCount: i >= 0 ? 1 : 0 };
    },
    bulkWrite: async (ops: { updateOne: { filter: Doc; update: { $min: { dueAt: number }; $setOnInsert: Doc } } }[]) => {
      let modifiedCount = 0;
      let upsertedCount = 0;
      for (const { updateOne } of ops) {
        const doc = docs.find(matcher(updateOne.filter));
        if (doc === undefined) {
          upsertedCount++;
          docs.push({ ...updateOne.filter, ...updateOne.update.$setOnInsert, dueAt: updateOne.update.$min.dueAt });
        } else if (updateOne.update.$min.dueAt < (doc['dueAt'] as number)) {
          modifiedCount++;
          doc['dueAt'] = updateOne.update.$min.dueAt;
        }
      }
      return { modifiedCount, upsertedCount };
    },
  };
}

/**
 * A store of `endpoints` (one tenant each as given), each with one delivery due at its `dueAt`,
 * and each tenant's bound its endpoints' earliest (as noteDue leaves them).
 */
function store(endpoints: { id: string; orgId: string; dueAt: number }[]) {
  const queueCounts = { writes: 0, finds: 0, read: 0 };
  const tenantCounts = { writes: 0, finds: 0, read: 0 };
  const ownWrites = { writes: 0 };
  const deliveryCounts = { writes: 0, read: 0 };
  /** Writes across collections. */
  const counts = {
    get writes() {
      return queueCounts.writes + tenantCounts.writes + ownWrites.writes + deliveryCounts.writes;
    },
    /** Deliveries the sweep's reads of them returned (what the due index's reads examine, about). */
    get deliveriesRead() {
      return deliveryCounts.read;
    },
    get tenantWrites() {
      return tenantCounts.writes;
    },
    /** Documents the queue's two levels returned (what a covered read of their indexes would examine, about). */
    get queueRead() {
      return queueCounts.read + tenantCounts.read;
    },
  };
  const queue: Doc[] = endpoints.map((e) => ({ _id: dueEntryId(MONTH, e.id), orgId: e.orgId, env: 'live', endpointId: e.id, month: MONTH, dueAt: e.dueAt }));
  const tenants: Doc[] = [];
  for (const e of endpoints) {
    const t = tenants.find((d) => d['orgId'] === e.orgId);
    if (t === undefined) tenants.push({ _id: `${e.orgId}/live`, orgId: e.orgId, env: 'live', dueAt: e.dueAt });
    else t['dueAt'] = Math.min(t['dueAt'] as number, e.dueAt);
  }
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
  const bucket = { deliveries: collection(deliveries, deliveryCounts) };
  const conn = {
    dueEndpoints: collection(queue, queueCounts),
    dueTenants: collection(tenants, tenantCounts),
    endpoints: collection(eps, ownWrites),
    bucket: () => bucket,
    months: async () => [MONTH],
  } as unknown as MongoConnection;
  return { conn, counts, queue, tenants, deliveries, eps, queueFinds: () => queueCounts.finds + tenantCounts.finds };
}

/** A store of one endpoint (ep_1 of org_1) whose entry's bound is `bound`, with 50 open deliveries due at `dueAt(k)`. */
function oneEndpoint(bound: number, dueAt: (k: number) => number) {
  const st = store([{ id: 'ep_1', orgId: 'org_1', dueAt: bound }]);
  st.deliveries.length = 0;
  for (let k = 0; k < 50; k++) {
    st.deliveries.push({ _id: `dlv_${k}`, endpointId: 'ep_1', orgId: 'org_1', env: 'live', status: 'pending', held: false, laneWait: false, dueAt: dueAt(k) });
  }
  return st;
}

/** Runs `meanwhile` once `collection`'s `n`th find has answered (its `limit(…).toArray()`), before the caller sees the answer. */
function afterNthFind(collection: unknown, n: number, meanwhile: () => Promise<void> | void): void {
  const c = collection as { find: (...args: unknown[]) => { limit: (k: number) => { toArray: () => Promise<Doc[]> } } };
  const find = c.find;
  let reads = 0;
  c.find = (...args: unknown[]) => {
    const cursor = find(...args);
    if (++reads !== n) return cursor;
    return {
      limit: (k: number) => ({
        toArray: async () => {
          const found = await cursor.limit(k).toArray();
          await meanwhile();
          return found;
        },
      }),
    };
  };
}

/** Notes `notes` (noteDue) once the `n`th read of the queue's entries has answered, before its caller sees the answer. */
function afterEntryRead(conn: MongoConnection, n: number, notes: DueNote[]): { noted: Promise<void> | undefined } {
  const told: { noted: Promise<void> | undefined } = { noted: undefined };
  afterNthFind(conn.dueEndpoints, n, () => (told.noted = noteDue(conn, notes)));
  return told;
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
    const { conn, counts, queue, tenants } = store([...busyEndpoints(500), { id: 'ep_quiet', orgId: 'org_quiet', dueAt: 1_000 }]);
    const listed = await dueDeliveries(conn, 10_000, 4, 1, 2);
    expect(listed.map((d) => d.id)).toEqual(['dlv_ep_busy_0000', 'dlv_ep_busy_0001', 'dlv_ep_quiet']);
    // 2 writes for each of the 3 entries taken, none of a tenant (each one's lowest entry is where its bound was: its
    // settle's $min lowers nothing); the 498 passed over kept their bounds (their order).
    expect(counts.writes).toBe(3 * 2);
    expect(counts.tenantWrites).toBe(0);
    expect(queue.filter((e) => e['orgId'] === 'org_busy').map((e) => e['dueAt'])).toEqual(busyEndpoints(500).map((e) => e.dueAt));
    expect(tenants.map((t) => [t['_id'], t['dueAt']])).toEqual([
      ['org_busy/live', 1],
      ['org_quiet/live', 1_000],
    ]);
    // The next call, nothing sent meanwhile: the same answer.
    expect((await dueDeliveries(conn, 10_001, 4, 1, 2)).map((d) => d.id)).toEqual(listed.map((d) => d.id));
  });

  it('without a share (perTenant unset: the limit, 4), the busy tenant’s oldest 4 fill the call and the quiet one waits', async () => {
    const { conn, counts, queueFinds } = store([...busyEndpoints(500), { id: 'ep_quiet', orgId: 'org_quiet', dueAt: 1_000 }]);
    expect((await dueDeliveries(conn, 10_000, 4, 1)).map((d) => d.id)).toEqual([
      'dlv_ep_busy_0000',
      'dlv_ep_busy_0001',
      'dlv_ep_busy_0002',
      'dlv_ep_busy_0003',
    ]);
    // Only the 4 oldest entries of the page's batches (the busy tenant's 4 + 7 and the quiet one's) are taken: the limit's
    // room (64 taken would be 128 writes).
    expect(counts.writes).toBe(4 * 2);
    // The tenants' page, each tenant's batch, and the busy tenant's lowest entry: the quiet one, untouched, is not settled.
    expect(queueFinds()).toBe(1 + 2 + 1);
  });

  it('a tenant whose oldest entries are stale (their deliveries leased since): the call takes its next entries of the batch, not none', async () => {
    const { conn, deliveries } = store([...busyEndpoints(300), { id: 'ep_quiet', orgId: 'org_quiet', dueAt: 1_000 }]);
    const now = 10_000;
    expect((await dueDeliveries(conn, now, 4, 1, 2)).map((d) => d.id)).toEqual(['dlv_ep_busy_0000', 'dlv_ep_busy_0001', 'dlv_ep_quiet']);
    // Claimed by the dispatcher: their dueAt moves to the lease's end; their entries' bounds stay (the claim writes no entry).
    for (const d of deliveries.filter((d) => ['dlv_ep_busy_0000', 'dlv_ep_busy_0001', 'dlv_ep_quiet'].includes(d['_id'] as string))) d['dueAt'] = now + 17_000;
    expect((await dueDeliveries(conn, now + 1, 4, 1, 2)).map((d) => d.id)).toEqual(['dlv_ep_busy_0002', 'dlv_ep_busy_0003']);
  });

  it('64 stale entries ahead of a tenant one short of its share: batches that double, each in two rounds of takes, not one an entry', async () => {
    const { conn, deliveries, queueFinds } = store(busyEndpoints(200));
    const now = 10_000;
    // The first 64 endpoints' deliveries leased since their bounds were set: each entry gives nothing.
    for (const d of deliveries.slice(0, 64)) d['dueAt'] = now + 17_000;
    const endpointReads = (conn as unknown as { endpoints: { find: (...args: unknown[]) => unknown } }).endpoints;
    let statusReads = 0;
    const find = endpointReads.find;
    endpointReads.find = (...args: unknown[]) => (statusReads++, find(...args));
    expect((await dueDeliveries(conn, now, 1, 1, 1)).map((d) => d.id)).toEqual(['dlv_ep_busy_0064']);
    // Batches of 8, 16, 32 and 64 entries (120 ≥ 65), each a round of 1 then the rest at once: a status read a round.
    expect(statusReads).toBe(4 * 2);
    // The tenants' page; a batch's tie and rest each; the tenant's lowest entry.
    expect(queueFinds()).toBeLessThanOrEqual(1 + 4 * 2 + 1);
    // The call after it: the stale bounds were moved to their leases' ends, so the tenant's first batch finds a due one.
    statusReads = 0;
    expect((await dueDeliveries(conn, now + 1, 1, 1, 1)).map((d) => d.id)).toEqual(['dlv_ep_busy_0064']);
    expect(statusReads).toBe(1);
  });

  it('entries another dispatcher won (its compare-and-set first) are no reason for a second round: that sweep reads them', async () => {
    const { conn } = store(busyEndpoints(200));
    const queue = (conn as unknown as { dueEndpoints: { updateOne: (filter: { _id: string }, update: unknown) => Promise<{ modifiedCount: number }> } })
      .dueEndpoints;
    const updateOne = queue.updateOne;
    const tried: string[] = [];
    queue.updateOne = async (filter, update) => {
      tried.push(filter._id);
      // The first 64 entries: taken by another dispatcher just before.
      if (Number(filter._id.slice(-4)) < 64) return { modifiedCount: 0 };
      return updateOne(filter, update);
    };
    expect((await dueDeliveries(conn, 10_000, 1, 1, 1)).map((d) => d.id)).toEqual(['dlv_ep_busy_0120']);
    // Of each batch (8, 16, 32, 64 entries), only the one its share had room for was tried.
    expect(tried.filter((id) => Number(id.slice(-4)) < 64)).toEqual([
      '202612:ep_busy_0000',
      '202612:ep_busy_0008',
      '202612:ep_busy_0024',
      '202612:ep_busy_0056',
    ]);
  });

  it('a tenant the caller skips (its share full) is passed over with no write; the tenant behind it is listed', async () => {
    const { conn, counts, queueFinds } = store([...busyEndpoints(500), { id: 'ep_quiet', orgId: 'org_quiet', dueAt: 1_000 }]);
    const listed = await dueDeliveries(conn, 10_000, 4, 1, 2, [{ orgId: 'org_busy' as never, env: 'live' }]);
    expect(listed.map((d) => d.id)).toEqual(['dlv_ep_quiet']);
    // The quiet tenant's entry taken and moved: 2 writes; none of the busy tenant or its 500.
    expect(counts.writes).toBe(2);
    // The tenants' page, the quiet tenant's batch and its lowest entry: no read of the busy tenant's entries.
    expect(queueFinds()).toBe(3);
  });

  it('behind 20,000 of one tenant’s endpoints due, another tenant is listed, reading a bounded number of the queue’s documents', async () => {
    const { conn, counts } = store([...busyEndpoints(20_000), { id: 'ep_quiet', orgId: 'org_quiet', dueAt: 30_000 }]);
    expect((await dueDeliveries(conn, 40_000, 4, 1, 2)).map((d) => d.id)).toEqual(['dlv_ep_busy_0000', 'dlv_ep_busy_0001', 'dlv_ep_quiet']);
    // 2 tenants, a batch of 2 + 7 and one of 1 (each read 1 more for its lowest entry after): 12, not the 20,000.
    expect(counts.queueRead).toBe(2 + (9 + 1) + (1 + 1));
  });

  it('a noteDue while a sweep reads the tenant: its bound ends at most the new entry’s (the lower of the two stands)', async () => {
    const { conn, tenants } = store(busyEndpoints(3));
    const deliveries = conn.bucket('202612').deliveries as unknown as { find: (...args: unknown[]) => unknown };
    const find = deliveries.find;
    let noted: Promise<void> | undefined;
    deliveries.find = (...args: unknown[]) => {
      // A new message for another endpoint of the tenant, committed and noted while the sweep reads.
      noted ??= noteDue(conn, [{ orgId: 'org_busy', env: 'live', endpointId: 'ep_new', month: MONTH, dueAt: 0 }]);
      return find(...args);
    };
    await dueDeliveries(conn, 10_000, 1, 1, 1);
    await noted;
    expect(tenants.find((t) => t['_id'] === 'org_busy/live')?.['dueAt']).toBe(0);
    // The same, the note landing after the sweep read the tenant's lowest entry and before it moved the bound back.
    const second = store(busyEndpoints(3));
    // The settle's read of the lowest entry is the call's second of the entries (the batch's first): the note lands after it.
    const late = afterEntryRead(second.conn, 2, [{ orgId: 'org_busy', env: 'live', endpointId: 'ep_new', month: MONTH, dueAt: 0 }]);
    await dueDeliveries(second.conn, 10_000, 1, 1, 1);
    expect(late.noted).toBeDefined();
    expect(second.tenants.find((t) => t['_id'] === 'org_busy/live')?.['dueAt']).toBe(0);
  });

  it('a note whose entry waits for its write while a sweep reads the tenant: the tenant is lowered after the entry, so it ends at the entry', async () => {
    const { conn, tenants } = store(busyEndpoints(3));
    const entries = conn.dueEndpoints as unknown as { bulkWrite: (ops: unknown[]) => Promise<unknown> };
    const write = entries.bulkWrite;
    let release = () => {};
    const wait = new Promise<void>((resolve) => (release = resolve));
    entries.bulkWrite = async (ops) => (await wait, write(ops));
    const noted = noteDue(conn, [{ orgId: 'org_busy', env: 'live', endpointId: 'ep_new', month: MONTH, dueAt: 0 }]);
    // The sweep runs its whole course while the entry is not yet written (its tenant must not be lowered before it).
    expect((await dueDeliveries(conn, 10_000, 1, 1, 1)).map((d) => d.id)).toEqual(['dlv_ep_busy_0000']);
    release();
    await noted;
    expect(tenants.find((t) => t['_id'] === 'org_busy/live')?.['dueAt']).toBe(0);
  });

  it('a sweep waits for this process’s tenants still being lowered (tenantsSoon): a send just answered is listed', async () => {
    const { conn, deliveries } = store([{ id: 'ep_a', orgId: 'org_a', dueAt: 100 }]);
    // A new message's delivery, due at 5: its entry is written, its tenant's $min still on its way.
    deliveries.push({ _id: 'dlv_new', endpointId: 'ep_a', orgId: 'org_a', env: 'live', status: 'pending', held: false, laneWait: false, dueAt: 5 });
    const tenantsOf = conn.dueTenants as unknown as { bulkWrite: (ops: unknown[]) => Promise<unknown> };
    const write = tenantsOf.bulkWrite;
    let release = () => {};
    const wait = new Promise<void>((resolve) => (release = resolve));
    tenantsOf.bulkWrite = async (ops) => (await wait, write(ops));
    await noteDue(conn, [{ orgId: 'org_a', env: 'live', endpointId: 'ep_a', month: MONTH, dueAt: 5 }], { tenantsSoon: true });
    const swept = dueDeliveries(conn, 10, 10, 10);
    // Without the wait the sweep would read the tenant's bound now (100: not yet due) and list nothing.
    await new Promise(setImmediate);
    release();
    expect((await swept).map((d) => d.id)).toEqual(['dlv_new']);
  });

  it('a sweep waits at most 1,000 ms for a tenants’ write that hangs, each stalled write gets one beside it, and with 4 hung none waits', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const { conn } = store([{ id: 'ep_a', orgId: 'org_a', dueAt: 100 }]);
      let writes = 0;
      // Every socket half open: no write ever answers.
      Object.assign(conn.dueTenants, { bulkWrite: () => (writes++, new Promise(() => {})) });
      await noteDue(conn, [{ orgId: 'org_a', env: 'live', endpointId: 'ep_a', month: MONTH, dueAt: 5 }], { tenantsSoon: true });
      const first = dueDeliveries(conn, 10, 10, 10).then(() => 'done' as const);
      await vi.advanceTimersByTimeAsync(999);
      expect(await byNextTurn(first)).toBe('waiting');
      await vi.advanceTimersByTimeAsync(1);
      expect(await byNextTurn(first)).toBe('done');
      // Each later sweep sends the stalled tenants beside the newest stalled write and waits for it, a second at most.
      for (let write = 2; write <= 4; write++) {
        const sweep = dueDeliveries(conn, 10, 10, 10).then(() => 'done' as const);
        expect(writes).toBe(write);
        expect(await byNextTurn(sweep)).toBe('waiting');
        await vi.advanceTimersByTimeAsync(1_000);
        expect(await byNextTurn(sweep)).toBe('done');
      }
      // Four in flight, all stalled: no fifth, and a sweep goes on at once.
      expect(await byNextTurn(dueDeliveries(conn, 10, 10, 10).then(() => 'done' as const))).toBe('done');
      expect(writes).toBe(4);
    } finally {
      vi.useRealTimers();
    }
  });

  it('the healer’s walk of the entries lowers tenants left above them (a death after a send’s answer), 2,000 entries a pass', async () => {
    expect(HEAL_ENTRIES).toBe(2_000);
    const { conn, tenants, queue } = store([...busyEndpoints(2_001), { id: 'ep_zz_quiet', orgId: 'org_quiet', dueAt: 7 }]);
    // Both tenants' $min lost: their bounds above every entry of theirs.
    for (const t of tenants) t['dueAt'] = DUE_NEVER;
    // An entry with nothing due makes no tenant.
    queue.push({ _id: dueEntryId(MONTH, 'ep_zz_idle'), orgId: 'org_idle', env: 'live', endpointId: 'ep_zz_idle', month: MONTH, dueAt: DUE_NEVER });
    const bound = (org: string) => tenants.find((t) => t['orgId'] === org)?.['dueAt'];
    const next = await healTenantBounds(conn, '');
    expect(next).toBe(dueEntryId(MONTH, 'ep_busy_1999'));
    expect([bound('org_busy'), bound('org_quiet')]).toEqual([1, DUE_NEVER]);
    // The next pass goes on there, to the end: then from the first again.
    expect(await healTenantBounds(conn, next)).toBe('');
    expect([bound('org_busy'), bound('org_quiet'), bound('org_idle')]).toEqual([1, 7, undefined]);
  });

  it('a tenant’s bound another sweep raised meanwhile (past an entry this one moved back): this sweep’s settle brings it down', async () => {
    const { conn, tenants, deliveries } = store(busyEndpoints(3));
    const now = 10_000;
    const endpointsRead = conn.endpoints as unknown as { find: (...args: unknown[]) => unknown };
    const find = endpointsRead.find;
    endpointsRead.find = (...args: unknown[]) => {
      // Another dispatcher's sweep settled the tenant while this one had ep_busy_0000's entry taken (its bound 10 s
      // ahead): that sweep's lowest entry read was this one's, taken.
      const t = tenants.find((d) => d['_id'] === 'org_busy/live')!;
      t['dueAt'] = now + 10_000;
      return find(...args);
    };
    // This sweep hands ep_busy_0000's delivery out; it is not claimed, so its entry goes back to its due time, 1.
    expect((await dueDeliveries(conn, now, 1, 1, 1)).map((d) => d.id)).toEqual(['dlv_ep_busy_0000']);
    expect(deliveries[0]!['dueAt']).toBe(1);
    expect(tenants.find((t) => t['_id'] === 'org_busy/live')?.['dueAt']).toBe(1);
  });

  it('a retry noted while a sweep raises its tenant’s bound (later than the bound, so its own $min lowered nothing): the bound ends at it', async () => {
    const { conn, tenants, deliveries, queue } = store(busyEndpoints(1));
    const now = 10_000;
    // The one delivery leased since its entry's bound was set: the sweep moves that entry to the lease's end, and would
    // raise the tenant there.
    deliveries[0]!['dueAt'] = now + 17_000;
    // The settle's first read of the lowest entry (after the batch's): a retry of another endpoint is noted after it.
    const retry = afterEntryRead(conn, 2, [{ orgId: 'org_busy', env: 'live', endpointId: 'ep_retry', month: MONTH, dueAt: now + 10_000 }]);
    expect(await dueDeliveries(conn, now, 1, 1, 1)).toEqual([]);
    expect(retry.noted).toBeDefined();
    expect(queue.map((e) => [e['endpointId'], e['dueAt']])).toEqual([
      ['ep_busy_0000', now + 17_000],
      ['ep_retry', now + 10_000],
    ]);
    expect(tenants.find((t) => t['_id'] === 'org_busy/live')?.['dueAt']).toBe(now + 10_000);
  });

  it('a tenant none of whose entries is left loses its bound; a note after makes it again', async () => {
    const { conn, tenants, queue, eps } = store(busyEndpoints(1));
    // Its endpoint deleted, nothing of it left: the sweep deletes the entry (nextBound: gone), then the tenant.
    eps.splice(0, 1);
    const deliveries = conn.bucket('202612').deliveries as unknown as { find: (...args: unknown[]) => { limit: (n: number) => unknown } };
    deliveries.find = () => ({ limit: () => ({ toArray: async () => [] }) });
    expect(await dueDeliveries(conn, 10_000, 1, 1, 1)).toEqual([]);
    expect(queue).toEqual([]);
    expect(tenants).toEqual([]);
    await noteDue(conn, [{ orgId: 'org_busy', env: 'live', endpointId: 'ep_next', month: MONTH, dueAt: 5 }]);
    expect(tenants.map((t) => [t['_id'], t['dueAt']])).toEqual([['org_busy/live', 5]]);
  });

  it('1,000 tenants of one endpoint due each, limit 512 and a share of 128 + 7: the call lists 512 of them, one each', async () => {
    const many = Array.from({ length: 1_000 }, (_, i) => ({
      id: `ep_${String(i).padStart(4, '0')}`,
      orgId: `org_${String(i).padStart(4, '0')}`,
      dueAt: 1 + i,
    }));
    const { conn, counts } = store(many);
    const listed = await dueDeliveries(conn, 10_000, 512, 80, 128 + 7);
    expect(listed.map((d) => d.id)).toEqual(many.slice(0, 512).map((e) => `dlv_${e.id}`));
    // Pages of 64 tenants (16 at most for 512) until 512 are found; each tenant's one entry read, not a batch of 64 charged.
    expect(counts.queueRead).toBeLessThanOrEqual(9 * 64 * 2 + 9 * 64);
  });

  it('64 tenants of 64 endpoints due each, limit 64: 64 entries taken, not a batch of 64 of each (4,096)', async () => {
    const many = Array.from({ length: 64 * 64 }, (_, i) => ({
      id: `ep_${String(i).padStart(4, '0')}`,
      orgId: `org_${String(i % 64).padStart(2, '0')}`,
      dueAt: 1 + i,
    }));
    const { conn, counts } = store(many);
    const listed = await dueDeliveries(conn, 10_000, 64, 80, 128 + 7);
    // The 64 oldest: the first endpoint of each tenant (ids 0–63 have the lowest bounds).
    expect(listed.map((d) => d.id)).toEqual(many.slice(0, 64).map((e) => `dlv_${e.id}`));
    expect(counts.writes).toBe(64 * 2);
    // Each tenant's first batch its part of the room (1) and 7 more: the page, 64 × 8 entries, and 64 lowest entries read
    // to settle (not 64 × 64 entries).
    expect(counts.queueRead).toBe(64 + 64 * 8 + 64);
  });

  it('an entry whose take moved its bound to a time still due is not taken again by its tenant’s next batch (a delivery listed once)', async () => {
    const { conn, deliveries, queue } = store(busyEndpoints(70));
    // ep_busy_0000's bound is 1, its delivery due at 500 (a release moved it): its take moves the bound to 500, past the batch's cursor.
    deliveries[0]!['dueAt'] = 500;
    expect(queue[0]!['dueAt']).toBe(1);
    const listed = await dueDeliveries(conn, 10_000, 200, 2, 200);
    expect(listed).toHaveLength(70);
    expect(new Set(listed.map((d) => d.id)).size).toBe(70);
  });

  it('a tenant whose one endpoint gives more than its share of 1: the room counts what is kept, and the tenant on the next page is listed', async () => {
    // 63 skipped tenants (their share full at the dispatcher) and A fill the first page of 64 tenants; B is on the second.
    const skipped = Array.from({ length: 63 }, (_, i) => ({
      id: `ep_s${String(i).padStart(2, '0')}`,
      orgId: `org_s${String(i).padStart(2, '0')}`,
      dueAt: 10 + i,
    }));
    const { conn, deliveries } = store([{ id: 'ep_a', orgId: 'org_a', dueAt: 1 }, ...skipped, { id: 'ep_b', orgId: 'org_b', dueAt: 1_000 }]);
    // A's one endpoint has 5 deliveries due (perEndpoint 5), its tenant a share of 1; the limit is 4.
    for (let i = 1; i < 5; i++) {
      deliveries.push({ _id: `dlv_ep_a_${i}`, endpointId: 'ep_a', orgId: 'org_a', env: 'live', status: 'pending', held: false, laneWait: false, dueAt: 1 + i });
    }
    const skip = skipped.map((e) => ({ orgId: e.orgId as never, env: 'live' as const }));
    expect((await dueDeliveries(conn, 10_000, 4, 5, 1, skip)).map((d) => d.id)).toEqual(['dlv_ep_a', 'dlv_ep_b']);
  });

  it('more tenants skipped (held for an overload) than its pages would read: a page more for each 64 passed over, and the one behind is listed', async () => {
    // A limit of 10 reads ⌈10 / 64⌉ + 8 = 9 pages of 64 tenants; 9 × 64 skipped tenants are due before B.
    const skipped = Array.from({ length: 9 * 64 }, (_, i) => {
      const n = String(i).padStart(3, '0');
      return { id: `ep_s${n}`, orgId: `org_s${n}`, dueAt: 10 + i };
    });
    const { conn } = store([...skipped, { id: 'ep_b', orgId: 'org_b', dueAt: 10_000 }]);
    const skip = skipped.map((e) => ({ orgId: e.orgId as never, env: 'live' as const }));
    expect((await dueDeliveries(conn, 20_000, 10, 1, 10, skip)).map((d) => d.id)).toEqual(['dlv_ep_b']);
  });

  it('two dispatchers sweeping one tenant at once both list its deliveries, none twice', async () => {
    const { conn } = store(busyEndpoints(200));
    const [a, b] = await Promise.all([dueDeliveries(conn, 10_000, 100, 1, 100), dueDeliveries(conn, 10_000, 100, 1, 100)]);
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    expect(new Set([...a, ...b].map((d) => d.id)).size).toBe(a.length + b.length);
    expect(a.length + b.length).toBeGreaterThanOrEqual(100);
  });

  it('the healer lowers a tenant’s bound to its entries’ though no entry moves (a process died between the two $min)', async () => {
    const { conn, tenants } = store(busyEndpoints(2));
    // The entries were lowered (to 1 and 2); their tenant's $min never ran.
    tenants[0]!['dueAt'] = 50_000;
    // This month's collections and next month's (empty) exist: the healer's own check makes none.
    const bucket = conn.bucket(MONTH);
    const empty = { deliveries: collection([], { writes: 0 }) };
    Object.assign(conn, {
      endpointWalks: collection([], { writes: 0 }),
      months: async () => [MONTH, '202701'],
      bucket: (month: string) => (month === MONTH ? bucket : empty),
    });
    await healDueQueue(conn, Date.UTC(2026, 11, 10), '');
    expect(tenants.map((t) => [t['_id'], t['dueAt']])).toEqual([['org_busy/live', 1]]);
  });

  it('70 tenants at one bound (a page holds 64): the next page reads the rest of that bound by id, then later bounds', async () => {
    const many = Array.from({ length: 70 }, (_, i) => ({ id: `ep_${String(i).padStart(2, '0')}`, orgId: `org_${String(i).padStart(2, '0')}`, dueAt: 5 }));
    const { conn } = store([...many, { id: 'ep_late', orgId: 'org_late', dueAt: 6 }]);
    const listed = await dueDeliveries(conn, 10_000, 71, 1, 1);
    expect(listed.map((d) => d.id)).toEqual([...many.map((e) => `dlv_${e.id}`), 'dlv_ep_late']);
  });

  it('70 tenants of one endpoint each, limit 70: two pages of tenants in bound order, each tenant’s one', async () => {
    const many = Array.from({ length: 70 }, (_, i) => ({ id: `ep_${String(i).padStart(2, '0')}`, orgId: `org_${String(i).padStart(2, '0')}`, dueAt: 100 - i }));
    const { conn } = store(many);
    const listed = await dueDeliveries(conn, 10_000, 70, 1, 1);
    expect(listed.map((d) => d.id)).toEqual([...many].reverse().map((e) => `dlv_${e.id}`));
    // A limit of 3: the 3 oldest, though the first page holds 64 tenants.
    expect((await dueDeliveries(conn, 10_001, 3, 1, 1)).map((d) => d.id)).toEqual(['dlv_ep_69', 'dlv_ep_68', 'dlv_ep_67']);
  });
});

describe('a stale bound moved on without a take (MongoDB, stand-in collections)', () => {
  it('an entry whose delivery was claimed since its send: one write moves it to the lease’s end, none takes it', async () => {
    const { conn, counts, queue, tenants, deliveries } = store([{ id: 'ep_1', orgId: 'org_1', dueAt: 5_000 }]);
    const now = 10_000;
    // The wake-up's dispatcher claimed it: its dueAt is the lease's end; the entry still says 5,000 (the send's $min).
    deliveries[0]!['dueAt'] = now + 30_000;
    expect(await dueDeliveries(conn, now, 10, 5)).toEqual([]);
    expect(queue[0]).toMatchObject({ dueAt: now + 30_000, seq: 1 });
    // The entry's one move (a take and a move were two), and its tenant raised to it.
    expect(counts.writes - counts.tenantWrites).toBe(1);
    expect(tenants[0]!['dueAt']).toBe(now + 30_000);
    // Sent and done before the lease ended: the next sweep there moves it to never, again one write.
    deliveries.length = 0;
    const before = counts.writes - counts.tenantWrites;
    expect(await dueDeliveries(conn, now + 30_000, 10, 5)).toEqual([]);
    expect(queue[0]).toMatchObject({ dueAt: DUE_NEVER, seq: 2 });
    expect(counts.writes - counts.tenantWrites - before).toBe(1);
  });

  it('a delivery made due between the read and the move (its $min lowering nothing) is found by the read after the move', async () => {
    const { conn, queue, deliveries } = store([{ id: 'ep_1', orgId: 'org_1', dueAt: 5_000 }]);
    const now = 10_000;
    deliveries[0]!['dueAt'] = now + 30_000;
    afterDeliveryRead(conn, 1, async () => {
      // After the sweep's read, before its move: a retry due at 8,000 committed and noted ($min of 5,000: no write).
      deliveries.push({ ...deliveries[0]!, _id: 'dlv_retry', dueAt: 8_000 });
      await noteDue(conn, [{ orgId: 'org_1', env: 'live', endpointId: 'ep_1', month: MONTH, dueAt: 8_000 }]);
      expect(queue[0]!['dueAt']).toBe(5_000);
    });
    // This sweep read none due; its move (to the lease's end) is followed by the read that finds the retry.
    expect(await dueDeliveries(conn, now, 10, 5)).toEqual([]);
    expect(queue[0]!['dueAt']).toBe(8_000);
    expect((await dueDeliveries(conn, now + 1, 10, 5)).map((d) => d.id)).toEqual(['dlv_retry']);
  });

  /** Runs `meanwhile` once the sweep's `n`th read of deliveries has answered, before the sweep sees the answer. */
  function afterDeliveryRead(conn: MongoConnection, n: number, meanwhile: () => Promise<void> | void) {
    afterNthFind(conn.bucket(MONTH).deliveries, n, meanwhile);
  }

  it('a sweep that read a due bound before another took the entry and moved it back to that value does not take it: the count differs', async () => {
    const { conn, queue } = store([{ id: 'ep_1', orgId: 'org_1', dueAt: 5_000 }]);
    // After this sweep's first read: another sweep took the entry and moved it back to 5,000 (its delivery handed out,
    // not claimed yet), counting its two writes.
    afterDeliveryRead(conn, 1, () => {
      queue[0]!['seq'] = 2;
    });
    expect(await dueDeliveries(conn, 10_000, 10, 5)).toEqual([]);
    expect(queue[0]).toMatchObject({ dueAt: 5_000, seq: 2 });
  });

  it('a sweep’s move after its take fails once another sweep of its millisecond took the entry since (the same held value, a count more)', async () => {
    const { conn, queue } = store([{ id: 'ep_1', orgId: 'org_1', dueAt: 5_000 }]);
    let taken: Record<string, unknown> = {};
    // After this sweep's take and its read again: a note lowered the bound and another sweep took it at the same value.
    afterDeliveryRead(conn, 2, () => {
      queue[0]!['seq'] = 2;
      taken = { ...queue[0]! };
    });
    await dueDeliveries(conn, 10_000, 10, 5);
    expect(taken).toMatchObject({ seq: 2 });
    // That sweep's take stands: this one's move, by its own count (1), matched nothing.
    expect(queue[0]).toMatchObject({ dueAt: taken['dueAt'], seq: 2 });
  });

  it('an entry already counted (seq 4): its take and its move each count one, so it ends at 6 with its delivery listed', async () => {
    const { conn, queue } = store([{ id: 'ep_1', orgId: 'org_1', dueAt: 5_000 }]);
    queue[0]!['seq'] = 4;
    expect((await dueDeliveries(conn, 10_000, 10, 5)).map((d) => d.id)).toEqual(['dlv_ep_1']);
    expect(queue[0]).toMatchObject({ seq: 6 });
  });

  it('a stale bound another sweep took and moved back since this one read it is left as that sweep left it', async () => {
    const { conn, queue, deliveries } = store([{ id: 'ep_1', orgId: 'org_1', dueAt: 5_000 }]);
    deliveries[0]!['dueAt'] = 40_000;
    afterDeliveryRead(conn, 1, () => {
      queue[0]!['seq'] = 2;
    });
    expect(await dueDeliveries(conn, 10_000, 10, 5)).toEqual([]);
    // Not this sweep's: no move to the lease's end (and no read after it).
    expect(queue[0]).toMatchObject({ dueAt: 5_000, seq: 2 });
  });

  it('a stale entry another sweep took meanwhile is that sweep’s: no second round of its tenant’s entries for it', async () => {
    const { conn, queue, deliveries } = store([
      { id: 'ep_1', orgId: 'org_1', dueAt: 1_000 },
      { id: 'ep_2', orgId: 'org_1', dueAt: 2_000 },
    ]);
    // ep_1's delivery claimed since its bound was set: stale. A share of 1 takes it alone in the first round.
    deliveries[0]!['dueAt'] = 40_000;
    afterDeliveryRead(conn, 1, () => {
      queue[0]!['seq'] = 2;
    });
    expect(await dueDeliveries(conn, 10_000, 10, 5, 1)).toEqual([]);
    // ep_2 untouched: its entry is another sweep's tenant round, not this one's.
    expect(queue[1]).toMatchObject({ dueAt: 2_000 });
    expect(queue[1]!['seq']).toBeUndefined();
  });

  it('reads one delivery of a stale entry before its move and one after, and perEndpoint + 1 more of a taken one', async () => {
    // 50 deliveries, all claimed since (leased to 40,000 and on).
    const leased = oneEndpoint(5_000, (k) => 40_000 + k);
    expect(await dueDeliveries(leased.conn, 10_000, 10, 5)).toEqual([]);
    expect(leased.counts.deliveriesRead).toBe(1 + 1);
    const due = oneEndpoint(5_000, (k) => 5_000 + k);
    expect(await dueDeliveries(due.conn, 10_000, 10, 5)).toHaveLength(5);
    // The first read, then perEndpoint + 1 once taken; the read after the move (its bound back at a time still due) finds it as moved.
    expect(due.counts.deliveriesRead).toBe(1 + 6 + 1);
  });

  it('a resume committed between the sweep’s status read and its move of a stale bound: the status read again lowers it back', async () => {
    const { conn, queue, deliveries, eps } = store([{ id: 'ep_1', orgId: 'org_1', dueAt: 5_000 }]);
    const now = 10_000;
    eps[0]!['status'] = 'paused';
    // Its first delivery due 2 s from now: stale at this sweep (nothing due), and its endpoint read paused.
    deliveries[0]!['dueAt'] = now + 2_000;
    const endpoints = conn.endpoints as unknown as { find: (...args: unknown[]) => { toArray: () => Promise<Doc[]> } };
    const find = endpoints.find;
    let reads = 0;
    endpoints.find = (...args: unknown[]) => {
      const cursor = find(...args);
      if (++reads !== 1) return cursor;
      return {
        toArray: async () => {
          const found = await cursor.toArray();
          // The resume commits, and its noteDue meets the bound this sweep read (5,000): it lowers nothing.
          eps[0]!['status'] = 'active';
          await noteDue(conn, [{ orgId: 'org_1', env: 'live', endpointId: 'ep_1', month: MONTH, dueAt: now + 2_000 }]);
          return found;
        },
      };
    };
    expect(await dueDeliveries(conn, now, 10, 5)).toEqual([]);
    // Not the paused endpoint's look-again bound (now + 5 s): its first delivery's time.
    expect(queue[0]!['dueAt']).toBe(now + 2_000);
  });
});
