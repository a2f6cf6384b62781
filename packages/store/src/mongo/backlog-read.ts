import { ReadPreference } from 'mongodb';
import type { Backlog } from '../ports/delivery-port.ts';
import type { MongoConnection } from './connection.ts';
import { isDuplicateKey } from './errors.ts';
import { DELIVERIES_PLANS as P } from './plans/deliveries.ts';

// The metrics' backlog in MongoDB. One process of all that share the database counts it (two
// capped counts and a seek per month, MongoDeliveryRepo.countBacklog), at most every
// BACKLOG_COUNT_EVERY_MS, off its scrapes (the dispatcher's BacklogCountJob), and keeps it in
// `meta`; every scrape of every process is one point read of that document. Times are the
// server's ($$NOW): the processes' clocks may disagree. The count is sent off the primary, within
// one time limit for all its operations.

/** `meta`'s document of the last count: `{ _id: 'backlog', due, oldestDueAt, retrying, countedAt, startedAt }`. */
export const BACKLOG_SNAPSHOT_ID = 'backlog';
/** The job lease whose holder counts (one process at a time, for one interval). */
export const BACKLOG_COUNT_LEASE = 'backlog-count';
/** How often a process tries to count (the dispatcher's BacklogCountJob), and how long its lease holds. */
export const BACKLOG_COUNT_EVERY_MS = 15_000;
/** A count older than this is not shown (its counter stopped): the read fails, and the gauges read NaN. */
export const BACKLOG_STALE_MS = 60_000;

/** The documents `meta` and `job_leases` must hold before their conditional updates can match (made once a process). */
async function ensureDocuments(conn: MongoConnection): Promise<void> {
  const made = [
    conn.jobLeases.insertOne({ _id: BACKLOG_COUNT_LEASE, holder: '', leaseUntil: 0 }, { writeConcern: { w: 1 } }),
    conn.meta.insertOne({ _id: BACKLOG_SNAPSHOT_ID, startedAt: 0 }, { writeConcern: { w: 1 } }),
  ];
  for (const made_ of await Promise.allSettled(made)) {
    if (made_.status === 'rejected' && !isDuplicateKey(made_.reason, '_id_')) throw made_.reason;
  }
}

/**
 * Counts the backlog with `count` and shares it, when this process takes the count's lease (by
 * the server's clock, BACKLOG_COUNT_EVERY_MS long); a conditional update, never an upsert that
 * fails (the server logs each). A count begun before the one written is dropped. `state.ready`:
 * the two documents are known to exist (a miss makes them again at the next try, an insert
 * that finds them there).
 * @returns whether this process counted.
 */
export async function countAndShare(conn: MongoConnection, holder: string, count: () => Promise<Backlog>, state: { ready: boolean }): Promise<boolean> {
  if (!state.ready) {
    await ensureDocuments(conn);
    state.ready = true;
  }
  const lease = P.backlogCountLease(holder);
  const taken = await conn.jobLeases.findOneAndUpdate(
    lease.filter,
    [{ $set: { holder, leaseUntil: { $add: [{ $toLong: '$$NOW' }, BACKLOG_COUNT_EVERY_MS] } } }],
    { ...lease.options, returnDocument: 'after', projection: { leaseUntil: 1 } },
  );
  // Held by another, or its document gone (an operator's cleanup): made again at the next try.
  if (taken === null) {
    state.ready = false;
    return false;
  }
  const startedAt = taken.leaseUntil - BACKLOG_COUNT_EVERY_MS;
  const counted = await count();
  const write = P.backlogSnapshotWrite(startedAt);
  const { matchedCount } = await conn.meta.updateOne(
    write.filter,
    [{ $set: { due: counted.due, oldestDueAt: counted.oldestDueAt, retrying: counted.retrying, startedAt, countedAt: { $toLong: '$$NOW' } } }],
    write.options,
  );
  if (matchedCount === 0) state.ready = false;
  return true;
}

/** The shared count as a scrape reads it: its age by the server's clock. Any member: an old copy is refused by its age. */
const SNAPSHOT_READ = new ReadPreference('primaryPreferred');

/**
 * The shared count (one point read). @throws Error when there is none yet, or it is
 * BACKLOG_STALE_MS old or older (the process that counts has stopped).
 */
export async function sharedBacklog(conn: MongoConnection): Promise<Backlog & { countedAt: number }> {
  const q = P.backlogSnapshot();
  const doc = (await conn.meta.findOne(q.filter, {
    ...q.options,
    readPreference: SNAPSHOT_READ,
    projection: { _id: 0, due: 1, oldestDueAt: 1, retrying: 1, countedAt: 1, ageMs: { $subtract: [{ $toLong: '$$NOW' }, '$countedAt'] } },
  })) as (Backlog & { countedAt?: number; ageMs?: number }) | null;
  if (doc === null || typeof doc.countedAt !== 'number' || typeof doc.ageMs !== 'number') throw new Error('the backlog has not been counted yet');
  if (doc.ageMs >= BACKLOG_STALE_MS) throw new Error(`the backlog was last counted ${Math.round(doc.ageMs / 1000)} s ago`);
  return { due: doc.due, oldestDueAt: doc.oldestDueAt, retrying: doc.retrying, countedAt: doc.countedAt };
}

/**
 * The most one count's operations may take on the server, together: a count that runs out fails,
 * and the shared count stays as it was (read as unknown once 60 s old).
 */
export const BACKLOG_READ_MS = 5_000;

/**
 * A secondary when one is up and no more than 90 s behind (the least maxStalenessSeconds the
 * driver takes), else the primary: store-wide counts for a gauge may lag replication by a
 * moment, and the writes they would compete with on the primary need not wait for them; a
 * secondary far behind (a write burst: when the backlog grows) would show an old queue.
 */
export const BACKLOG_READ_PREFERENCE = new ReadPreference('secondaryPreferred', undefined, { maxStalenessSeconds: 90 });

/** What each of a backlog read's operations is given: where it reads, and its share of the time left. */
export type BacklogRead = { readPreference: ReadPreference; maxTimeMS: number };

/**
 * A backlog read's options: each operation's `maxTimeMS` is the time left to `deadline` (a
 * performance.now() time), so the read's operations, run one after another or at once, end
 * by it. @throws Error once the deadline has passed (0 would mean no limit to the server).
 */
export function backlogReadOptions(deadline: number): () => BacklogRead {
  return () => {
    const left = Math.ceil(deadline - performance.now());
    if (left <= 0) throw new Error(`the backlog read ran past its ${BACKLOG_READ_MS} ms`);
    return { readPreference: BACKLOG_READ_PREFERENCE, maxTimeMS: left };
  };
}
