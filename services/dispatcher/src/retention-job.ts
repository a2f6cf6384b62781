import { retentionStart, type Clock } from '@wirehook/core';
import type { Component, Logger } from '@wirehook/platform';
import type { Store } from '@wirehook/store';

const BATCH = 1_000;

export interface RetentionJobDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Months kept, the current one included. */
  retentionMonths: number;
  /** How often the job runs. */
  intervalMs: number;
}

/** Removes messages (with deliveries and attempts) older than the retention window, periodically. */
export class RetentionJob implements Component {
  readonly name = 'retention';
  readonly #deps: RetentionJobDeps;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | undefined;

  constructor(deps: RetentionJobDeps) {
    this.#deps = deps;
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
    const before = retentionStart(clock.now(), retentionMonths);
    let total = 0;
    try {
      for (;;) {
        const removed = await store.messages.deleteBefore(before, BATCH);
        total += removed;
        if (removed < BATCH) break;
      }
      if (total > 0) logger.info({ removed: total, before }, 'retention removed old messages');
    } catch (err) {
      logger.error({ err }, 'retention run failed');
    }
    return total;
  }
}
