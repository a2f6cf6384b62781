import { ReadPreference } from 'mongodb';
import type { Backlog } from '../ports/delivery-port.ts';
import type { MongoConnection } from './connection.ts';
import { MongoJobLeaseRepo } from './job-lease-repo.ts';
import { DELIVERIES_PLANS as P } from './plans/deliveries.ts';

// The metrics' backlog (MongoDeliveryRepo.backlog): two capped counts and a seek per month,
// counted by one process of all that share the database at a time, at most every
// BACKLOG_COUNT_EVERY_MS, and kept in `meta` for the others (one point read a scrape). The
// count is sent off the primary, within one time limit for all its operations.

/** `meta`'s document of the last count: `{ _id: 'backlog', due, oldestDueAt, retrying, countedAt }`. */
export const BACKLOG_SNAPSHOT_ID = 'backlog';
/** The job lease whose holder counts (one process at a time, for one interval). */
export const BACKLOG_COUNT_LEASE = 'backlog-count';
/** How old a count may be before a process counts again (Prometheus scrapes every 15 s or more). */
export const BACKLOG_COUNT_EVERY_MS = 15_000;
/** A count older than this is not shown, whoever was to count again (its counter stopped): the read fails. */
export const BACKLOG_STALE_MS = 60_000;

/** What a count is, as `meta` keeps it. */
export interface BacklogSnapshot extends Backlog {
  countedAt: number;
}

/**
 * The store's backlog as of `now`: the shared count when it is fresh; else counted here by
 * `count` if this process takes the count's lease (and shared), else the shared count while it
 * is not stale (another process is counting). A count from the future (a clock stepped back, or
 * another process's clock ahead) is not fresh. @throws Error when none is recent enough.
 */
export async function sharedBacklog(conn: MongoConnection, holder: string, now: number, count: () => Promise<Backlog>): Promise<BacklogSnapshot> {
  const q = P.backlogSnapshot();
  const shared = await conn.meta.findOne(q.filter, q.options);
  const snapshot = shared === null || typeof shared.countedAt !== 'number' ? null : toSnapshot(shared as BacklogSnapshot & { _id: string });
  const age = snapshot === null ? Number.POSITIVE_INFINITY : now - snapshot.countedAt;
  if (snapshot !== null && age >= 0 && age < BACKLOG_COUNT_EVERY_MS) return snapshot;
  if (await new MongoJobLeaseRepo(conn).take(BACKLOG_COUNT_LEASE, holder, now, now + BACKLOG_COUNT_EVERY_MS)) {
    const counted: BacklogSnapshot = { ...(await count()), countedAt: now };
    await conn.meta.updateOne(q.filter, { $set: counted }, { ...q.options, upsert: true });
    return counted;
  }
  if (snapshot !== null && age >= 0 && age < BACKLOG_STALE_MS) return snapshot;
  throw new Error(
    snapshot === null
      ? 'the backlog has not been counted yet (another process holds the count)'
      : `the backlog was last counted ${Math.round(age / 1000)} s ago`,
  );
}

function toSnapshot(doc: BacklogSnapshot): BacklogSnapshot {
  return { due: doc.due, oldestDueAt: doc.oldestDueAt, retrying: doc.retrying, countedAt: doc.countedAt };
}

/**
 * The most one backlog read's operations may take on the server, together: a count that runs
 * out fails the read, and the gauges keep the last good one (services/dispatcher's metrics
 * wait 6 s in all, under Prometheus's default scrape timeout of 10 s).
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
