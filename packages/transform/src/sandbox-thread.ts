import type { Worker } from 'node:worker_threads';
import { startThread } from '@wirehook/core';
import type { SandboxJob, SandboxOutcome } from './run-in-quickjs.ts';
import { threadCpuMicrosOf } from './thread-cpu.ts';
import { cpuBudgetError, runBudgetMs, wallLimitError } from './transform-errors.ts';
import type { SandboxLimits } from './transform-types.ts';

/** A run sent to a sandbox thread. */
export type SandboxRequest = SandboxJob & { id: number };
/**
 * A sandbox thread's messages: ready once (with its /proc thread id, null off Linux), then one
 * answer per run (`fatal`: end the thread). Each carries the thread's CPU time when sent: the
 * next run's starting point for the watchdog (the thread does next to nothing in between).
 */
export type SandboxReply =
  | { ready: true; threadId: number | null; cpuMicros: number }
  | ({ id: number; memoryBytes: number; cpuMicros: number; fatal?: boolean } & SandboxOutcome);

/** Options for {@link SandboxThread}. */
export interface SandboxThreadOptions {
  limits: SandboxLimits;
  /** How much CPU past its budget a run may use before its thread is ended from outside. */
  watchdogGraceMs: number;
  /** The longest a run may take by the wall clock, however little CPU its thread was given. */
  wallLimitMs: number;
}

interface Running {
  id: number;
  budgetMs: number;
  /** performance.now() when the run was sent. */
  sentAt: number;
  resolve: (outcome: SandboxOutcome) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/** The watchdog's least wait between two looks at a run's CPU time. */
const WATCHDOG_MIN_RECHECK_MS = 10;
/**
 * How far the thread's CPU time read from outside at its start may be from what it said itself
 * (it idles in between): further, the reading is not to be trusted (a kernel printing zeros in
 * schedstat, an emulated /proc) and the wall clock alone decides for that thread.
 */
const CPU_READING_TOLERANCE_MICROS = 50_000;

const WORKER_MAIN = new URL('./sandbox-worker.ts', import.meta.url);
/**
 * The thread's own heap holds a run's JSON texts only (the payload ≤ 1 MB in, the code's output out).
 * Node's `--max-old-space-size` and `--max-semi-space-size` replace these caps (docs/operations.md, Memory);
 * the code's memory limit is QuickJS's, which they do not touch.
 */
const WORKER_OLD_GENERATION_MB = 64;
const WORKER_YOUNG_GENERATION_MB = 8;
/**
 * The thread's native stack for a QuickJS stack limit: QuickJS counts its frames on the
 * WebAssembly shadow stack, while each of them also takes V8's native stack, more of it than
 * the shadow stack. The parser is the greediest measured (eval of 200,000 nested parentheses):
 * a 256 KiB limit needed 6-7 MB, 1 MiB needed 20-26 MB; JSON.stringify of nested arrays,
 * recursion, regular expressions and 30 other probes less. Twice that, as 2 MB + 48 × the
 * limit (14 MB for the default 256 KiB): reserved address space, touched only when used.
 */
const NATIVE_STACK_BASE_MB = 2;
const NATIVE_STACK_PER_QUICKJS_BYTE = 48;

/**
 * One worker thread running transformations one at a time, and the caller's side of it.
 * The thread is started on the first run and again after it was ended: by the watchdog (a run
 * that has used `watchdogGraceMs` of CPU past its budget inside a built-in that never polls
 * QuickJS's interrupt, or has not finished within `wallLimitMs`), after a run that broke the
 * WebAssembly module, or when it exited on its own.
 */
export class SandboxThread {
  readonly #options: SandboxThreadOptions;
  #worker: Worker | undefined;
  #starting: Promise<Worker> | undefined;
  #running: Running | undefined;
  #nextId = 0;
  #memoryBytes = 0;
  /** The current thread's /proc id (null: its CPU time cannot be read from outside), and its CPU time at its last message. */
  #threadId: number | null = null;
  #cpuAtLastReply = 0;
  #closed = false;

  constructor(options: SandboxThreadOptions) {
    this.#options = options;
  }

  /** WebAssembly memory of the thread's QuickJS module at its last answer (it grows to a run's peak, never shrinks). */
  get memoryBytes(): number {
    return this.#worker ? this.#memoryBytes : 0;
  }

  /**
   * Runs `job`. One run at a time: the runner's queue sees to it. Resolves with the outcome,
   * failures of the code included.
   * @throws Error when the thread cannot be started, or the runner is closed meanwhile.
   */
  async run(job: SandboxJob): Promise<SandboxOutcome> {
    if (this.#running) throw new Error('SandboxThread.run: a run is already in flight');
    const worker = await this.#start();
    return new Promise((resolve, reject) => {
      if (this.#closed) return reject(new Error('TransformRunner is closed'));
      const id = ++this.#nextId;
      const budgetMs = runBudgetMs(this.#options.limits.cpuBudgetMs, job.inputJson.length);
      // The thread's CPU cannot run ahead of the wall clock: no look before budget + grace of it.
      const timer = setTimeout(() => this.#watch(worker, id), budgetMs + this.#options.watchdogGraceMs);
      this.#running = { id, budgetMs, sentAt: performance.now(), resolve, reject, timer };
      // The thread keeps the process alive only while a run waits for it.
      worker.ref();
      worker.postMessage({ id, ...job } satisfies SandboxRequest);
    });
  }

  /** Ends the thread; a run in flight is rejected. */
  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker ?? (await this.#starting?.catch(() => undefined));
    this.#worker = undefined;
    this.#finish(undefined)?.reject(new Error('TransformRunner is closed'));
    await worker?.terminate();
  }

  #start(): Promise<Worker> {
    if (this.#closed) return Promise.reject(new Error('TransformRunner is closed'));
    if (this.#worker) return Promise.resolve(this.#worker);
    this.#starting ??= new Promise<Worker>((resolve, reject) => {
      const stackSizeMb = Math.ceil(NATIVE_STACK_BASE_MB + (NATIVE_STACK_PER_QUICKJS_BYTE * this.#options.limits.stackLimitBytes) / 2 ** 20);
      const worker = startThread(WORKER_MAIN, {
        // Named, so its CPU shows apart in /proc (top -H).
        name: 'transform-sandbox',
        workerData: this.#options.limits,
        // Room on the thread's own stack for QuickJS to reach its stack limit: past the thread's
        // stack, V8 throws inside the WebAssembly and the module is lost (see NATIVE_STACK_*).
        resourceLimits: { maxOldGenerationSizeMb: WORKER_OLD_GENERATION_MB, maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB, stackSizeMb },
      });
      let ready = false;
      let lastError: Error | undefined;
      worker.on('message', (reply: SandboxReply) => {
        if ('ready' in reply) {
          ready = true;
          this.#starting = undefined;
          if (this.#closed) {
            void worker.terminate();
            return reject(new Error('TransformRunner is closed'));
          }
          this.#worker = worker;
          this.#threadId = trustedThreadId(reply);
          this.#cpuAtLastReply = reply.cpuMicros;
          if (!this.#running) worker.unref();
          resolve(worker);
        } else if (reply.id === this.#running?.id && worker === this.#worker) {
          this.#memoryBytes = reply.memoryBytes;
          this.#cpuAtLastReply = reply.cpuMicros;
          if (reply.fatal) this.#discard(worker);
          this.#finish(worker)?.resolve(reply.ok ? { ok: true, output: reply.output } : { ok: false, error: reply.error });
        }
      });
      worker.on('error', (err) => {
        lastError = err;
      });
      worker.on('exit', (code) => {
        if (!ready) {
          this.#starting = undefined;
          return reject(new Error(`the transformation sandbox thread did not start: ${lastError?.message ?? `exit code ${code}`}`, { cause: lastError }));
        }
        if (worker !== this.#worker) return;
        this.#worker = undefined;
        const why = lastError?.message ?? `exit code ${code}`;
        this.#finish(undefined)?.resolve({ ok: false, error: `transformation: the sandbox stopped while running this code (${why})` });
      });
    });
    return this.#starting;
  }

  /**
   * The watchdog, looked at once budget + grace of wall-clock time has passed: a run whose thread
   * has used that much CPU is inside a built-in that never polls the interrupt, and its thread is
   * ended. A run that has used less was waiting for a core (a busy machine, a pod throttled by its
   * CPU limit) and is looked at again when it could have used the rest — failing it would charge
   * the customer's code for the machine's load — up to `wallLimitMs`. Where the thread's CPU time
   * cannot be read (no /proc/<tid>/schedstat, a reading that fails or goes backwards) the wall
   * clock alone decides, as if it had used it all.
   */
  #watch(worker: Worker, id: number): void {
    const running = this.#running;
    if (running?.id !== id) return;
    const limitMs = running.budgetMs + this.#options.watchdogGraceMs;
    // A run's own budget can be above the runner's (its payload's JSON allowance): never less wall time than that.
    const wallLimitMs = Math.max(this.#options.wallLimitMs, limitMs);
    const now = this.#threadId === null ? null : threadCpuMicrosOf(this.#threadId);
    const usedMs = now === null || now < this.#cpuAtLastReply ? limitMs : (now - this.#cpuAtLastReply) / 1_000;
    const waitedMs = performance.now() - running.sentAt;
    if (usedMs >= limitMs) return this.#expireSoon(worker, id, cpuBudgetError(running.budgetMs));
    if (waitedMs >= wallLimitMs) return this.#expireSoon(worker, id, wallLimitError(wallLimitMs));
    const recheckMs = Math.max(WATCHDOG_MIN_RECHECK_MS, Math.min(limitMs - usedMs, wallLimitMs - waitedMs));
    running.timer = setTimeout(() => this.#watch(worker, id), recheckMs);
  }

  /**
   * Ends the run and its thread — after the answers already waiting are read: libuv runs timers
   * before it reads the threads' messages, so after the whole process was stopped (a frozen
   * cgroup, a paused VM) a run that finished meanwhile would otherwise be failed.
   */
  #expireSoon(worker: Worker, id: number, error: string): void {
    setImmediate(() => {
      if (this.#running?.id !== id) return;
      this.#discard(worker);
      this.#finish(undefined)?.resolve({ ok: false, error });
    });
  }

  #discard(worker: Worker): void {
    if (this.#worker === worker) this.#worker = undefined;
    void worker.terminate();
  }

  /** Takes the run in flight (if any), its watchdog stopped and `worker` let go of the process. */
  #finish(worker: Worker | undefined): Running | undefined {
    const running = this.#running;
    if (!running) return undefined;
    clearTimeout(running.timer);
    this.#running = undefined;
    worker?.unref();
    return running;
  }
}

/** The thread's /proc id, if what /proc says of its CPU time agrees with what it said itself at its start; else null. */
function trustedThreadId(ready: { threadId: number | null; cpuMicros: number }): number | null {
  if (ready.threadId === null) return null;
  const outside = threadCpuMicrosOf(ready.threadId);
  return outside !== null && Math.abs(outside - ready.cpuMicros) <= CPU_READING_TOLERANCE_MICROS ? ready.threadId : null;
}
