// The scale scenario's probe (bench/scale.ts): another organization calling the API at a
// steady pace while the calls under test run, its latencies kept in order.
import { setTimeout as sleep } from 'node:timers/promises';
import type { WirehookApi } from './http/wirehook-api.ts';
import { percentile, round } from './report/stats.ts';

/** Probes a second. */
export const PROBE_PER_SECOND = 50;

/** Another org's GET of its event types, PROBE_PER_SECOND times a second, latencies kept in order. */
export class Probe {
  readonly #api: WirehookApi;
  readonly #key: string;
  readonly #samples: number[] = [];
  /** Probes that got no answer. */
  errors = 0;
  #running = false;
  #loop: Promise<void> | undefined;

  constructor(api: WirehookApi, key: string) {
    this.#api = api;
    this.#key = key;
  }

  start(): void {
    this.#running = true;
    this.#loop = (async () => {
      while (this.#running) {
        const started = performance.now();
        try {
          await this.#api.expect(200, 'GET', '/v1/event-types', this.#key);
        } catch {
          // A keep-alive connection the server closed as it was reused: counted, and the
          // time it took stays in the samples (the probe saw that latency).
          this.errors++;
        }
        this.#samples.push(performance.now() - started);
        await sleep(Math.max(0, 1000 / PROBE_PER_SECOND - (performance.now() - started)));
      }
    })();
  }

  mark(): number {
    return this.#samples.length;
  }

  p99Since(mark: number): number | null {
    const p = percentile(this.#samples.slice(mark), 99);
    return p === null ? null : round(p);
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
  }
}
