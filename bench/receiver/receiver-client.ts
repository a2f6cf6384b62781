import { fork, type ChildProcess } from 'node:child_process';
import { testCa, type TestCa } from '@wirehook/testkit';
import type { AnswerTimes, HarnessMessage, ReceiverMessage, ReceiverStats, RouteMode, RouteSpec } from './protocol.ts';

/**
 * How the receiver starts. It listens on port 8443 (endpoint URLs may use 443 or 8443) of a
 * loopback address of its own, 127.0.1.N, drawn until one is free, and is reached by the name
 * bN.receiver.wirehook.test — in the test certificate (*.receiver.wirehook.test) and mapped to
 * its address through Wirehook's DELIVERY_RESOLVE. So two benches, or a bench and the test
 * suite's receivers (127.0.0.N), never wait for each other's address.
 */
export interface ReceiverOptions {
  /** Extra node flags for the receiver process (e.g. --cpu-prof). */
  execArgv?: string[];
}

/** The port every bench receiver listens on (one the endpoint URL rules allow). */
const PORT = 8443;
/** Addresses drawn before giving up: each is taken only by another receiver of this machine. */
const ADDRESS_TRIES = 64;

type Request = HarnessMessage extends infer M ? (M extends { seq: number } ? Omit<M, 'seq'> : never) : never;

const RECEIVER_MAIN = new URL('./receiver-process.ts', import.meta.url);

/** The harness's handle on the receiver process: routes, modes and counters over IPC. */
export class BenchReceiver {
  readonly ca: TestCa;
  readonly port = PORT;
  /** N of its address, once it listens. */
  #n = 0;
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, (reply: ReceiverMessage) => void>();
  #seq = 0;

  private constructor(child: ChildProcess, ca: TestCa) {
    this.#child = child;
    this.ca = ca;
    child.on('message', (reply: ReceiverMessage) => {
      this.#pending.get(reply.seq)?.(reply);
      this.#pending.delete(reply.seq);
    });
  }

  /** Forks the receiver and makes it listen on a free loopback address of its own. */
  static async start(options: ReceiverOptions = {}): Promise<BenchReceiver> {
    const ca = await testCa();
    const child = fork(RECEIVER_MAIN, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: options.execArgv ?? [] });
    const receiver = new BenchReceiver(child, ca);
    for (let tries = 1; ; tries++) {
      const n = 1 + Math.floor(Math.random() * 254);
      const ip = `127.0.1.${n}`;
      const reply = await receiver.#call({ type: 'listen', host: ip, port: PORT, keyPem: ca.keyPem, certPem: ca.certPem });
      if (reply.type === 'ok') {
        receiver.#n = n;
        return receiver;
      }
      if (reply.type === 'error' && reply.code === 'EADDRINUSE' && tries < ADDRESS_TRIES) continue;
      child.kill();
      throw new Error(`receiver could not listen on ${ip}:${PORT}: ${reply.type === 'error' ? reply.message : reply.type}`);
    }
  }

  /** The loopback address it listens on (`127.0.1.N`). */
  get ip(): string {
    return `127.0.1.${this.#n}`;
  }

  /** The name endpoint URLs use (`bN.receiver.wirehook.test`). */
  get host(): string {
    return `b${this.#n}.receiver.wirehook.test`;
  }

  get pid(): number {
    return this.#child.pid!;
  }

  /** `https://bN.receiver.wirehook.test:8443` */
  get origin(): string {
    return `https://${this.host}:${this.port}`;
  }

  /** What Wirehook needs to reach it: the name mapped to the address, and the address allowed. */
  get wirehookEnv(): { DELIVERY_RESOLVE: string; DELIVERY_ALLOW_HOSTS: string } {
    return { DELIVERY_RESOLVE: `${this.host}:${this.ip}`, DELIVERY_ALLOW_HOSTS: this.ip };
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
