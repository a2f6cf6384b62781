import { type Clock, within } from '@wirehook/core';
import { type Component, type Logger, OutageLog } from '@wirehook/platform';
import type { Store } from '@wirehook/store';

/** How often a dispatcher offers to count the store's backlog (MongoDB: BACKLOG_COUNT_EVERY_MS, the count's lease). */
export const BACKLOG_COUNT_INTERVAL_MS = 15_000;
/** How long stop() waits for a count under way (one held up by a pool or a failover must not hold the shutdown). */
export const STOP_WAIT_MS = 1_000;

export interface BacklogCountJobDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
}

/**
 * Counts the store-wide backlog for the metrics off their scrapes, where the store shares one
 * count among its processes (DeliveryRepo.countBacklog: MongoDB; one process of all counts each
 * interval, by the store's lease): a scrape then reads that count, one point read. One run at a
 * time; a run still going at the next tick skips it. Nothing to do for a store without it
 * (SQLite: embedded mode's one process counts at its scrape, on its reader thread).
 */
export class BacklogCountJob implements Component {
  readonly name = 'backlog-count';
  readonly #deps: BacklogCountJobDeps;
  /** A count that keeps failing (a database down fails every tick): its first failure, a summary every 30 s, the recovery. */
  readonly #outage: OutageLog;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(deps: BacklogCountJobDeps) {
    this.#deps = deps;
    this.#outage = new OutageLog({
      logger: deps.logger,
      clock: deps.clock,
      what: 'the backlog could not be counted',
      deferred: 'counts failed',
      consequence: 'the gauges read NaN once the last count is 60 s old',
    });
  }

  async start(): Promise<void> {
    if (this.#deps.store.deliveries.countBacklog === undefined) return;
    this.#timer = setInterval(() => void this.runOnce(), BACKLOG_COUNT_INTERVAL_MS);
    this.#timer.unref();
    void this.runOnce();
  }

  /** Stops the timer; waits for a count under way STOP_WAIT_MS at most (a count may be thrown away: it is shared, not owed). */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    if (this.#running === undefined) return;
    await within(this.#running, STOP_WAIT_MS, () => new Error('the count goes on')).catch(() => {});
  }

  /** One offer to count (the run under way, if one is). */
  runOnce(): Promise<void> {
    const count = this.#deps.store.deliveries.countBacklog;
    if (count === undefined) return Promise.resolve();
    this.#running ??= count
      .call(this.#deps.store.deliveries, this.#deps.clock.now())
      .then(
        () => this.#outage.succeeded(),
        (err: unknown) => this.#outage.failed(err),
      )
      .finally(() => (this.#running = undefined));
    return this.#running;
  }
}
