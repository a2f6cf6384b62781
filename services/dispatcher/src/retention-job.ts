import { randomUUID } from 'node:crypto';
import { retentionStart, type Clock } from '@wirehook/core';
import type { Component, Logger } from '@wirehook/platform';
import type { Store } from '@wirehook/store';

/** Messages one batch deletes (one store transaction). */
export const RETENTION_BATCH = 1_000;
/**
 * Batches one run deletes at most (60,000 messages): when a month falls out of the window at
 * once, the deleting is spread over the following runs — a steady walk, not one long burst of
 * deletes at each month boundary that every other write waits behind.
 */
export const RETENTION_BATCHES_PER_RUN = 60;
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
  /** Messages a batch deletes (default RETENTION_BATCH; a test makes it small to reach the cap). */
  batch?: number;
}

/**
 * Removes messages (with deliveries and attempts) older than the retention window, ordered
 * lanes idle since before it (once those messages are gone), and endpoint-health rollups past
 * theirs (ROLLUP_RETENTION_MS), periodically: one replica at a
 * time (a store lease, held across runs while it runs them), at most
 * RETENTION_BATCHES_PER_RUN batches of each a run.
 */
export class RetentionJob implements Component {
  readonly name = 'retention';
  readonly #deps: RetentionJobDeps;
  readonly #holder: string;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | undefined;

  constructor(deps: RetentionJobDeps) {
    this.#deps = deps;
    this.#holder = deps.holder ?? randomUUID();
  }

  async start(): Promise<void> {
    this.#timer = setInterval(() => void this.runOnce(), this.#deps.intervalMs);
    this.#timer.unref();
    void this.runOnce();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }

  /** Deletes everything before the oldest retained month. @returns how many messages went. */
  runOnce(): Promise<number> {
    this.#running ??= this.#purge().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #purge(): Promise<number> {
    const { store, clock, logger, retentionMonths } = this.#deps;
    const now = clock.now();
    const before = retentionStart(now, retentionMonths);
    let total = 0;
    try {
      // Held for two intervals: this replica keeps it while it runs; a replica that stops
      // hands over after that.
      if (!(await store.jobs.take(LEASE, this.#holder, now, now + 2 * this.#deps.intervalMs))) return 0;
      const size = this.#deps.batch ?? RETENTION_BATCH;
      let caughtUp = false;
      for (let batch = 0; batch < RETENTION_BATCHES_PER_RUN && !caughtUp; batch++) {
        const removed = await store.messages.deleteBefore(before, size);
        total += removed;
        caughtUp = removed < size;
      }
      if (total > 0) logger.info({ removed: total, before }, 'retention removed old messages');
      // Ordered lanes idle since before the cutoff (#31): only once no message before it is
      // left, so a pruned lane has no delivery left that a recovery could re-open.
      let lanes = 0;
      for (let batch = 0; batch < RETENTION_BATCHES_PER_RUN && caughtUp; batch++) {
        const removed = await store.deliveries.pruneLanes(before, size);
        lanes += removed;
        if (removed < size) break;
      }
      if (lanes > 0) logger.debug({ removed: lanes, before }, 'retention removed idle ordered lanes');
      let rollups = 0;
      for (let batch = 0; batch < RETENTION_BATCHES_PER_RUN; batch++) {
        const removed = await store.endpointStats.prune(now, size);
        rollups += removed;
        if (removed < size) break;
      }
      if (rollups > 0) logger.debug({ removed: rollups }, 'retention removed old endpoint rollups');
    } catch (err) {
      logger.error({ err }, 'retention run failed');
    }
    return total;
  }
}
