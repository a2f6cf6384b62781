// An idle-rate caller of the API (issue 30: "the API's p99 at an idle-rate probe stays within
// 2× its idle value while the service delivers at its maximum rate"): another org's GET of its
// event types, PROBE_PER_SECOND a second, from a thread of its own, each latency kept with
// the time it started so a phase's p99 can be taken afterwards.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import { startThread } from '@wirehook/core';
import { percentile, round } from '../report/stats.ts';
import { nowMs } from './send-messages.ts';

/** Probes a second: an idle rate, well under any plan's limit. */
export const PROBE_PER_SECOND = 50;

interface Sample {
  /** Start (Unix ms). */
  at: number;
  ms: number;
  ok: boolean;
}

export class ApiProbe {
  readonly #worker: Worker;
  readonly #samples: Sample[] = [];
  readonly #exited: Promise<void>;
  #error: Error | undefined;
  #stopping = false;

  /** `startAt`: the first probe's time (Unix ms), the others on slots from it (two probes side by side half a slot apart stay so). */
  constructor(apiUrl: string, key: string, { perSecond = PROBE_PER_SECOND, startAt = nowMs() }: { perSecond?: number; startAt?: number } = {}) {
    this.#worker = startThread(new URL('./api-probe-worker.ts', import.meta.url), { workerData: { apiUrl, key, perSecond, startAt } });
    this.#worker.on('message', (s: Sample) => this.#samples.push(s));
    this.#worker.unref(); // a bench that fails before stop() still exits
    // A thread that failed or ended before stop() makes every later window throw: a probe
    // that no longer runs must not pass for one that saw no failure.
    this.#exited = new Promise((resolve) => {
      this.#worker.once('error', (err) => {
        this.#error ??= err;
      });
      this.#worker.once('exit', () => {
        if (!this.#stopping) this.#error ??= new Error('the API probe’s thread ended');
        resolve();
      });
    });
  }

  /**
   * The p99 (ms) of the answered probes that started in [from, to) (Unix ms), their count,
   * and the probes that got no 200 (not in the p99: a quick refusal would flatter it; the
   * report checks that there are none).
   */
  window(from: number, to: number): { p99: number | null; count: number; failed: number } {
    if (this.#error) throw this.#error;
    const inside = this.#samples.filter((s) => s.at >= from && s.at < to);
    const p99 = percentile(
      inside.filter((s) => s.ok).map((s) => s.ms),
      99,
    );
    return { p99: p99 === null ? null : round(p99), count: inside.length, failed: inside.filter((s) => !s.ok).length };
  }

  /**
   * The window from `from` to `to` (Unix ms; default now), extended until at least one probe
   * has started in it (a run shorter than the probes' interval — the smoke run's — still gets
   * its figure).
   */
  async windowOf(from: number, to?: number): Promise<{ p99: number | null; count: number; failed: number }> {
    const deadline = Date.now() + 5_000;
    for (let end = to ?? nowMs(); ; end = nowMs()) {
      const w = this.window(from, end);
      if (w.count > 0 || Date.now() > deadline) return w;
      await sleep(10);
    }
  }

  /** Ends the probing; a probe in flight is dropped (its sample was never taken). Never throws: a failure shows in window(). */
  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#worker.terminate();
    await this.#exited;
  }
}
