import { ReadPreference } from 'mongodb';
import { BACKLOG_COUNT_CAP, type Backlog, StaleBacklogError } from '../ports/delivery-port.ts';
import type { MongoConnection } from './connection.ts';
import { countAcrossMonths } from './endpoint-stats-repo.ts';
import { isDuplicateKey, unavailableKind } from './errors.ts';
import type { Month } from './months.ts';
import { POINT_OP_MS, ReadDeadlineError, readDeadline } from './query.ts';
import { DELIVERIES_PLANS as P } from './plans/deliveries.ts';
import { RELEASED_BY_PRIMARY, SERVER_NOW_MS } from './plans/plan.ts';

// The metrics' backlog in MongoDB. One process of all that share the database counts it (two
// capped counts and a seek per month, MongoDeliveryRepo.countBacklog), at most every
// BACKLOG_COUNT_EVERY_MS, off its scrapes (the dispatcher's BacklogCountJob), and keeps it in
// `meta`; every scrape of every process is one point read of that document. Times are the
// server's ($$NOW): the processes' clocks may disagree. The count reads the primary, within one
// server-side time limit for all its operations (maxTimeMS: the driver's server selection and pool
// wait come on top; a count that outlives its lease is dropped by its `seq`).

/** `meta`'s document of the last count: `{ _id: 'backlog', due, oldestDueAt, retrying, countedAt, seq }`. */
export const BACKLOG_SNAPSHOT_ID = 'backlog';
/** The job lease whose holder counts (one process at a time, for one interval). */
export const BACKLOG_COUNT_LEASE = 'backlog-count';
/** How often a process tries to count (the dispatcher's BacklogCountJob), and how long its lease holds. */
export const BACKLOG_COUNT_EVERY_MS = 15_000;
/** A count older than this is not shown (its counter stopped): the read fails, and the gauges read NaN. */
export const BACKLOG_STALE_MS = 60_000;

/** The two documents' inserts: named for the profiler, the primary's acknowledgement alone (a lost one is made again). */
const MADE = { writeConcern: RELEASED_BY_PRIMARY, comment: 'deliveries.backlogDocuments' } as const;

/**
 * How long before the lease runs out another take may have it: a tick as long as the lease
 * would otherwise find it unexpired about half the time (its round trip shorter than the last),
 * and count every 30 s, not 15.
 */
export const BACKLOG_TAKE_SLACK_MS = 1_000;

/**
 * The documents `meta` and `job_leases` must hold before their conditional updates can match.
 * A lease made again (an operator deleted it) numbers its takes on from the count's `seq`, or
 * every count would be dropped until its takes caught up.
 */
async function ensureDocuments(conn: MongoConnection): Promise<void> {
  const snapshot = P.backlogSnapshot();
  const shared = await conn.meta.findOne(snapshot.filter, { ...snapshot.options, ...ON_PRIMARY, projection: { seq: 1 } });
  const made = [
    conn.jobLeases.insertOne({ _id: BACKLOG_COUNT_LEASE, holder: '', leaseUntil: 0, seq: shared?.seq ?? 0 }, { ...MADE, maxTimeMS: POINT_OP_MS }),
    shared === null ? conn.meta.insertOne({ _id: BACKLOG_SNAPSHOT_ID, seq: 0 }, { ...MADE, maxTimeMS: POINT_OP_MS }) : Promise.resolve(),
  ];
  for (const made_ of await Promise.allSettled(made)) {
    if (made_.status === 'rejected' && !isDuplicateKey(made_.reason, '_id_')) throw made_.reason;
  }
}

/**
 * Counts the backlog with `count` (given the server's time) and shares it, when this process
 * takes the count's lease: once it has run out, or is within BACKLOG_TAKE_SLACK_MS of it, by the
 * server's clock, for BACKLOG_COUNT_EVERY_MS, each take numbered (`seq`). A conditional update,
 * never an upsert that fails (the server logs each); the two documents are made by insert at a
 * process's first try, and again when a try finds one gone (an operator's cleanup). A count of
 * an earlier take than the one written is dropped; one that fails gives the lease up, so that
 * another process counts at its next try (not one the server stopped at its time limit, or that
 * lost the database: the lease runs out first).
 * @returns whether this process's count was written.
 */
export async function countAndShare(conn: MongoConnection, holder: string, state: { ready: boolean }): Promise<boolean> {
  if (!state.ready) {
    await ensureDocuments(conn);
    state.ready = true;
  }
  const lease = P.backlogCountLease(BACKLOG_TAKE_SLACK_MS);
  const taken = await conn.jobLeases.findOneAndUpdate(
    lease.filter,
    // The holder a $literal: in a pipeline a string that began with $ would be read as a field's path.
    [{ $set: { holder: { $literal: holder }, leaseUntil: { $add: [SERVER_NOW_MS, BACKLOG_COUNT_EVERY_MS] }, seq: { $add: [{ $ifNull: ['$seq', 0] }, 1] } } }],
    { ...lease.options, returnDocument: 'after', projection: { leaseUntil: 1, seq: 1 }, maxTimeMS: POINT_OP_MS },
  );
  if (taken === null) {
    const byId = P.backlogCountLeaseById();
    if ((await conn.jobLeases.findOne(byId.filter, { ...byId.options, ...ON_PRIMARY, projection: { _id: 1 } })) === null) state.ready = false;
    return false;
  }
  // The server's time at the take: what is due is counted by it, and the count dated by it (not
  // by the write, which a failover may hold up).
  const countedAt = taken.leaseUntil - BACKLOG_COUNT_EVERY_MS;
  const seq = taken.seq ?? 0;
  let counted: Backlog;
  try {
    counted = await countBacklog(conn, countedAt);
  } catch (err) {
    // Given up for another process's next try, unless the database is what failed (too slow: a
    // time limit, the server's or the read's own; or gone): another count then would only load the
    // same primary again. The lease runs out.
    if (unavailableKind(err) === null && !(err instanceof ReadDeadlineError)) {
      const release = P.backlogCountRelease(holder, seq);
      await conn.jobLeases.updateOne(release.filter, { $set: { leaseUntil: 0 } }, { ...release.options, maxTimeMS: POINT_OP_MS }).catch(() => {});
    }
    throw err;
  }
  const write = P.backlogSnapshotWrite(seq);
  const { matchedCount } = await conn.meta.updateOne(
    write.filter,
    { $set: { due: counted.due, oldestDueAt: counted.oldestDueAt, retrying: counted.retrying, countedAt, seq } },
    { ...write.options, maxTimeMS: POINT_OP_MS },
  );
  if (matchedCount === 1) return true;
  // Dropped: a later take's count is there (nothing to do), or the document is gone, or the
  // lease was made again behind it (numbered on from the count's seq, the next take writes).
  const snapshot = P.backlogSnapshot();
  const shared = await conn.meta.findOne(snapshot.filter, { ...snapshot.options, ...ON_PRIMARY, projection: { seq: 1 } });
  if (shared === null) state.ready = false;
  else if (typeof shared.seq === 'number' && shared.seq >= seq) {
    const raise = P.backlogCountLeaseRaise();
    await conn.jobLeases.updateOne(raise.filter, { $max: { seq: shared.seq } }, { ...raise.options, maxTimeMS: POINT_OP_MS });
  }
  return false;
}

/** The shared count as a scrape reads it: its age by the server's clock. Any member: an old copy is refused by its age. */
const SNAPSHOT_READ = new ReadPreference('primaryPreferred');

/**
 * The shared count (one point read). Its age is the reading member's clock against the
 * counting primary's: a member behind makes it look younger by as much. @throws Error when there
 * is none yet; StaleBacklogError when it is BACKLOG_STALE_MS old or older.
 */
export async function sharedBacklog(conn: MongoConnection): Promise<Backlog & { countedAt: number }> {
  const q = P.backlogSnapshot();
  const doc = (await conn.meta.findOne(q.filter, {
    ...q.options,
    readPreference: SNAPSHOT_READ,
    maxTimeMS: POINT_OP_MS,
    projection: { _id: 0, due: 1, oldestDueAt: 1, retrying: 1, countedAt: 1, ageMs: { $subtract: [SERVER_NOW_MS, '$countedAt'] } },
  })) as (Backlog & { countedAt?: number; ageMs?: number }) | null;
  if (doc === null || typeof doc.countedAt !== 'number' || typeof doc.ageMs !== 'number') throw new Error('the backlog has not been counted yet');
  if (doc.ageMs >= BACKLOG_STALE_MS) throw new StaleBacklogError(doc.countedAt, doc.ageMs);
  return { due: doc.due, oldestDueAt: doc.oldestDueAt, retrying: doc.retrying, countedAt: doc.countedAt };
}

/**
 * A read that a write then depends on (a `seq`, whether the lease is there): the primary's (a `readPreference` in MONGODB_URL
 * would send it to a secondary, behind), within POINT_OP_MS.
 */
const ON_PRIMARY = { readPreference: ReadPreference.primary, maxTimeMS: POINT_OP_MS };

/**
 * The most one count's operations may take on the server, together: a count that runs out fails,
 * and the shared count stays as it was (read as unknown once 60 s old).
 */
export const BACKLOG_READ_MS = 5_000;

/**
 * The primary: the counts filter by the take's time (`dueAt <= now`) and are dated by it, so they
 * must read the queue as of then. A secondary may be up to 90 s behind (the least
 * maxStalenessSeconds the driver takes), most in a write burst, when the backlog grows: it would
 * count retries claimed since as due and miss a burst's new deliveries. Two covered counts of at
 * most BACKLOG_COUNT_CAP keys, once per 15 s store-wide, cost the primary little.
 */
export const BACKLOG_READ_PREFERENCE = ReadPreference.primary;

/** What each of a backlog read's operations is given: where it reads, and its share of the time left. */
export type BacklogRead = { readPreference: ReadPreference; maxTimeMS: number };

/**
 * A backlog read's options: each operation's `maxTimeMS` is the time left to `deadline`
 * (readDeadline), BACKLOG_READ_MS from now unless given. The function returned throws
 * ReadDeadlineError once the deadline has passed.
 */
export function backlogReadOptions(deadline?: number): () => BacklogRead {
  const left = readDeadline('the backlog read', BACKLOG_READ_MS, deadline);
  return () => ({ readPreference: BACKLOG_READ_PREFERENCE, maxTimeMS: left() });
}

/**
 * The store's backlog as of `now` (the server's time at the count's take). Bounded: index keys
 * only (covered: a COUNT_SCAN for retrying, an IXSCAN over the two statuses' intervals for due;
 * no document fetched), at most BACKLOG_COUNT_CAP each over all months (countAcrossMonths);
 * beyond it the gauges read the cap (docs/operations.md: alert on the oldest due's age). All on
 * the primary (BACKLOG_READ_PREFERENCE), within BACKLOG_READ_MS of server time in all (backlogReadOptions); the
 * oldest due is a seek a month. `dueAt` is the writing process's clock, compared with the
 * server's: skew between them (NTP keeps it small) shifts both gauges by as much.
 */
async function countBacklog(conn: MongoConnection, now: number): Promise<Backlog> {
  const read = backlogReadOptions();
  // The list of months is cached by this process's clock: `now` (the server's) is not for it.
  const months = await conn.months();
  const due = P.dueCount(now);
  const retrying = P.retrying();
  const [dueCount, oldestDue, retryingCount] = await Promise.all([
    countAcrossMonths(months, BACKLOG_COUNT_CAP, (month, limit) =>
      conn.bucket(month).deliveries.countDocuments(due.filter, { ...due.options, limit, ...read() }),
    ),
    oldestDueAt(conn, now, months, read),
    countAcrossMonths(months, BACKLOG_COUNT_CAP, (month, limit) =>
      conn.bucket(month).deliveries.countDocuments(retrying.filter, { ...retrying.options, limit, ...read() }),
    ),
  ]);
  return { due: dueCount, oldestDueAt: oldestDue, retrying: retryingCount };
}

/**
 * The earliest dueAt among due deliveries: the least of each month's head (one seek each, on the
 * primary, within the count's time). Not the oldest month's alone: a retry of an older month's
 * delivery may be due after a newer one's.
 */
async function oldestDueAt(conn: MongoConnection, now: number, months: readonly Month[], read: () => BacklogRead): Promise<number | null> {
  const q = P.dueHead(now);
  const heads = await Promise.all(
    // Async: a deadline passed between two months rejects within Promise.all, which then also
    // handles the months' reads already sent (thrown in the map, their rejections went unhandled).
    months.map(async (month) => conn.bucket(month).deliveries.findOne(q.filter, { ...q.options, projection: { _id: 0, dueAt: 1 }, ...read() })),
  );
  const times = heads.map((d) => d?.dueAt).filter((at) => typeof at === 'number');
  return times.length === 0 ? null : Math.min(...times);
}
