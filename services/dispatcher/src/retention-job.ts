import { randomUUID } from 'node:crypto';
import { PORTAL_TOKEN_KEPT_AFTER_EXPIRY_MS, retentionStart, type Clock } from '@wirehook/core';
import type { Component, Logger } from '@wirehook/platform';
import type { LeaseTaken, Store } from '@wirehook/store';

/** Messages one batch deletes (one store transaction): short, so a write waits behind one briefly. */
export const RETENTION_BATCH = 250;
/**
 * The share of time a run spends deleting: after each batch it rests three times as long as the
 * batch took. When a month falls out of the window at once, the deleting is a steady walk that
 * leaves the store's writer to others three quarters of the time — not one long burst every
 * other write waits behind, and not a fixed cap per run that a steady ingest outgrows (the cap
 * of 60,000 messages a run this replaced deleted 1,000 a second at most: less than embedded
 * mode's measured intake). Its rate follows the store's own speed: a quarter of what deleting
 * flat out would do (docs/benchmarks.md: retention).
 */
export const RETENTION_DUTY = 0.25;
/** Batches of each kind one run deletes at most (a bound for a run that never catches up). */
export const RETENTION_BATCHES_PER_RUN = 10_000;

/** How long to rest after a batch that took `batchMs`, so deleting takes `duty` of the time. */
export function restAfter(batchMs: number, duty = RETENTION_DUTY): number {
  return Math.max(0, batchMs) * ((1 - duty) / duty);
}
/**
 * How long into a month retention still keeps the month that left the window: a writer whose
 * clock is behind the retention job's (RETENTION_MONTHS=1, the first seconds of a month) may
 * still be filing messages into it.
 */
export const LATE_WRITER_MARGIN_MS = 3_600_000;

/**
 * How far the store's time and the replica's may be apart before retention says so: more than
 * one take can last (a majority's wait, the server's 5 s limit), well under the late writers'
 * margin (LATE_WRITER_MARGIN_MS, 1 h). Fixed: the lease's length follows RETENTION_INTERVAL_MS.
 */
export const CLOCKS_APART_MS = 60_000;
/** How often the warning repeats while the clocks stay apart (only the lease's holder compares them). */
export const CLOCKS_WARN_EVERY_MS = 3_600_000;
/** The job's lease: one replica deletes at a time (they used to race for the same chunk). */
const LEASE = 'retention';

export interface RetentionJobDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Months kept, the current one included. */
  retentionMonths: number;
  /** How often the job runs. */
  intervalMs: number;
  /** Who this replica is, for the lease (default: a random id per process). */
  holder?: string;
  /** Messages a batch deletes (default RETENTION_BATCH; a test makes it small). */
  batch?: number;
  /** Waits `ms` of real time, or less when `signal` aborts (default: a timer; a test records the rests). */
  rest?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * Removes messages (with deliveries and attempts) older than the retention window, ordered
 * lanes idle since before it (once those messages are gone), and endpoint-health rollups past
 * theirs (ROLLUP_RETENTION_MS), periodically: one replica at a
 * time (a store lease, renewed by every batch while it runs), batch after batch until caught up,
 * resting between batches so deleting takes RETENTION_DUTY of the time.
 */
export class RetentionJob implements Component {
  readonly name = 'retention';
  readonly #deps: RetentionJobDeps;
  readonly #holder: string;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | undefined;
  readonly #stopping = new AbortController();
  /** When (by this replica's clock) the clocks' disagreement was last logged; undefined while they agree. */
  #warnedAt: number | undefined;

  constructor(deps: RetentionJobDeps) {
    this.#deps = deps;
    this.#holder = deps.holder ?? randomUUID();
  }

  async start(): Promise<void> {
    this.#timer = setInterval(() => void this.runOnce(), this.#deps.intervalMs);
    this.#timer.unref();
    void this.runOnce();
  }

  /** Stops the timer and the run under way, then gives the lease up: another replica takes over at once, not after it lapses. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#stopping.abort();
    await this.#running;
    await this.#deps.store.jobs
      .release(LEASE, this.#holder)
      .catch((err: unknown) => this.#deps.logger.warn({ err }, 'retention could not give its lease up; another replica takes over when it lapses'));
  }

  /** Deletes everything before the oldest retained month. @returns how many messages went. */
  runOnce(): Promise<number> {
    this.#running ??= this.#purge().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #purge(): Promise<number> {
    const { store, clock, logger, retentionMonths } = this.#deps;
    const size = this.#deps.batch ?? RETENTION_BATCH;
    let total = 0;
    try {
      // Held for two intervals from each batch: this replica keeps it while it runs; a replica
      // that stops hands over after that.
      let taken: LeaseTaken | null = null;
      const take = async () => {
        const now = clock.now();
        taken = await store.jobs.take(LEASE, this.#holder, now, now + 2 * this.#deps.intervalMs);
        return taken !== null;
      };
      // A run begun after stop() takes no lease (stop has given it up, and would not again).
      if (this.#stopping.signal.aborted || !(await take())) return 0;
      // The run's own take serves its first batch: renewed there, it would be a second w: majority write back to back.
      let firstBatch = true;
      const renew = async () => {
        if (!firstBatch) return take();
        firstBatch = false;
        return true;
      };
      // The window by the earlier of two clocks: the store's at the take (MongoDB's server's, the
      // one every replica shares) and this replica's. A delete cannot be undone, so only what
      // both find past the window goes: a replica whose clock ran months ahead, or a server's,
      // deletes nothing still kept. One window for the whole run.
      // An hour late at a month's turn (LATE_WRITER_MARGIN_MS): a writer whose clock is behind
      // is not filing messages into a month being deleted (MongoDB drops it whole).
      const before = retentionStart(this.#agreed(leaseTime(taken)) - LATE_WRITER_MARGIN_MS, retentionMonths);
      const removed = await this.#paced(renew, () => store.messages.deleteBefore(before, size), size);
      total = removed.count;
      if (total > 0) logger.info({ removed: total, before }, 'retention removed old messages');
      if (removed.stopped) return total;
      // Ordered lanes idle since before the cutoff: only once no message before it is
      // left, so a pruned lane has no delivery left that a recovery could re-open.
      if (removed.caughtUp) {
        const lanes = await this.#paced(renew, () => store.deliveries.pruneLanes(before, size), size);
        if (lanes.count > 0) logger.debug({ removed: lanes.count, before }, 'retention removed idle ordered lanes');
        if (lanes.stopped) return total;
      }
      // The rollups' age by the latest renewal's time, judged as the window is.
      const rollups = await this.#paced(renew, () => store.endpointStats.prune(this.#agreed(leaseTime(taken)), size), size);
      if (rollups.count > 0) logger.debug({ removed: rollups.count }, 'retention removed old endpoint rollups');
      if (rollups.stopped) return total;
      // Portal links' tokens an hour past their expiry (SQLite kept every one made; MongoDB's TTL index removes them too).
      const tokens = await this.#paced(
        renew,
        () => store.portalTokens.deleteExpired(this.#agreed(leaseTime(taken)) - PORTAL_TOKEN_KEPT_AFTER_EXPIRY_MS, size),
        size,
      );
      if (tokens.count > 0) logger.debug({ removed: tokens.count }, 'retention removed expired portal links');
    } catch (err) {
      logger.error({ err }, 'retention run failed');
    }
    return total;
  }

  /**
   * The earlier of the store's time `storeAt` and this replica's clock, with a warning when they
   * are over CLOCKS_APART_MS apart (again each CLOCKS_WARN_EVERY_MS while they stay so).
   */
  #agreed(storeAt: number): number {
    const own = this.#deps.clock.now();
    if (Math.abs(own - storeAt) > CLOCKS_APART_MS) {
      if (this.#warnedAt === undefined || Math.abs(own - this.#warnedAt) >= CLOCKS_WARN_EVERY_MS) {
        this.#warnedAt = own;
        this.#deps.logger.warn(
          { replicaTime: new Date(own).toISOString(), storeTime: new Date(storeAt).toISOString() },
          "retention: this replica's clock and the store's disagree by over a minute; it deletes only what both find past the window (check NTP)",
        );
      }
    } else this.#warnedAt = undefined;
    return Math.min(own, storeAt);
  }

  /**
   * Runs `step` (a batch of at most `size`) until it removes fewer than `size`, resting after
   * each batch by restAfter, renewing the lease before each one; stops when the job stops or the
   * lease is lost (`stopped`: the run ends there). @returns how many went, and whether it caught up.
   */
  async #paced(renew: () => Promise<boolean>, step: () => Promise<number>, size: number): Promise<{ count: number; caughtUp: boolean; stopped: boolean }> {
    const rest = this.#deps.rest ?? restFor;
    let count = 0;
    for (let batch = 0; batch < RETENTION_BATCHES_PER_RUN; batch++) {
      // Renewed before every batch: a replica that lost it (a long rest, a clock) stops there.
      if (this.#stopping.signal.aborted || !(await renew())) return { count, caughtUp: false, stopped: true };
      const started = performance.now();
      const removed = await step();
      count += removed;
      if (removed < size) return { count, caughtUp: true, stopped: false };
      await rest(restAfter(performance.now() - started), this.#stopping.signal);
    }
    return { count, caughtUp: false, stopped: false };
  }
}

/** A real-time rest that a stop cuts short. */
function restFor(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The time of a take that held (renew answered true before this is read). */
function leaseTime(taken: LeaseTaken | null): number {
  if (taken === null) throw new Error('retention read its lease time without holding the lease');
  return taken.at;
}
