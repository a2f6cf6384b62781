import { Worker } from 'node:worker_threads';
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
export type EgressCall = { id: number; request: SendRequest } | { id: number; close: true };
/** Its answer (in an array, likewise): the result, or the error a caller's bug threw (a TypeError). */
export type EgressReply = { id: number; ok: true; value: SendResult | undefined } | { id: number; ok: false; name: string; message: string };

const WORKER_MAIN = new URL('./egress-worker.ts', import.meta.url);
/** A send's objects live for one send: a small young generation keeps the thread's scavenges short. */
const WORKER_YOUNG_GENERATION_MB = 8;

interface Pending {
  resolve: (value: SendResult | undefined) => void;
  reject: (err: Error) => void;
}

/**
 * HttpEgress on a worker thread of its own, and the caller's side of it: the same sends, with
 * undici's parsing, TLS and the sockets' writes — and the garbage they make — off the caller's
 * thread, which in embedded mode serves the API (issue 46: the API's latency while delivering).
 * Sends posted during one turn of the event loop go in one message, as their results come back
 * (a message costs more than copying its contents). Failures stay data; a caller's bug (a
 * header undici refuses) rejects with a TypeError, as HttpEgress throws it.
 *
 * A thread that dies (a fault of ours, not the receiver's) rejects the sends it held — the
 * dispatcher records each as an `internal` attempt and retries it, as with any bug of ours —
 * and the next send starts a new one. Whether a lost send reached its receiver is unknown,
 * so the retry may deliver it twice: at least once, as everywhere.
 */
export class EgressThread {
  readonly #options: EgressThreadOptions;
  readonly #workerUrl: URL;
  readonly #pending = new Map<number, Pending>();
  #worker: Worker | undefined;
  #nextId = 0;
  #outbox: EgressCall[] = [];
  #closing: Promise<void> | undefined;
  /** Threads started, the first included (a test reads it after killing one). */
  #starts = 0;

  /** `workerUrl`: the thread's code; a test puts a stand-in there to end a thread mid-send. */
  constructor(options: EgressThreadOptions, workerUrl: URL = WORKER_MAIN) {
    this.#options = options;
    this.#workerUrl = workerUrl;
  }

  /** POSTs `request` on the thread: HttpEgress.send's result. @throws TypeError as HttpEgress.send does. */
  async send(request: SendRequest): Promise<SendResult> {
    // After close(), refused as data, as HttpEgress refuses it (and no thread is started again).
    if (this.#closing !== undefined && this.#worker === undefined) return noResponse('connection: the egress client is closed', 0);
    return (await this.#call({ request })) as SendResult;
  }

  fetchToken(fetch: TokenFetch): Promise<SendResult> {
    return this.send(tokenSendRequest(fetch));
  }

  /** How many threads were started (a new one after each that died). */
  get starts(): number {
    return this.#starts;
  }

  /** The running thread's id (tests end it to show a lost thread is replaced); undefined before the first send. */
  get threadId(): number | undefined {
    return this.#worker?.threadId;
  }

  /** Waits for the sends in flight (HttpEgress.close), then ends the thread. A send begun after fails as data. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const worker = this.#worker;
      if (worker === undefined) return;
      try {
        // A thread that dies while closing has nothing left to wait for.
        await this.#call({ close: true }).catch(() => {});
      } finally {
        await worker.terminate();
        if (this.#worker === worker) this.#worker = undefined;
      }
    })();
    return this.#closing;
  }

  #call(call: { request: SendRequest } | { close: true }): Promise<SendResult | undefined> {
    const worker = this.#worker ?? this.#start();
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      if (this.#pending.size === 0) worker.ref();
      this.#pending.set(id, { resolve, reject });
      if (this.#outbox.length === 0) setImmediate(() => this.#flush());
      this.#outbox.push({ ...call, id } as EgressCall);
    });
  }

  #start(): Worker {
    this.#starts++;
    // Named, so its CPU shows apart in /proc (top -H, the bench's CPU by thread).
    const worker = new Worker(this.#workerUrl, {
      name: 'egress',
      workerData: this.#options,
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    });
    // The thread keeps the process alive only while a send waits for it.
    worker.unref();
    worker.on('message', (replies: EgressReply[]) => {
      for (const reply of replies) this.#settle(reply);
    });
    const lost = (err: Error) => this.#lost(worker, err);
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the egress thread exited (code ${code})`)));
    this.#worker = worker;
    return worker;
  }

  #flush(): void {
    const calls = this.#outbox;
    this.#outbox = [];
    // Empty when the thread died meanwhile (#lost rejected its calls) and a new one took the next.
    if (calls.length > 0) this.#worker?.postMessage(calls);
  }

  #settle(reply: EgressReply): void {
    const call = this.#pending.get(reply.id);
    if (!call) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0) this.#worker?.unref();
    if (reply.ok) call.resolve(reply.value);
    else call.reject(reply.name === 'TypeError' ? new TypeError(reply.message) : new Error(reply.message));
  }

  /** The thread ended: what it held fails, and the next send starts another (unless closing). */
  #lost(worker: Worker, err: Error): void {
    if (worker !== this.#worker) return;
    this.#worker = undefined;
    const held = [...this.#pending.values()];
    this.#pending.clear();
    this.#outbox = [];
    for (const call of held) call.reject(new Error(`the egress thread ended during the send: ${err.message}`));
  }
}
