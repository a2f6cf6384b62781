import type { Worker } from 'node:worker_threads';
import { startThread, turnOutbox } from '@wirehook/core/without-schemas';
import { noResponse, tokenSendRequest, type SendRequest, type SendResult, type TokenFetch } from './http-egress.ts';

/** What the thread's HttpEgress is built from: plain data, since nothing else crosses to a worker. */
export interface EgressThreadOptions {
  /** AddressPolicy's allow-list (DELIVERY_ALLOW_HOSTS). */
  allowHosts: string;
  /** Names answered before DNS (DELIVERY_RESOLVE): the thread resolves with the system's resolver otherwise. */
  resolve: string;
  timeoutMs: number;
  connectionsPerOrigin: number;
  /** An extra trusted CA certificate (PEM); for tests. */
  ca?: string | undefined;
}

/** One send posted to the thread (in an array: the sends of one turn of the event loop), or the close. */
export type EgressCall = { id: number; request: SendRequest; encoded?: Uint8Array } | { id: number; close: true };
/** Its answer (in an array, likewise): the result, or the error a caller's bug threw (a TypeError). */
export type EgressReply = { id: number; ok: true; value: SendResult | undefined } | { id: number; ok: false; name: string; message: string };

/**
 * The egress thread could not take or finish the send: it ended, stopped answering, or is
 * being started again. Ours, not the receiver's: the dispatcher puts the delivery off without
 * an attempt (WebhookSender). Whether a send it held reached its receiver is unknown, so the
 * later one may deliver it twice: at least once, as everywhere.
 */
export class EgressUnavailableError extends Error {
  override readonly name = 'EgressUnavailableError';
  /** True when a thread held the send as it ended (it may have been the cause); false when none took it. */
  readonly held: boolean;

  constructor(message: string, options: { cause: Error; held: boolean }) {
    super(message, { cause: options.cause });
    this.held = options.held;
  }
}

/** What the thread posts once its HttpEgress is built. */
export const EGRESS_READY = 'ready';
const WORKER_MAIN = new URL('./egress-worker.ts', import.meta.url);
/**
 * A send's objects live for one send: a small young generation keeps the thread's scavenges short.
 * A `--max-semi-space-size` flag replaces it (V8 takes the flag over a thread's own limit: docs/operations.md, Memory).
 */
export const EGRESS_THREAD_YOUNG_GENERATION_MB = 8;
/** A thread that ended is started again no sooner than this: one that dies at once is not restarted at every send. */
const RESTART_DELAY_MS = 1_000;
/**
 * Bodies at least this long cross as bytes moved to the thread, not copied: a turn's sends of
 * 1 MB payloads would otherwise hold the caller's thread for the copies (and the heap for both).
 */
const MOVED_BODY_BYTES = 64 * 1024;
/**
 * Beyond HttpEgress's two limits (a connection, then the answer), how long an answer may take
 * before the thread counts as stuck: ending it fails every send it holds, so the margin is wide
 * (a busy machine's lag, a thread starting), for a thread that truly stopped.
 */
const ANSWER_MARGIN_MS = 5_000;

interface Pending {
  resolve: (value: SendResult | undefined) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
  /** Posted to the thread (false while it waits for the turn's message): a thread that ends held it. */
  posted: boolean;
}

/**
 * HttpEgress on a worker thread of its own, and the caller's side of it: the same sends, with
 * undici's parsing, TLS and the sockets' writes — and the garbage they make — off the caller's
 * thread, which in embedded mode serves the API (issue 46: the API's latency while delivering).
 * Sends posted during one turn of the event loop go in one message, as their results come back
 * (a message costs more than copying its contents). Failures stay data; a caller's bug (a
 * header undici refuses, a value that cannot cross) rejects with a TypeError, as HttpEgress throws.
 *
 * A thread that ends, or holds a send past both of HttpEgress's limits, fails the sends it held
 * with EgressUnavailableError (the thread is ended, so none is answered late); the next send a
 * second later or more starts another, and until then sends fail the same way at once.
 */
export class EgressThread {
  readonly #options: EgressThreadOptions;
  readonly #workerUrl: URL;
  readonly #restartDelayMs: number;
  readonly #answerWithinMs: number;
  readonly #pending = new Map<number, Pending>();
  #worker: Worker | undefined;
  /** Settles when the running thread says it is ready (EGRESS_READY), or ended before. */
  #ready: Promise<void> = Promise.resolve();
  #nextId = 0;
  /** The calls of this turn of the event loop, posted together once it ends (#post). */
  readonly #outbox = turnOutbox<EgressCall>((calls) => this.#post(calls));
  #closing: Promise<void> | undefined;
  /** Why the last thread ended, and until when no other is started. */
  #lost: { err: Error; until: number } | undefined;
  /** Threads started, the first included. */
  #starts = 0;

  /**
   * `workerUrl`: the thread's code (a test puts a stand-in there to end a thread mid-send);
   * `restartDelayMs`: the wait before another thread after one ended (RESTART_DELAY_MS).
   */
  constructor(options: EgressThreadOptions, test: { workerUrl?: URL; restartDelayMs?: number } = {}) {
    this.#options = options;
    this.#workerUrl = test.workerUrl ?? WORKER_MAIN;
    this.#restartDelayMs = test.restartDelayMs ?? RESTART_DELAY_MS;
    this.#answerWithinMs = 2 * options.timeoutMs + ANSWER_MARGIN_MS;
  }

  /** Starts the thread and waits until it is ready to send: a thread that cannot start fails the process's start, not its sends. */
  async start(): Promise<void> {
    if (this.#closing !== undefined) return;
    if (this.#worker === undefined) this.#start();
    await this.#ready;
  }

  /** POSTs `request` on the thread: HttpEgress.send's result. @throws TypeError as HttpEgress.send does; EgressUnavailableError. */
  async send(request: SendRequest): Promise<SendResult> {
    // Once close() began, refused as data, as HttpEgress refuses it (and no thread is started again).
    if (this.#closing !== undefined) return noResponse('connection: the egress client is closed', 0);
    return (await this.#call(this.#movable(request))) as SendResult;
  }

  fetchToken(fetch: TokenFetch): Promise<SendResult> {
    return this.send(tokenSendRequest(fetch));
  }

  /** How many threads were started (another after each that ended). */
  get starts(): number {
    return this.#starts;
  }

  /** Waits for the sends in flight (HttpEgress.close; at most as long as a send), then ends the thread. A send after fails as data. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const worker = this.#worker;
      if (worker === undefined) return;
      try {
        // A thread that dies or sticks while closing has nothing left to wait for.
        await this.#call({ close: true }).catch(() => {});
      } finally {
        await worker.terminate();
        if (this.#worker === worker) this.#worker = undefined;
      }
    })();
    return this.#closing;
  }

  #call(call: { request: SendRequest; encoded?: Uint8Array } | { close: true }): Promise<SendResult | undefined> {
    if (this.#worker === undefined && this.#lost !== undefined && performance.now() < this.#lost.until) {
      return Promise.reject(
        new EgressUnavailableError(`the egress thread is starting again: ${this.#lost.err.message}`, { cause: this.#lost.err, held: false }),
      );
    }
    const worker = this.#worker ?? this.#start();
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      if (this.#pending.size === 0) worker.ref();
      // An answer past both of the send's limits: the thread is stuck, and ended (#ended fails what it held).
      const timer = setTimeout(() => {
        if (this.#worker === worker) void this.#end(worker, new Error(`no answer within ${this.#answerWithinMs} ms`));
      }, this.#answerWithinMs);
      timer.unref();
      this.#pending.set(id, { resolve, reject, timer, posted: false });
      this.#outbox({ ...call, id } as EgressCall);
    });
  }

  /** A long body as bytes of its own, moved to the thread with its message (MOVED_BODY_BYTES). */
  #movable(request: SendRequest): { request: SendRequest; encoded?: Uint8Array } {
    if (request.body.length < MOVED_BODY_BYTES / 3) return { request };
    const encoded = new TextEncoder().encode(request.body);
    if (encoded.byteLength < MOVED_BODY_BYTES) return { request };
    return { request: { ...request, body: '' }, encoded };
  }

  #start(): Worker {
    this.#starts++;
    // Named, so its CPU shows apart in /proc (top -H, the bench's CPU by thread).
    const worker = startThread(this.#workerUrl, {
      name: 'egress',
      workerData: this.#options,
      resourceLimits: { maxYoungGenerationSizeMb: EGRESS_THREAD_YOUNG_GENERATION_MB },
    });
    let ready!: () => void;
    let notStarted!: (err: Error) => void;
    this.#ready = new Promise<void>((resolve, reject) => {
      ready = resolve;
      notStarted = (err) => reject(new Error(`the egress thread did not start: ${err.message}`, { cause: err }));
    });
    this.#ready.catch(() => {}); // awaited by start() alone
    worker.on('message', (replies: EgressReply[] | typeof EGRESS_READY) => {
      if (replies === EGRESS_READY) {
        ready();
        // The thread keeps the process alive only while it starts and while a send waits for it
        // (unref'd here, once its listeners are on: adding a 'message' listener refs it again).
        if (this.#pending.size === 0) worker.unref();
      } else for (const reply of replies) this.#settle(reply);
    });
    // An end before ready fails start() too (after it, the rejection is nothing: #ready settled).
    const ended = (err: Error) => {
      notStarted(err);
      this.#ended(worker, err);
    };
    worker.on('error', ended);
    worker.on('exit', (code) => ended(new Error(`the egress thread exited (code ${code})`)));
    // An answer that could not be read: which send it was is unknown, so the thread goes (and its sends with it).
    worker.on('messageerror', (err) => void this.#end(worker, err));
    this.#worker = worker;
    return worker;
  }

  /** Posts a turn's calls to the thread, but those a thread that ended meanwhile has failed (#ended). */
  #post(outbox: EgressCall[]): void {
    const calls = outbox.filter((call) => this.#pending.has(call.id));
    const worker = this.#worker;
    if (calls.length === 0 || worker === undefined) return;
    for (const call of calls) this.#pending.get(call.id)!.posted = true;
    try {
      worker.postMessage(calls, movedOf(calls));
    } catch {
      // A value that cannot cross (a caller's bug): each call alone, so only its own fails.
      for (const call of calls) {
        try {
          worker.postMessage([call], movedOf([call]));
        } catch (err) {
          this.#settle({ id: call.id, ok: false, name: 'TypeError', message: `cannot send: ${(err as Error).message}` });
        }
      }
    }
  }

  #settle(reply: EgressReply): void {
    const call = this.#pending.get(reply.id);
    if (!call) return;
    this.#pending.delete(reply.id);
    clearTimeout(call.timer);
    if (this.#pending.size === 0) this.#worker?.unref();
    if (reply.ok) call.resolve(reply.value);
    else call.reject(reply.name === 'TypeError' ? new TypeError(reply.message) : new Error(reply.message));
  }

  /** Ends `worker` for `err`: its sends fail now, not when it has exited. */
  async #end(worker: Worker, err: Error): Promise<void> {
    this.#ended(worker, err);
    await worker.terminate();
  }

  /** The thread ended (or is being ended): what it held, and what waited to go to it, fails, and no other starts for a while. */
  #ended(worker: Worker, err: Error): void {
    if (worker !== this.#worker) return;
    this.#worker = undefined;
    this.#lost = { err, until: performance.now() + this.#restartDelayMs };
    // Calls not yet posted never reached the thread: it did not hold them (they cannot have caused its end).
    const calls = [...this.#pending.values()];
    this.#pending.clear();
    for (const call of calls) {
      clearTimeout(call.timer);
      const held = call.posted;
      const message = held ? `the egress thread ended during the send: ${err.message}` : `the egress thread ended before the send: ${err.message}`;
      call.reject(new EgressUnavailableError(message, { cause: err, held }));
    }
  }
}

/** The long bodies' bytes of `calls`, moved with the message that carries them (MOVED_BODY_BYTES). */
function movedOf(calls: readonly EgressCall[]): ArrayBuffer[] {
  return calls.flatMap((call) => ('encoded' in call && call.encoded !== undefined ? [call.encoded.buffer as ArrayBuffer] : []));
}
