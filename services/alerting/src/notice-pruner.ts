import { type Clock, PacedRun } from '@wirehook/core';
import type { Logger } from '@wirehook/platform';
import type { Store } from '@wirehook/store';

/** How long done notices and notice tries are kept: 30 days of a target's history (as MongoDB's TTL index on tries). */
export const NOTICE_HISTORY_KEPT_MS = 30 * 24 * 60 * 60_000;
/** Rows of each kind one batch removes (one store transaction: short, like the retention job's). */
export const NOTICE_PRUNE_BATCH = 250;
/** How often (by the clock) a pruning run starts. */
export const NOTICE_PRUNE_EVERY_MS = 60 * 60_000;
/** Batches one run removes at most (a bound for a run that never catches up). */
const BATCHES_PER_RUN = 10_000;
/** The share of time a run spends deleting, as the retention job's (RETENTION_DUTY): it rests three times a batch's time after each. */
const DUTY = 0.25;

/**
 * Removes done notices and notice tries older than NOTICE_HISTORY_KEPT_MS at the retention
 * job's pace (a batch, then a rest three times as long), on its own: ticks never wait for it.
 * A store with TTL indexes (MongoDB) removes nothing here.
 */
export class NoticePruner {
  readonly #o: { store: Store; clock: Clock; logger: Logger; rest: (ms: number) => Promise<void> };
  readonly #paced: PacedRun;

  constructor(options: { store: Store; clock: Clock; logger: Logger; rest?: (ms: number) => Promise<void> }) {
    this.#o = { ...options, rest: options.rest ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms).unref())) };
    this.#paced = new PacedRun(
      NOTICE_PRUNE_EVERY_MS,
      (now) => this.run(now),
      (err) => this.#o.logger.warn({ err }, 'alerting: pruning old notices failed; the next run tries again'),
    );
  }

  /** Starts a run when one is due and none is going; does not wait for it. */
  maybeRun(): void {
    this.#paced.maybeStart(this.#o.clock.now());
  }

  /** One run: batches until fewer than a batch's rows went. @returns when it ended. */
  async run(now: number): Promise<void> {
    const before = now - NOTICE_HISTORY_KEPT_MS;
    for (let i = 0; i < BATCHES_PER_RUN && !this.#paced.stopped; i++) {
      const started = performance.now();
      const removed = await this.#o.store.alerts.pruneNotices(before, before, NOTICE_PRUNE_BATCH);
      if (removed < NOTICE_PRUNE_BATCH) return;
      await this.#o.rest((performance.now() - started) * ((1 - DUTY) / DUTY));
    }
  }

  /** Stops after the batch going on. */
  async stop(): Promise<void> {
    await this.#paced.stop();
  }
}
