// The metrics' backlog read and the capped counts beneath it, without a server: which process
// counts, and what each operation is asked (where it reads, how long it may take, how many keys
// it may count).
import { describe, expect, it } from 'vitest';
import { BACKLOG_COUNT_CAP } from '../ports/delivery-port.ts';
import type { MongoConnection } from './connection.ts';
import { MongoServerError } from 'mongodb';
import {
  BACKLOG_COUNT_EVERY_MS,
  BACKLOG_COUNT_LEASE,
  BACKLOG_READ_MS,
  BACKLOG_READ_PREFERENCE,
  BACKLOG_SNAPSHOT_ID,
  BACKLOG_STALE_MS,
  backlogReadOptions,
} from './backlog-read.ts';
import { MongoDeliveryRepo } from './delivery-repo.ts';
import { countAcrossMonths } from './endpoint-stats-repo.ts';
import { ENDPOINT_COUNT_CAP } from './plans/endpoints.ts';
import type { Month } from './months.ts';

type Call = { op: 'count' | 'findOne'; month: Month; options: Record<string, unknown> };

/** `meta` and `job_leases` in memory: the shared count's document and the leases, as the server would answer. */
function sharedState() {
  const meta = new Map<string, Record<string, unknown>>();
  const leases = new Map<string, { holder: string; leaseUntil: number }>();
  const log: string[] = [];
  return {
    meta,
    leases,
    log,
    collections: {
      meta: {
        findOne: async (filter: { _id: string }, options: Record<string, unknown>) => {
          log.push(`read ${options.comment}`);
          return meta.get(filter._id) ?? null;
        },
        updateOne: async (filter: { _id: string }, update: { $set: Record<string, unknown> }, options: Record<string, unknown>) => {
          log.push(`write ${options.comment}`);
          meta.set(filter._id, { _id: filter._id, ...update.$set });
        },
      },
      jobLeases: {
        // MongoJobLeaseRepo.take's conditional upsert: matched (free, the holder's, or held too far ahead), or a duplicate _id.
        findOneAndUpdate: async (
          filter: { _id: string; $or: [{ leaseUntil: { $lte: number } }, { holder: string }, { leaseUntil: { $gt: number } }] },
          update: { $set: { holder: string; leaseUntil: number } },
        ) => {
          const now = filter.$or[0].leaseUntil.$lte;
          const held = leases.get(filter._id);
          const free = held === undefined || held.leaseUntil <= now || held.holder === filter.$or[1].holder || held.leaseUntil > filter.$or[2].leaseUntil.$gt;
          log.push(`take ${update.$set.holder}: ${free ? 'taken' : 'held'}`);
          if (!free)
            throw new MongoServerError({
              code: 11000,
              errmsg: `E11000 duplicate key error collection: job_leases index: _id_ dup key: { _id: "${filter._id}" }`,
            });
          leases.set(filter._id, update.$set);
          return update.$set;
        },
      },
    },
  };
}

/** A connection of two months whose deliveries count `counts[month]` (up to the limit asked) and have no due head. */
function connection(counts: Record<string, number>, firstCountMs = 0, shared = sharedState()): { conn: MongoConnection; calls: Call[] } {
  const calls: Call[] = [];
  let first = true;
  const months = Object.keys(counts) as Month[];
  const conn = {
    ...shared.collections,
    months: async () => months,
    bucket: (month: Month) => ({
      deliveries: {
        countDocuments: async (_filter: unknown, options: Record<string, unknown>) => {
          calls.push({ op: 'count', month, options });
          if (first && firstCountMs > 0) await new Promise((resolve) => setTimeout(resolve, firstCountMs));
          first = false;
          return Math.min(counts[month]!, options.limit as number);
        },
        findOne: async (_filter: unknown, options: Record<string, unknown>) => {
          calls.push({ op: 'findOne', month, options });
          return { dueAt: 1_000 + Number(month) };
        },
      },
    }),
  } as unknown as MongoConnection;
  return { conn, calls };
}

describe('the shared backlog count (one process counts, the others read it)', () => {
  const T0 = 2_000_000;

  it(`counts when no count is fresh and it takes the lease, and shares it; one under ${BACKLOG_COUNT_EVERY_MS} ms old is read, not made`, async () => {
    expect([BACKLOG_COUNT_EVERY_MS, BACKLOG_STALE_MS]).toEqual([15_000, 60_000]);
    const shared = sharedState();
    const a = connection({ '202612': 4 }, 0, shared);
    const b = connection({ '202612': 4 }, 0, shared);
    const first = await new MongoDeliveryRepo(a.conn).backlog(T0);
    expect(first).toEqual({ due: 4, retrying: 4, oldestDueAt: 1_000 + 202612, countedAt: T0 });
    expect(shared.meta.get(BACKLOG_SNAPSHOT_ID)).toMatchObject({ due: 4, countedAt: T0 });
    // Another process, 14.999 s on: one point read, no count.
    expect(await new MongoDeliveryRepo(b.conn).backlog(T0 + BACKLOG_COUNT_EVERY_MS - 1)).toEqual(first);
    expect(b.calls).toEqual([]);
    expect(shared.log).toEqual([
      'read deliveries.backlogSnapshot',
      `take ${[...shared.leases.values()][0]!.holder}: taken`,
      'write deliveries.backlogSnapshot',
      'read deliveries.backlogSnapshot',
    ]);
  });

  it('while another process holds the count, shows the last count until it is stale, then fails; with none yet, fails', async () => {
    const shared = sharedState();
    const repo = new MongoDeliveryRepo(connection({ '202612': 4 }, 0, shared).conn);
    // Another process took the count's lease a moment before `at`.
    const atOtherCounting = (at: number) => {
      shared.leases.set(BACKLOG_COUNT_LEASE, { holder: 'other', leaseUntil: at + 10_000 });
      return repo.backlog(at);
    };
    await expect(atOtherCounting(T0)).rejects.toThrow('the backlog has not been counted yet (another process holds the count)');
    shared.meta.set(BACKLOG_SNAPSHOT_ID, { _id: BACKLOG_SNAPSHOT_ID, due: 9, oldestDueAt: null, retrying: 1, countedAt: T0 - 20_000 });
    expect(await atOtherCounting(T0)).toEqual({ due: 9, oldestDueAt: null, retrying: 1, countedAt: T0 - 20_000 });
    expect(await atOtherCounting(T0 - 20_000 + BACKLOG_STALE_MS - 1)).toMatchObject({ due: 9 });
    await expect(atOtherCounting(T0 - 20_000 + BACKLOG_STALE_MS)).rejects.toThrow('the backlog was last counted 60 s ago');
    // A count from the future (a clock stepped back) is no fresh count either.
    await expect(atOtherCounting(T0 - 30_000)).rejects.toThrow('the backlog was last counted -10 s ago');
  });

  it('counts again once the shared count is due, and when the count it finds is from the future and the lease is free', async () => {
    const shared = sharedState();
    const a = connection({ '202612': 4 }, 0, shared);
    const repo = new MongoDeliveryRepo(a.conn);
    await repo.backlog(T0);
    expect((await repo.backlog(T0 + BACKLOG_COUNT_EVERY_MS)).countedAt).toBe(T0 + BACKLOG_COUNT_EVERY_MS);
    expect((await repo.backlog(T0)).countedAt).toBe(T0); // stepped back: its own lease, counted again
    expect(a.calls.filter((c) => c.op === 'count')).toHaveLength(6);
  });
});

describe('the MongoDB backlog read (the metrics)', () => {
  it(`reads a secondary when one is up, every operation within what is left of ${BACKLOG_READ_MS} ms`, async () => {
    expect(BACKLOG_READ_MS).toBe(5_000);
    const { conn, calls } = connection({ '202611': 3, '202612': 4 });
    const backlog = await new MongoDeliveryRepo(conn).backlog(2_000_000);
    // Both counts over both months (each 3 + 4), and the least of the months' heads.
    expect(backlog).toEqual({ due: 7, retrying: 7, oldestDueAt: 1_000 + 202611, countedAt: 2_000_000 });
    expect(calls).toHaveLength(6);
    for (const { options } of calls) {
      expect(options.readPreference).toBe(BACKLOG_READ_PREFERENCE);
      expect(options.maxTimeMS).toBeGreaterThan(0);
      expect(options.maxTimeMS).toBeLessThanOrEqual(BACKLOG_READ_MS);
    }
    // Counts name their index and are capped; the newest month is counted first.
    const counts = calls.filter((c) => c.op === 'count');
    expect(counts.map((c) => c.options.comment)).toEqual(['deliveries.dueCount', 'deliveries.retrying', 'deliveries.dueCount', 'deliveries.retrying']);
    expect(counts.every((c) => typeof c.options.hint === 'object')).toBe(true);
    expect(counts.map((c) => [c.month, c.options.limit])).toEqual([
      ['202612', BACKLOG_COUNT_CAP],
      ['202612', BACKLOG_COUNT_CAP],
      ['202611', BACKLOG_COUNT_CAP - 4],
      ['202611', BACKLOG_COUNT_CAP - 4],
    ]);
  });

  it('gives each operation the time left to one deadline, and none once it has passed (0 would mean no limit)', () => {
    expect(BACKLOG_READ_PREFERENCE.mode).toBe('secondaryPreferred');
    expect(BACKLOG_READ_PREFERENCE.maxStalenessSeconds).toBe(90);
    const now = performance.now();
    const read = backlogReadOptions(now + 5_000);
    expect(read().maxTimeMS).toBeGreaterThan(4_900);
    expect(read().maxTimeMS).toBeLessThanOrEqual(5_000);
    expect(() => backlogReadOptions(now - 1)()).toThrow('the backlog read ran past its 5000 ms');
  });

  it('shares one deadline among the read’s operations: a slow first one leaves the later ones less', async () => {
    // The newest month's first count takes 300 ms: every operation sent after it has that much less.
    const { conn, calls } = connection({ '202611': 3, '202612': 4 }, 300);
    await new MongoDeliveryRepo(conn).backlog(2_000_000);
    const later = calls.filter((c) => c.op === 'count' && c.month === '202611');
    expect(later).toHaveLength(2);
    for (const c of later) expect(c.options.maxTimeMS).toBeLessThanOrEqual(BACKLOG_READ_MS - 250);
  });
});

describe("the endpoint page's retrying_count on MongoDB", () => {
  it(`counts up to ENDPOINT_COUNT_CAP (${ENDPOINT_COUNT_CAP}) on a request, not the metrics' ${BACKLOG_COUNT_CAP}`, async () => {
    expect(ENDPOINT_COUNT_CAP).toBe(10_000);
    const { conn, calls } = connection({ '202611': 20_000, '202612': 9_999 });
    expect(await new MongoDeliveryRepo(conn).retryingCount({ orgId: 'org_1', env: 'live' } as never, 'ep_1' as never)).toBe(10_000);
    expect(calls.map((c) => [c.month, c.options.limit, c.options.comment])).toEqual([
      ['202612', 10_000, 'deliveries.retryingOfEndpoint'],
      ['202611', 1, 'deliveries.retryingOfEndpoint'],
    ]);
    // A request reads the primary (a page shows what the API just wrote).
    expect(calls.every((c) => c.options.readPreference === undefined)).toBe(true);
  });
});

describe('countAcrossMonths', () => {
  const months = ['202610', '202611', '202612'] as Month[];

  it('counts the newest month first, each month limited to what the cap leaves', async () => {
    const asked: [Month, number][] = [];
    const total = await countAcrossMonths(months, 10, async (month, limit) => {
      asked.push([month, limit]);
      return Math.min(limit, 3);
    });
    expect(total).toBe(9);
    expect(asked).toEqual([
      ['202612', 10],
      ['202611', 7],
      ['202610', 4],
    ]);
  });

  it('stops once the cap is reached: the months before are not counted, and the sum is the cap', async () => {
    const asked: Month[] = [];
    const total = await countAcrossMonths(months, 10, async (month, limit) => {
      asked.push(month);
      return Math.min(limit, 6);
    });
    expect(total).toBe(10);
    expect(asked).toEqual(['202612', '202611']);
    // One under the cap reads on to the oldest month.
    const under = await countAcrossMonths(months, 10, async (month, limit) => Math.min(limit, month === '202612' ? 9 : 0));
    expect(under).toBe(9);
  });

  it('counts nothing over no months, and passes a count’s failure on', async () => {
    expect(await countAcrossMonths([], 10, async () => 1)).toBe(0);
    await expect(
      countAcrossMonths(months, 10, async () => {
        throw new Error('operation exceeded time limit');
      }),
    ).rejects.toThrow('operation exceeded time limit');
  });
});
