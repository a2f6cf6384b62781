// The metrics' backlog read and the capped counts beneath it, without a server: which process
// counts, and what each operation is asked (where it reads, how long it may take, how many keys
// it may count).
import { describe, expect, it, vi } from 'vitest';
import { BACKLOG_COUNT_CAP, StaleBacklogError } from '../ports/delivery-port.ts';
import type { MongoConnection } from './connection.ts';
import { MongoServerError, ReadPreference } from 'mongodb';
import {
  BACKLOG_COUNT_EVERY_MS,
  BACKLOG_READ_MS,
  BACKLOG_READ_PREFERENCE,
  BACKLOG_STALE_MS,
  BACKLOG_TAKE_SLACK_MS,
  backlogReadOptions,
} from './backlog-read.ts';
import { MongoDeliveryRepo } from './delivery-repo.ts';
import { countAcrossMonths } from './endpoint-stats-repo.ts';
import { ENDPOINT_COUNT_CAP } from './plans/endpoints.ts';
import type { Month } from './months.ts';

type Call = { op: 'count' | 'findOne'; month: Month; filter: Record<string, any>; options: Record<string, unknown> };

/** `meta` and `job_leases` in memory, answering the shared count's operations as the server would, by `server.now` ($$NOW). */
function sharedState() {
  const server = { now: 5_000_000 };
  const meta = new Map<string, Record<string, unknown>>();
  const leases = new Map<string, { holder: string; leaseUntil: number; seq: number }>();
  const log: string[] = [];
  const duplicate = (id: string) =>
    new MongoServerError({ code: 11000, errmsg: `E11000 duplicate key error collection: x index: _id_ dup key: { _id: "${id}" }` });
  const concern = (o: Record<string, unknown>) => JSON.stringify(o.writeConcern ?? o.readPreference ?? null);
  return {
    server,
    meta,
    leases,
    log,
    collections: {
      jobLeases: {
        insertOne: async (doc: { _id: string; holder: string; leaseUntil: number; seq: number }, o: Record<string, unknown>) => {
          log.push(`make lease ${doc.seq} ${concern(o)}`);
          if (leases.has(doc._id)) throw duplicate(doc._id);
          leases.set(doc._id, { holder: doc.holder, leaseUntil: doc.leaseUntil, seq: doc.seq });
        },
        // The take: matched once the lease has run out, but for a second's slack, by the server's clock.
        findOneAndUpdate: async (filter: Record<string, any>, pipeline: Record<string, any>[], o: Record<string, any>) => {
          expect(filter.$expr).toEqual({ $lte: ['$leaseUntil', { $add: [{ $toLong: '$$NOW' }, BACKLOG_TAKE_SLACK_MS] }] });
          expect(o).toMatchObject({ returnDocument: 'after', projection: { leaseUntil: 1, seq: 1 }, maxTimeMS: 5_000 });
          const set = pipeline[0]!.$set;
          // Held 15 s from the server's now, and numbered on from the document's own seq.
          expect(set.leaseUntil).toEqual({ $add: [{ $toLong: '$$NOW' }, BACKLOG_COUNT_EVERY_MS] });
          expect(set.seq).toEqual({ $add: [{ $ifNull: ['$seq', 0] }, 1] });
          // The holder a literal, never read as a field's path.
          expect(Object.keys(set.holder)).toEqual(['$literal']);
          const holder = set.holder.$literal as string;
          const doc = leases.get(filter._id);
          const free = doc !== undefined && doc.leaseUntil <= server.now + BACKLOG_TAKE_SLACK_MS;
          log.push(`take ${holder} ${concern(o)}: ${free ? 'taken' : 'held'}`);
          if (!free) return null;
          Object.assign(doc, { holder, leaseUntil: server.now + BACKLOG_COUNT_EVERY_MS, seq: doc.seq + 1 });
          return { leaseUntil: doc.leaseUntil, seq: doc.seq };
        },
        // Whether the lease is there, after a take matched nothing.
        findOne: async (filter: { _id: string }, o: Record<string, unknown>) => {
          log.push(`lease there? ${concern(o)}: ${leases.has(filter._id)}`);
          return leases.has(filter._id) ? { _id: filter._id } : null;
        },
        updateOne: async (filter: Record<string, any>, update: Record<string, any>, o: Record<string, unknown>) => {
          const doc = leases.get(filter._id);
          if (update.$max) {
            log.push(`raise seq to ${update.$max.seq}`);
            if (doc) doc.seq = Math.max(doc.seq, update.$max.seq);
            return { matchedCount: doc ? 1 : 0 };
          }
          const mine = doc?.holder === filter.holder && doc?.seq === filter.seq;
          log.push(`release ${concern(o)}: ${mine ? 'released' : 'not held'}`);
          if (mine) doc!.leaseUntil = update.$set.leaseUntil;
          return { matchedCount: mine ? 1 : 0 };
        },
      },
      meta: {
        insertOne: async (doc: { _id: string }, o: Record<string, unknown>) => {
          log.push(`make snapshot ${concern(o)}`);
          if (meta.has(doc._id)) throw duplicate(doc._id);
          meta.set(doc._id, { ...doc });
        },
        // The write: matched only when the document's take number is lower than this count's.
        updateOne: async (filter: Record<string, any>, update: { $set: Record<string, unknown> }, o: Record<string, unknown>) => {
          const seq = filter.$expr.$lt[1] as number;
          const doc = meta.get(filter._id);
          const newer = doc !== undefined && ((doc.seq as number | undefined) ?? 0) < seq;
          log.push(`write ${seq} ${concern(o)}: ${newer ? 'written' : 'dropped'}`);
          if (newer) Object.assign(doc, update.$set);
          return { matchedCount: newer ? 1 : 0 };
        },
        findOne: async (filter: { _id: string }, o: Record<string, any>) => {
          if (o.projection?.ageMs === undefined) return meta.has(filter._id) ? { seq: meta.get(filter._id)!.seq } : null;
          log.push(`read ${o.comment} ${concern(o)}`);
          const doc = meta.get(filter._id);
          if (doc === undefined) return null;
          const countedAt = doc.countedAt as number | undefined;
          return {
            due: doc.due,
            oldestDueAt: doc.oldestDueAt,
            retrying: doc.retrying,
            countedAt,
            ageMs: countedAt === undefined ? null : server.now - countedAt,
          };
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
        countDocuments: async (filter: Record<string, any>, options: Record<string, unknown>) => {
          calls.push({ op: 'count', month, filter, options });
          if (first && firstCountMs > 0) await new Promise((resolve) => setTimeout(resolve, firstCountMs));
          first = false;
          return Math.min(counts[month]!, options.limit as number);
        },
        findOne: async (filter: Record<string, any>, options: Record<string, unknown>) => {
          calls.push({ op: 'findOne', month, filter, options });
          return { dueAt: 1_000 + Number(month) };
        },
      },
    }),
  } as unknown as MongoConnection;
  return { conn, calls };
}

describe('the shared backlog count (one process counts, the others read it)', () => {
  it(`one process counts per ${BACKLOG_COUNT_EVERY_MS} ms of the server's clock, whatever the processes' clocks say; scrapes read it`, async () => {
    expect([BACKLOG_COUNT_EVERY_MS, BACKLOG_STALE_MS, BACKLOG_TAKE_SLACK_MS]).toEqual([15_000, 60_000, 1_000]);
    const shared = sharedState();
    const a = connection({ '202612': 4 }, 0, shared);
    const b = connection({ '202612': 4 }, 0, shared);
    const [repoA, repoB] = [new MongoDeliveryRepo(a.conn), new MongoDeliveryRepo(b.conn)];
    await expect(repoB.backlog(0)).rejects.toThrow('the backlog has not been counted yet');
    expect(await repoA.countBacklog(2_000_000)).toBe(true);
    // Counted as of the server's time at the take, not A's (2,000,000).
    expect(a.calls.find((c) => c.op === 'count')!.filter.dueAt.$lte).toBe(5_000_000);
    // B's clock is an hour ahead: the lease is the server's to time, held 15 s.
    expect(await repoB.countBacklog(2_000_000 + 3_600_000)).toBe(false);
    expect(b.calls).toEqual([]);
    shared.server.now += 10_000;
    expect(await repoB.backlog(0)).toEqual({ due: 4, retrying: 4, oldestDueAt: 1_000 + 202612, countedAt: 5_000_000 });
    // A second before the lease runs out, it may be taken: a tick as long as the lease still counts each time.
    shared.server.now += BACKLOG_COUNT_EVERY_MS - BACKLOG_TAKE_SLACK_MS - 10_000 - 1;
    expect(await repoB.countBacklog(0)).toBe(false);
    shared.server.now += 1;
    expect(await repoB.countBacklog(0)).toBe(true);
    expect(b.calls.filter((c) => c.op === 'count')).toHaveLength(2);
    // The documents are made by insert (no conditional upsert that fails), at each process's first
    // try: B's lease insert, numbered from the count's seq, finds A's there (a duplicate, ignored).
    expect(shared.log.filter((l) => l.startsWith('make'))).toEqual(['make lease 0 {"w":1}', 'make snapshot {"w":1}', 'make lease 1 {"w":1}']);
    // The take and the write need the primary alone; the read takes any member (its age is the server's).
    expect(shared.log.filter((l) => /^(take|write|read)/.test(l))).toEqual([
      'read deliveries.backlogSnapshot {"mode":"primaryPreferred"}',
      expect.stringMatching(/^take [\w-]+ \{"w":1\}: taken$/),
      'write 1 {"w":1}: written',
      expect.stringMatching(/^take [\w-]+ \{"w":1\}: held$/),
      'read deliveries.backlogSnapshot {"mode":"primaryPreferred"}',
      expect.stringMatching(/^take [\w-]+ \{"w":1\}: held$/),
      expect.stringMatching(/^take [\w-]+ \{"w":1\}: taken$/),
      'write 2 {"w":1}: written',
    ]);
  });

  it(`a count ${BACKLOG_STALE_MS} ms old by the server's clock is not shown: its counter stopped; the error says when it was made`, async () => {
    const shared = sharedState();
    const repo = new MongoDeliveryRepo(connection({ '202612': 4 }, 0, shared).conn);
    await repo.countBacklog(0);
    const countedAt = shared.server.now;
    shared.server.now += BACKLOG_STALE_MS - 1;
    expect(await repo.backlog(0)).toMatchObject({ due: 4 });
    shared.server.now += 1;
    const stale = await repo.backlog(0).catch((err: unknown) => err);
    expect(stale).toBeInstanceOf(StaleBacklogError);
    expect((stale as StaleBacklogError).message).toBe('the backlog was last counted 60 s ago');
    expect((stale as StaleBacklogError).countedAt).toBe(countedAt);
  });

  it('a failed count gives its take of the lease up for another process', async () => {
    const shared = sharedState();
    const ok = connection({ '202612': 4 }, 0, shared);
    const broken = new MongoDeliveryRepo({
      ...ok.conn,
      months: async () => {
        throw new Error('pool wait timed out');
      },
    } as unknown as MongoConnection);
    await expect(broken.countBacklog(0)).rejects.toThrow('pool wait timed out');
    expect(shared.log.at(-1)).toBe('release {"w":1}: released');
    expect(await new MongoDeliveryRepo(ok.conn).countBacklog(0)).toBe(true);
    expect(await new MongoDeliveryRepo(ok.conn).backlog(0)).toMatchObject({ due: 4, countedAt: shared.server.now });
  });

  // The server's limit (maxTimeMS, code 50), or the read's own (BACKLOG_READ_MS spent before its next operation).
  it.each([
    [
      'the server stopped at its time limit',
      'operation exceeded time limit',
      async () => {
        throw new MongoServerError({ code: 50, errmsg: 'operation exceeded time limit' });
      },
    ],
    [
      'that ran past its own time',
      'the backlog read ran past its 5000 ms',
      async (): Promise<Month[]> => {
        const now = performance.now();
        vi.spyOn(performance, 'now').mockReturnValue(now + BACKLOG_READ_MS + 1);
        return ['202612' as Month];
      },
    ],
  ])('a count %s keeps the lease until it runs out: another count would load the same primary', async (_, message, months) => {
    const shared = sharedState();
    const ok = connection({ '202612': 4 }, 0, shared);
    const slow = new MongoDeliveryRepo({ ...ok.conn, months } as unknown as MongoConnection);
    try {
      await expect(slow.countBacklog(0)).rejects.toThrow(message);
    } finally {
      vi.restoreAllMocks();
    }
    expect(shared.log.filter((line) => line.startsWith('release'))).toEqual([]);
    // Held: the next process's try does not take it.
    expect(await new MongoDeliveryRepo(ok.conn).countBacklog(0)).toBe(false);
  });

  it('a count of an earlier take than the one written is dropped (a slow counter whose lease ran out)', async () => {
    const shared = sharedState();
    const slow = connection({ '202612': 4 }, 300, shared);
    const fast = connection({ '202612': 9 }, 0, shared);
    const late = new MongoDeliveryRepo(slow.conn).countBacklog(0); // takes the lease, counts for 300 ms
    await new Promise((resolve) => setTimeout(resolve, 50));
    shared.server.now += BACKLOG_COUNT_EVERY_MS; // its lease runs out meanwhile
    expect(await new MongoDeliveryRepo(fast.conn).countBacklog(0)).toBe(true);
    expect(await late).toBe(false);
    expect(shared.log.filter((l) => l.startsWith('write'))).toEqual(['write 2 {"w":1}: written', 'write 1 {"w":1}: dropped']);
    expect(await new MongoDeliveryRepo(fast.conn).backlog(0)).toMatchObject({ due: 9 });
  });

  it('a lease deleted alone (an operator unsticking jobs) is made again numbered on from the count: the next count is written', async () => {
    const shared = sharedState();
    const repo = new MongoDeliveryRepo(connection({ '202612': 4 }, 0, shared).conn);
    for (let i = 0; i < 3; i++) {
      expect(await repo.countBacklog(0)).toBe(true);
      shared.server.now += BACKLOG_COUNT_EVERY_MS;
    }
    shared.leases.clear();
    expect(await repo.countBacklog(0)).toBe(false); // nothing to take: made again at the next try
    // Asked of the primary, as the take was: a secondary behind it could still show the lease.
    expect(shared.log.filter((l) => l.startsWith('lease there?'))).toEqual(['lease there? {"mode":"primary"}: false']);
    expect(await repo.countBacklog(0)).toBe(true);
    expect(shared.log.filter((l) => l.startsWith('make lease'))).toEqual(['make lease 0 {"w":1}', 'make lease 3 {"w":1}']);
    expect(shared.log.filter((l) => l.startsWith('write')).at(-1)).toBe('write 4 {"w":1}: written');
  });

  it('a count document deleted alone is made again, and a lease behind it is raised to its seq', async () => {
    const shared = sharedState();
    const repo = new MongoDeliveryRepo(connection({ '202612': 4 }, 0, shared).conn);
    expect(await repo.countBacklog(0)).toBe(true);
    shared.meta.clear();
    shared.server.now += BACKLOG_COUNT_EVERY_MS;
    expect(await repo.countBacklog(0)).toBe(false); // its write found no document
    shared.server.now += BACKLOG_COUNT_EVERY_MS;
    expect(await repo.countBacklog(0)).toBe(true);
    expect(await repo.backlog(0)).toMatchObject({ due: 4 });
    // A lease made again by hand with a low seq, behind the count's: raised at the first dropped write.
    shared.leases.set('backlog-count', { holder: '', leaseUntil: 0, seq: 0 });
    shared.server.now += BACKLOG_COUNT_EVERY_MS;
    expect(await repo.countBacklog(0)).toBe(false);
    expect(shared.log.at(-1)).toBe('raise seq to 3');
    shared.server.now += BACKLOG_COUNT_EVERY_MS;
    expect(await repo.countBacklog(0)).toBe(true);
  });
});

describe('the MongoDB backlog read (the metrics)', () => {
  it(`counts and seeks the oldest due on the primary, all within what is left of ${BACKLOG_READ_MS} ms`, async () => {
    expect(BACKLOG_READ_MS).toBe(5_000);
    const { conn, calls } = connection({ '202611': 3, '202612': 4 });
    const repo = new MongoDeliveryRepo(conn);
    expect(await repo.countBacklog(2_000_000)).toBe(true);
    const backlog = await repo.backlog(2_000_000);
    // Both counts over both months (each 3 + 4), and the least of the months' heads.
    expect(backlog).toEqual({ due: 7, retrying: 7, oldestDueAt: 1_000 + 202611, countedAt: 5_000_000 });
    expect(calls).toHaveLength(6);
    for (const { op, options } of calls) {
      // Counts and seeks alike on the primary.
      expect(options.readPreference, op).toBe(ReadPreference.primary);
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
    // The primary: the counts are dated by the take's time (a secondary behind would show an old queue).
    expect(BACKLOG_READ_PREFERENCE.mode).toBe('primary');
    const now = performance.now();
    const read = backlogReadOptions(now + 5_000);
    expect(read().maxTimeMS).toBeGreaterThan(4_900);
    expect(read().maxTimeMS).toBeLessThanOrEqual(5_000);
    expect(() => backlogReadOptions(now - 1)()).toThrow('the backlog read ran past its 5000 ms');
  });

  it('shares one deadline among the read’s operations: a slow first one leaves the later ones less', async () => {
    // The newest month's first count takes 300 ms: every operation sent after it has that much less.
    const { conn, calls } = connection({ '202611': 3, '202612': 4 }, 300);
    await new MongoDeliveryRepo(conn).countBacklog(2_000_000);
    const later = calls.filter((c) => c.op === 'count' && c.month === '202611');
    expect(later).toHaveLength(2);
    for (const c of later) expect(c.options.maxTimeMS).toBeLessThanOrEqual(BACKLOG_READ_MS - 250);
  });
});

describe('a backlog read whose deadline passes between two months', () => {
  it('fails the count, and handles the failure of the seek it had sent (not left to end the process)', async () => {
    let now = 1_000;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    const shared = sharedState();
    let sent = 0;
    const conn = {
      ...shared.collections,
      months: async () => ['202611', '202612'] as Month[],
      bucket: () => ({
        deliveries: {
          countDocuments: async () => 0,
          // The older month's seek is sent, the deadline passes, and the seek fails a little later.
          findOne: (_filter: unknown, options: { maxTimeMS: number }) => {
            sent += 1;
            expect(options.maxTimeMS).toBeGreaterThan(0);
            now += BACKLOG_READ_MS;
            return new Promise((_, reject) => setTimeout(() => reject(new MongoServerError({ code: 50, errmsg: 'operation exceeded time limit' })), 5));
          },
        },
      }),
    } as unknown as MongoConnection;
    try {
      await expect(new MongoDeliveryRepo(conn).countBacklog(0)).rejects.toThrow(`the backlog read ran past its ${BACKLOG_READ_MS} ms`);
      expect(sent).toBe(1);
      // Past the seek's failure: unhandled, it would fail the test run (and end a dispatcher).
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      vi.restoreAllMocks();
    }
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
