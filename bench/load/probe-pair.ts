// The API probe and its control side by side (docs/benchmarks.md, "What it measures"): an org
// of its own probes Wirehook's API, and the same probe code a bare server in a process of its
// own, in the same windows — first with Wirehook idle, then over each span measured.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchContext } from '../context.ts';
import { createTenants } from '../setup/tenants.ts';
import { ApiProbe, PROBE_PER_SECOND } from './api-probe.ts';
import { startControlServer } from './control-server.ts';
import type { ForkedServer } from './forked-server.ts';
import { nowMs } from './send-messages.ts';

type Window = Awaited<ReturnType<ApiProbe['windowOf']>>;

/** A span's probe figures, as a run record's `extra` keeps them (p99s in ms; NaN: none answered). */
export interface ProbeFigures {
  probeIdleP99: number;
  probeP99: number;
  /** Probes not answered 200: the API's, and the control's (its own check: a bare server that fails is the bench's fault). */
  probeFailed: number;
  controlProbeIdleP99: number;
  controlProbeP99: number;
  controlProbeFailed: number;
}

export class ProbePair {
  readonly #api: ApiProbe;
  readonly #control: ApiProbe;
  readonly #server: ForkedServer;
  #idle: { api: Window; control: Window } | undefined;
  /** The idle window's failures are counted once, with the first span. */
  #idleFailuresCounted = false;

  private constructor(api: ApiProbe, control: ApiProbe, server: ForkedServer) {
    this.#api = api;
    this.#control = control;
    this.#server = server;
  }

  /** Runs `work` with both probes going (started on warm connections), and stops them after, whatever it does. */
  static async around<T>(ctx: BenchContext, label: string, work: (probes: ProbePair) => Promise<T>): Promise<T> {
    const probes = await ProbePair.#start(ctx, label);
    try {
      return await work(probes);
    } finally {
      await probes.#stop();
    }
  }

  /** Starts both probes on warm connections (the first probe opens one: not a figure). */
  static async #start(ctx: BenchContext, label: string): Promise<ProbePair> {
    const [prober] = await createTenants(ctx.wirehook, 1, `${label} probe`);
    const server = await startControlServer();
    const started: ApiProbe[] = [];
    try {
      // On slots half an interval apart, so the control's requests do not land as the API's do.
      const startAt = nowMs() + 100;
      started.push(new ApiProbe(ctx.wirehook.apiUrl, prober!.key, { startAt }));
      started.push(new ApiProbe(server.url, 'control', { startAt: startAt + 500 / PROBE_PER_SECOND }));
      await Promise.all(started.map((probe) => probe.windowOf(0)));
      return new ProbePair(started[0]!, started[1]!, server);
    } catch (err) {
      await Promise.all(started.map((probe) => probe.stop()));
      await server.stop();
      throw err;
    }
  }

  /** Measures both with Wirehook idle, for `ms`. */
  async measureIdle(ms: number): Promise<void> {
    const from = nowMs();
    await sleep(ms);
    const [api, control] = await Promise.all([this.#api.windowOf(from), this.#control.windowOf(from)]);
    this.#idle = { api, control };
  }

  /** Both p99s over [from, to) (Unix ms) against the idle ones, the failures, and a line saying them for the log. */
  async measure(from: number, to: number): Promise<{ figures: ProbeFigures; summary: string }> {
    if (this.#idle === undefined) throw new Error('ProbePair.measure before measureIdle');
    const [api, control] = await Promise.all([this.#api.windowOf(from, to), this.#control.windowOf(from, to)]);
    const idle = this.#idleFailuresCounted ? { api: 0, control: 0 } : { api: this.#idle.api.failed, control: this.#idle.control.failed };
    this.#idleFailuresCounted = true;
    const figures: ProbeFigures = {
      probeIdleP99: this.#idle.api.p99 ?? Number.NaN,
      probeP99: api.p99 ?? Number.NaN,
      probeFailed: idle.api + api.failed,
      controlProbeIdleP99: this.#idle.control.p99 ?? Number.NaN,
      controlProbeP99: control.p99 ?? Number.NaN,
      controlProbeFailed: idle.control + control.failed,
    };
    const summary =
      `API probe p99 ${figures.probeP99} ms (${api.count} probes) against ${figures.probeIdleP99} ms idle; ` +
      `the control's ${figures.controlProbeP99} ms (${control.count}) against ${figures.controlProbeIdleP99} ms idle`;
    return { figures, summary };
  }

  async #stop(): Promise<void> {
    await Promise.all([this.#api.stop(), this.#control.stop()]);
    await this.#server.stop();
  }
}
