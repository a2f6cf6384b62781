import { TransformerUnavailableError, tenantKey, transformationCodeSizeProblem, type Transformer, type TransformTurn } from '@wirehook/core';
import { SandboxThread } from './sandbox-thread.ts';
import { toTransformResult } from './transform-result.ts';
import type { SandboxLimits, TransformInput, TransformResult } from './transform-types.ts';

/** Options for {@link TransformRunner}; each limit applies to every run on its own. */
export interface TransformRunnerOptions {
  /** CPU time a run may take on its thread, from its start in the sandbox to its result. Default 50. */
  cpuBudgetMs?: number | undefined;
  /** The run's heap (its context and input included). Default 16 MiB; at least 1 MiB. */
  memoryLimitBytes?: number | undefined;
  /** QuickJS's stack: deeper recursion fails as InternalError. Default 256 KiB; 16 KiB to 1 MiB. */
  stackLimitBytes?: number | undefined;
  /** Sandbox threads, each running one transformation at a time; runs beyond them wait their turn (by tenant, then endpoint). Default 1. */
  threads?: number | undefined;
  /**
   * Longest a run waits for a thread; past it, or with `maxWaitingPerEndpoint` sends of its
   * endpoint (`maxWaitingPerTenant` of its tenant, `maxWaiting` in all) already waiting, it is refused with
   * TransformerUnavailableError — the caller puts its work off instead of holding what it holds
   * meanwhile. Default: no limit. Simulations are bounded apart (one per tenant) and count in neither.
   */
  maxWaitMs?: number | undefined;
  maxWaitingPerEndpoint?: number | undefined;
  maxWaitingPerTenant?: number | undefined;
  maxWaiting?: number | undefined;
  /**
   * How much CPU past its budget a run may use inside a built-in that never polls QuickJS's
   * interrupt (a long `indexOf`) before its thread is ended and replaced. Default 250: such
   * a run has failed either way; this bounds how long it holds a thread.
   */
  watchdogGraceMs?: number | undefined;
  /**
   * The longest a run may take by the wall clock while its thread is given too little CPU to
   * reach its budget (a busy machine, a pod throttled by its CPU limit): past it the run fails
   * and its thread is replaced. Default 10,000 (or twice budget + grace, where longer). Where a
   * thread's CPU time cannot be read from outside (no /proc/<tid>/schedstat: not Linux, gVisor),
   * budget + `watchdogGraceMs` of wall-clock time ends a run instead, as over its CPU budget.
   */
  wallLimitMs?: number | undefined;
}

const DEFAULTS = { cpuBudgetMs: 50, memoryLimitBytes: 16 * 2 ** 20, stackLimitBytes: 256 * 2 ** 10, threads: 1, watchdogGraceMs: 250, wallLimitMs: 10_000 };

interface Waiter {
  resolve: (thread: SandboxThread) => void;
  reject: (err: Error) => void;
  simulation: boolean;
}

/** A tenant's runs waiting for a thread, by endpoint: served one endpoint at a time in turn. */
interface TenantQueue {
  endpoints: Map<string, Waiter[]>;
  /** Its sends among them (maxWaitingPerTenant). */
  sends: number;
}

/** How long and how many runs may wait for a thread (see TransformRunnerOptions). */
interface WaitLimits {
  maxWaitMs: number;
  maxWaitingPerEndpoint: number;
  maxWaitingPerTenant: number;
  maxWaiting: number;
}

/** Runs given no turn (tests, a caller of its own) share one. */
const NO_TURN: TransformTurn = { tenant: { orgId: '' as TransformTurn['tenant']['orgId'], env: 'test' }, endpointId: '', simulation: false };

/**
 * Runs endpoint transformations (issue #45) in QuickJS sandboxes on worker threads: each run
 * in a fresh runtime with its CPU budget, memory limit and fixed clock, its data passed in and
 * out as JSON text. The event loop is never blocked by a run (only the input's JSON.stringify
 * and the output's JSON.parse happen on it); `run` answers once its thread has used the budget
 * plus `watchdogGraceMs` of CPU, or within `wallLimitMs` on a machine too busy to give it that,
 * however the code behaves — plus any wait for a free thread (or a new one starting: 150-350
 * ms, at the first run and after a thread was ended).
 */
export class TransformRunner implements Transformer {
  readonly #limits: SandboxLimits;
  readonly #threads: SandboxThread[];
  readonly #idle: SandboxThread[];
  /**
   * Runs waiting for a thread, by tenant, then by endpoint: served one tenant at a time in turn
   * and, within a tenant, one endpoint at a time. So a tenant with many runs queued (or slow
   * ones), from however many endpoints, delays another tenant's by one run at most per thread,
   * not by its whole queue nor by one run per endpoint. A Map keeps insertion order: a tenant
   * (an endpoint) served goes to the back; a tenant that begins to wait goes before the tenant
   * given a thread last (#begins), whose run is likely still in flight.
   */
  #waiting = new Map<string, TenantQueue>();
  /** The tenant given a thread last, from the idle ones or a turn. */
  #lastServed: string | undefined;
  /**
   * Tenants with a simulation in flight or waiting: one at a time each. A simulation takes its
   * tenant's turns (so never another tenant's share), and with one each, a tenant's concurrent
   * simulate calls cannot stand for many turns of its own nor fill the sends' waiting room.
   */
  readonly #simulating = new Set<string>();
  readonly #waitLimits: WaitLimits;
  /** Sends waiting (simulations are not counted: they hold no dispatcher place). */
  #waitingCount = 0;
  #closed = false;

  /** @throws RangeError for a limit out of its range. */
  constructor(options: TransformRunnerOptions = {}) {
    const cpuBudgetMs = options.cpuBudgetMs ?? DEFAULTS.cpuBudgetMs;
    const memoryLimitBytes = options.memoryLimitBytes ?? DEFAULTS.memoryLimitBytes;
    const stackLimitBytes = options.stackLimitBytes ?? DEFAULTS.stackLimitBytes;
    const threads = options.threads ?? DEFAULTS.threads;
    const watchdogGraceMs = options.watchdogGraceMs ?? DEFAULTS.watchdogGraceMs;
    if (!(cpuBudgetMs > 0 && cpuBudgetMs <= 60_000)) throw new RangeError('cpuBudgetMs must be above 0 and at most 60000');
    if (!Number.isInteger(memoryLimitBytes) || memoryLimitBytes < 2 ** 20) throw new RangeError('memoryLimitBytes must be an integer of at least 1 MiB');
    if (!Number.isInteger(stackLimitBytes) || stackLimitBytes < 16 * 2 ** 10 || stackLimitBytes > 2 ** 20) {
      throw new RangeError('stackLimitBytes must be an integer from 16 KiB to 1 MiB');
    }
    if (!Number.isInteger(threads) || threads < 1) throw new RangeError('threads must be a positive integer');
    if (!(watchdogGraceMs >= 0 && watchdogGraceMs <= 60_000)) throw new RangeError('watchdogGraceMs must be from 0 to 60000');
    // By default 10 s, or twice the budget and grace where those are longer.
    const wallLimitMs = options.wallLimitMs ?? Math.max(DEFAULTS.wallLimitMs, 2 * (cpuBudgetMs + watchdogGraceMs));
    if (!(wallLimitMs >= cpuBudgetMs + watchdogGraceMs && wallLimitMs <= 600_000)) {
      throw new RangeError('wallLimitMs must be at least cpuBudgetMs + watchdogGraceMs and at most 600000');
    }
    this.#limits = { cpuBudgetMs, memoryLimitBytes, stackLimitBytes };
    this.#waitLimits = {
      maxWaitMs: options.maxWaitMs ?? Number.POSITIVE_INFINITY,
      maxWaitingPerEndpoint: options.maxWaitingPerEndpoint ?? Number.POSITIVE_INFINITY,
      maxWaitingPerTenant: options.maxWaitingPerTenant ?? Number.POSITIVE_INFINITY,
      maxWaiting: options.maxWaiting ?? Number.POSITIVE_INFINITY,
    };
    this.#threads = Array.from({ length: threads }, () => new SandboxThread({ limits: this.#limits, watchdogGraceMs, wallLimitMs }));
    this.#idle = [...this.#threads];
  }

  /** The limits every run has. */
  get limits(): Readonly<SandboxLimits> {
    return this.#limits;
  }

  /** WebAssembly memory the sandbox threads hold: each grows to its largest run's and is not given back. */
  get wasmMemoryBytes(): number {
    return this.#threads.reduce((sum, thread) => sum + thread.memoryBytes, 0);
  }

  /**
   * Runs `code`'s `handler(webhook)` on `input`, with `Date.now()` equal to `now`. Every
   * failure of the code (syntax, exceptions, no handler, budget, memory, what it returned, code
   * over 32,768 bytes) is a result with `ok: false`, never an exception.
   * `turn`: whose turn the run waits in when every thread is busy (see #waiting); a simulation
   * is refused while its tenant has another in flight or waiting (see #simulating).
   * @throws RangeError when `now` is not a finite number; TransformerUnavailableError when the
   * runner is closed, no sandbox thread can be started, or the wait limits refuse the run
   * (nothing to do with the code).
   */
  async run(code: string, input: TransformInput, now: number, turn: TransformTurn = NO_TURN): Promise<TransformResult> {
    if (this.#closed) throw new TransformerUnavailableError('TransformRunner is closed');
    if (!Number.isFinite(now)) throw new RangeError('now must be a finite number of milliseconds since the epoch');
    const tooLong = transformationCodeSizeProblem(code);
    if (tooLong !== null) return { ok: false, error: `transformation: the code ${tooLong}` };
    // One key per tenant: its turns are shared by all its endpoints.
    const tenant = tenantKey(turn.tenant);
    if (turn.simulation) {
      if (this.#simulating.has(tenant)) throw new TransformerUnavailableError("this tenant's previous simulation is still running (one at a time)");
      this.#simulating.add(tenant);
    }
    try {
      return await this.#runOnThread(code, input, now, tenant, turn);
    } finally {
      if (turn.simulation) this.#simulating.delete(tenant);
    }
  }

  async #runOnThread(code: string, input: TransformInput, now: number, tenant: string, turn: TransformTurn): Promise<TransformResult> {
    // Only these four fields, as text: no host object (nor its prototype) reaches the sandbox.
    const inputJson = JSON.stringify({ event_type: input.event_type, payload: input.payload, headers: input.headers, url: input.url });
    const idle = this.#idle.pop();
    if (idle !== undefined) this.#lastServed = tenant;
    const thread = idle ?? (await this.#waitForThread(tenant, turn));
    try {
      return toTransformResult(await thread.run({ code, inputJson, now }), input);
    } catch (err) {
      // Not the code's failure (those are results): the thread would not start, or was closed.
      if (err instanceof TransformerUnavailableError) throw err;
      throw new TransformerUnavailableError(`the sandbox failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    } finally {
      const next = this.#nextWaiter();
      if (next) next.resolve(thread);
      else this.#idle.push(thread);
    }
  }

  /** A thread once one is free and it is the run's turn; refused past the wait limits (TransformerUnavailableError). */
  #waitForThread(tenant: string, turn: TransformTurn): Promise<SandboxThread> {
    const { maxWaitMs, maxWaitingPerEndpoint, maxWaitingPerTenant, maxWaiting } = this.#waitLimits;
    const tenantQueue = this.#waiting.get(tenant) ?? { endpoints: new Map<string, Waiter[]>(), sends: 0 };
    const queue = tenantQueue.endpoints.get(turn.endpointId) ?? [];
    const sendsOfEndpoint = queue.filter((waiter) => !waiter.simulation).length;
    // The tenant's own cap as well as the shared one: else one tenant's many endpoints could
    // fill the waiting room, and every other tenant's send would be refused at once.
    const full = sendsOfEndpoint >= maxWaitingPerEndpoint || tenantQueue.sends >= maxWaitingPerTenant || this.#waitingCount >= maxWaiting;
    if (!turn.simulation && full) {
      const counts = `${sendsOfEndpoint} runs of this endpoint waiting, ${tenantQueue.sends} of its tenant, ${this.#waitingCount} in all`;
      return Promise.reject(new TransformerUnavailableError(`every sandbox thread is busy (${counts})`));
    }
    return new Promise<SandboxThread>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        resolve: (thread) => {
          clearTimeout(timer);
          resolve(thread);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
        simulation: turn.simulation,
      };
      if (Number.isFinite(maxWaitMs)) {
        timer = setTimeout(() => {
          if (!this.#forget(tenant, turn.endpointId, waiter)) return;
          reject(new TransformerUnavailableError(`no sandbox thread was free within ${maxWaitMs} ms`));
        }, maxWaitMs);
        timer.unref();
      }
      queue.push(waiter);
      if (!waiter.simulation) this.#countSend(tenantQueue, +1);
      tenantQueue.endpoints.set(turn.endpointId, queue);
      if (this.#waiting.has(tenant)) this.#waiting.set(tenant, tenantQueue);
      else this.#begins(tenant, tenantQueue);
    });
  }

  /** Takes `waiter` out of its endpoint's queue: false when it was no longer waiting. */
  #forget(tenant: string, endpointId: string, waiter: Waiter): boolean {
    const tenantQueue = this.#waiting.get(tenant);
    const queue = tenantQueue?.endpoints.get(endpointId);
    const at = queue?.indexOf(waiter) ?? -1;
    if (tenantQueue === undefined || queue === undefined || at < 0) return false;
    queue.splice(at, 1);
    if (!waiter.simulation) this.#countSend(tenantQueue, -1);
    if (queue.length === 0) tenantQueue.endpoints.delete(endpointId);
    if (tenantQueue.endpoints.size === 0) this.#waiting.delete(tenant);
    return true;
  }

  /** One send more (+1) or fewer (-1) waiting, of `tenantQueue`'s tenant and in all. */
  #countSend(tenantQueue: TenantQueue, change: 1 | -1): void {
    tenantQueue.sends += change;
    this.#waitingCount += change;
  }

  /**
   * `tenant` begins to wait: its turn comes before that of the tenant given a thread last, when
   * that one waits again already (it went to the back as it was served), after every other's.
   * Round-robin counted from its arrival: the tenant served last has had its turn, its run likely
   * still in flight — appended behind it, a newcomer waited for that run and the next one too,
   * two of a tenant's ~300 ms thread-ending runs, past a send's 1 s wait.
   */
  #begins(tenant: string, tenantQueue: TenantQueue): void {
    const last = this.#lastServed;
    const order = [...this.#waiting.keys()];
    if (last === undefined || order[order.length - 1] !== last) {
      this.#waiting.set(tenant, tenantQueue);
      return;
    }
    const entries = [...this.#waiting];
    entries.splice(entries.length - 1, 0, [tenant, tenantQueue]);
    this.#waiting = new Map(entries);
  }

  /** The first waiter of the tenant whose turn it is, of its endpoint whose turn it is; both go to the back of their turns. */
  #nextWaiter(): Waiter | undefined {
    const first = this.#waiting.entries().next();
    if (first.done) return undefined;
    const [tenant, tenantQueue] = first.value;
    this.#waiting.delete(tenant);
    this.#lastServed = tenant;
    const [endpointId, queue] = tenantQueue.endpoints.entries().next().value!;
    const waiter = queue.shift()!;
    if (!waiter.simulation) this.#countSend(tenantQueue, -1);
    tenantQueue.endpoints.delete(endpointId);
    if (queue.length > 0) tenantQueue.endpoints.set(endpointId, queue);
    if (tenantQueue.endpoints.size > 0) this.#waiting.set(tenant, tenantQueue);
    return waiter;
  }

  /** Ends the sandbox threads. Runs in flight or waiting are rejected; later runs throw. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const tenantQueue of this.#waiting.values()) {
      for (const queue of tenantQueue.endpoints.values())
        for (const waiter of queue) waiter.reject(new TransformerUnavailableError('TransformRunner is closed'));
    }
    this.#waiting.clear();
    this.#waitingCount = 0;
    await Promise.all(this.#threads.map((thread) => thread.close()));
  }
}
