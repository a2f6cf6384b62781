import { ReadPreference } from 'mongodb';

// How the metrics' backlog read (MongoDeliveryRepo.backlog: two capped counts and a seek per
// month) is sent: off the primary, and within one time limit for all its operations.

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
