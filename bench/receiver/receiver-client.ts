import { fork, type ChildProcess } from 'node:child_process';
import { testCa, type TestCa } from '@wirehook/testkit';
import type { AnswerTimes, HarnessMessage, ReceiverMessage, ReceiverStats, RouteMode, RouteSpec } from './protocol.ts';

/** Where the receiver listens. The test certificate covers 127.0.0.1 (and `localhost`). */
export interface ReceiverOptions {
  host: string;
  /** Endpoint URLs must use 443 or 8443. */
  port: number;
  /** How long to wait for the address to be free (another bench holding it). */
  waitForAddressMs: number;
  /** Extra node flags for the receiver process (e.g. --cpu-prof). */
  execArgv?: string[];
}

type Request = HarnessMessage extends infer M ? (M extends { seq: number } ? Omit<M, 'seq'> : never) : never;

const RECEIVER_MAIN = new URL('./receiver-process.ts', import.meta.url);

/** The harness's handle on the receiver process: routes, modes and counters over IPC. */
export class BenchReceiver {
  readonly ca: TestCa;
  readonly host: string;
  readonly port: number;
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, (reply: ReceiverMessage) => void>();
  #seq = 0;

  private constructor(child: ChildProcess, ca: TestCa, host: string, port: number) {
    this.#child = child;
    this.ca = ca;
    this.host = host;
    this.port = port;
    child.on('message', (reply: ReceiverMessage) => {
      this.#pending.get(reply.seq)?.(reply);
      this.#pending.delete(reply.seq);
    });
  }

  /** Forks the receiver and makes it listen, waiting while another process holds the address. */
  static async start(options: ReceiverOptions): Promise<BenchReceiver> {
    const ca = await testCa();
    const child = fork(RECEIVER_MAIN, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: options.execArgv ?? [] });
    const receiver = new BenchReceiver(child, ca, options.host, options.port);
    const deadline = Date.now() + options.waitForAddressMs;
    let warned = false;
    for (;;) {
      const reply = await receiver.#call({ type: 'listen', host: options.host, port: options.port, keyPem: ca.keyPem, certPem: ca.certPem });
      if (reply.type === 'ok') return receiver;
      if (reply.type === 'error' && reply.code === 'EADDRINUSE' && Date.now() < deadline) {
        if (!warned) process.stderr.write(`bench: ${options.host}:${options.port} is in use (another bench?); waiting…\n`);
        warned = true;
        await new Promise((resolve) => setTimeout(resolve, 250));
        continue;
      }
      child.kill();
      throw new Error(`receiver could not listen on ${options.host}:${options.port}: ${reply.type === 'error' ? reply.message : reply.type}`);
    }
  }

  get pid(): number {
    return this.#child.pid!;
  }

  /** `https://host:port` */
  get origin(): string {
    return `https://${this.host}:${this.port}`;
  }

  /** The URL of a route, for an endpoint. */
  url(routeId: string): string {
    return `${this.origin}/r/${routeId}`;
  }

  async addRoutes(routes: RouteSpec[]): Promise<void> {
    await this.#call({ type: 'routes', routes });
  }

  async setMode(ids: string[], mode: RouteMode): Promise<void> {
    await this.#call({ type: 'mode', ids, mode });
  }

  /** Answers 500 to every webhook carrying one of these `webhook-ordering-key`s (none: `[]`). */
  async failKeys(keys: string[]): Promise<void> {
    await this.#call({ type: 'failKeys', keys });
  }

  /** Makes routes answer as a receiver of fixed capacity: 429 above `capacity` in flight each, else 200 after `serviceMs`. */
  async setCapacity(ids: string[], capacity: number, serviceMs: number): Promise<void> {
    await this.#call({ type: 'capacity', ids, capacity, serviceMs });
  }

  /** When a group's requests were answered since the last reset (`capacity` routes only). */
  async times(group: string): Promise<AnswerTimes> {
    const reply = await this.#call({ type: 'times', group });
    if (reply.type !== 'times') throw new Error('receiver: unexpected reply to times');
    return reply.times;
  }

  /** Counters since the last reset; with `latency`, percentiles too (sorts every sample: ask once per run). */
  async stats(latency = false): Promise<ReceiverStats> {
    const reply = await this.#call({ type: 'stats', latency });
    if (reply.type !== 'stats') throw new Error('receiver: unexpected reply to stats');
    return reply.stats;
  }

  /** Forgets every counter and which webhook-ids were seen. */
  async reset(): Promise<void> {
    await this.#call({ type: 'reset' });
  }

  /**
   * Polls the counters until `done` says so; throws after `timeoutMs` with what arrived.
   * @returns the last counters.
   */
  async waitFor(done: (stats: ReceiverStats) => boolean, timeoutMs: number, what: string): Promise<ReceiverStats> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const stats = await this.stats();
      if (done(stats)) return stats;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}: ${JSON.stringify(stats)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Stops the receiver process (it exits when the IPC channel closes). */
  async close(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.#child.once('exit', resolve));
    this.#child.disconnect();
    await exited;
  }

  #call(message: Request): Promise<ReceiverMessage> {
    const seq = ++this.#seq;
    return new Promise((resolve, reject) => {
      this.#pending.set(seq, resolve);
      this.#child.send({ ...message, seq } as HarnessMessage, (err) => {
        if (err) {
          this.#pending.delete(seq);
          reject(err);
        }
      });
    });
  }
}
