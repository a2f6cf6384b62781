// A sole dispatcher's start frees the leases its predecessor left, without a server: a stand-in
// month whose due index holds 1,000 retries scheduled in the horizon ahead of 3 leases, 1,003
// entries in all, and counts what each find returns.
import { describe, expect, it } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { MongoDeliveryRepo } from './delivery-repo.ts';

const NOW = Date.UTC(2026, 11, 2, 12);

interface Entry {
  _id: string;
  orgId: string;
  env: 'live';
  endpointId: string;
  dueAt: number;
  nextAttemptAt: number | null;
  leaseUntil: number | null;
}

function month(entries: Entry[]) {
  const seen = { finds: 0, returned: 0, filters: [] as unknown[], updatedIds: [] as string[], notes: 0 };
  const deliveries = {
    find: (filter: { dueAt: { $gt?: number; $gte?: number; $lte: number } }) => {
      seen.finds++;
      seen.filters.push(filter);
      return {
        limit: (n: number) => ({
          toArray: async () => {
            const page = entries
              .filter((e) => e.dueAt > (filter.dueAt.$gt ?? -Infinity) && e.dueAt >= (filter.dueAt.$gte ?? -Infinity) && e.dueAt <= filter.dueAt.$lte)
              .sort((a, b) => a.dueAt - b.dueAt || (a._id < b._id ? -1 : 1))
              .slice(0, n);
            seen.returned += page.length;
            return page;
          },
        }),
      };
    },
    updateMany: async (filter: { _id: { $in: string[] }; leaseUntil: { $gt: number } }) => {
      const hit = entries.filter((e) => filter._id.$in.includes(e._id) && (e.leaseUntil ?? 0) > filter.leaseUntil.$gt);
      seen.updatedIds.push(...hit.map((e) => e._id));
      return { modifiedCount: hit.length };
    },
  };
  const conn = {
    months: async () => ['202612'],
    bucket: () => ({ month: '202612', deliveries }),
    dueEndpoints: {
      bulkWrite: async (ops: unknown[]) => {
        seen.notes += ops.length;
        return {};
      },
    },
  } as unknown as MongoConnection;
  return { conn, seen };
}

/** A retry due at `dueAt` (no lease): `n` of them, ids `dlv_<tag>0000`… in due order. */
const retries = (tag: string, n: number, dueAt: (i: number) => number): Entry[] =>
  Array.from({ length: n }, (_, i) => ({
    _id: `dlv_${tag}${String(i).padStart(4, '0')}`,
    orgId: 'org_1',
    env: 'live',
    endpointId: `ep_${tag}`,
    dueAt: dueAt(i),
    nextAttemptAt: dueAt(i),
    leaseUntil: null,
  }));

/** A delivery leased until `until` (its dueAt), whose retry was due before now. */
const lease = (id: string, until: number): Entry => ({
  _id: id,
  orgId: 'org_1',
  env: 'live',
  endpointId: 'ep_leased',
  dueAt: until,
  nextAttemptAt: NOW - 5_000,
  leaseUntil: until,
});

describe('releasing the leases left at a sole dispatcher’s start (MongoDB)', () => {
  it('reads the due index a batch at a time, leases or retries alike, and frees only the leased', async () => {
    const leases = [1, 2, 3].map((i) => lease(`dlv_l${i}`, NOW + 60_000 + i));
    const { conn, seen } = month([...retries('r', 1_000, (i) => NOW + 1_000 + i), ...leases]);
    const released = await new MongoDeliveryRepo(conn).releaseAll(NOW);
    expect(released).toBe(3);
    expect(seen.updatedIds.sort()).toEqual(['dlv_l1', 'dlv_l2', 'dlv_l3']);
    // Two finds of at most 1,000 (the second from the first's last millisecond, its one entry there read again): 1,004
    // read, no more.
    expect(seen.finds).toBe(2);
    expect(seen.returned).toBe(1_004);
    // No residual on leaseUntil: it would have walked past every retry to fill a batch with leases.
    for (const filter of seen.filters) expect(filter).not.toHaveProperty('leaseUntil');
    // Only the released are told to the due queue (one endpoint's entry).
    expect(seen.notes).toBe(1);
  });

  it('frees a lease ending in the same millisecond as a batch’s last entry (a cursor on the millisecond alone passed it over)', async () => {
    const at = NOW + 30_000;
    // The first batch's 1,000 entries end with a retry due at `at`; the lease, due then too, sorts after it by id.
    const { conn, seen } = month([...retries('a', 1_000, (i) => at - 999 + i), lease('dlv_z', at)]);
    expect(await new MongoDeliveryRepo(conn).releaseAll(NOW)).toBe(1);
    expect(seen.updatedIds).toEqual(['dlv_z']);
  });

  it('goes on past a millisecond holding a whole batch (a Retry-After hold puts an endpoint’s deliveries on one): a later lease is freed', async () => {
    const at = NOW + 30_000;
    const { conn, seen } = month([...retries('h', 1_200, () => at), lease('dlv_l', at + 1)]);
    expect(await new MongoDeliveryRepo(conn).releaseAll(NOW)).toBe(1);
    expect(seen.updatedIds).toEqual(['dlv_l']);
    // The millisecond's first 1,000 read twice (the second time nothing new: on past it), then the lease.
    expect(seen.finds).toBe(3);
  });
});
