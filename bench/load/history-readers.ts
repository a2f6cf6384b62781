// Callers reading one organisation's largest delivery history in a loop (issue 40: "six
// callers read the largest delivery history"), on a thread of their own (history-readers-worker.ts).
import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { startThread } from '@wirehook/core';

/**
 * At most this many reads a second per caller: six together make 14,400 a minute, under the
 * Business plan's 20,000 per environment with room for the organisation's other calls. More
 * would be answered 429 — cheap answers that would flatter Wirehook — and counted as failed.
 */
export const READS_PER_SECOND_PER_CALLER = 40;

/** What the readers did between start and stop. */
export interface ReadsDone {
  /** Reads answered 200, and over how many seconds. */
  reads: number;
  seconds: number;
  /** The other answers by status (0: no answer). */
  failed: Record<string, number>;
  /** Latency of the reads answered 200, ms. */
  latencyMs: { p50: number; p99: number; max: number } | null;
}

export class HistoryReaders {
  readonly #worker: Worker;
  readonly #done: Promise<ReadsDone>;
  readonly #reading: Promise<unknown>;

  /** Starts `callers` readers of `paths` (in turn) with `key`; {@link started} resolves once each has read once. */
  constructor(apiUrl: string, key: string, paths: string[], callers: number) {
    this.#worker = startThread(new URL('./history-readers-worker.ts', import.meta.url), {
      workerData: { apiUrl, key, paths, callers, perCaller: READS_PER_SECOND_PER_CALLER },
    });
    this.#worker.unref(); // a bench that fails before stop() still exits
    const failed = once(this.#worker, 'error').then(([err]) => Promise.reject(err as Error));
    const message = (type: string) =>
      new Promise<any>((resolve) => {
        const on = (m: { type: string }) => {
          if (m.type !== type) return;
          this.#worker.off('message', on);
          resolve(m);
        };
        this.#worker.on('message', on);
      });
    this.#reading = Promise.race([message('reading'), failed]);
    this.#done = Promise.race([message('done'), failed]).then(({ reads, seconds, failed, latencyMs }) => ({ reads, seconds, failed, latencyMs }));
    // Either may be left unawaited when the other settles first.
    this.#reading.catch(() => undefined);
    this.#done.catch(() => undefined);
  }

  /** Resolves when every caller has read once; rejects if the thread failed. */
  started(): Promise<unknown> {
    return this.#reading;
  }

  /** Stops the callers after their read in flight; what they did. */
  async stop(): Promise<ReadsDone> {
    this.#worker.postMessage('stop');
    try {
      return await this.#done;
    } finally {
      await this.#worker.terminate();
    }
  }
}
