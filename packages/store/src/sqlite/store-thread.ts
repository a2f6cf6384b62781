import type { Worker } from 'node:worker_threads';
import { startThread, turnOutbox } from '@wirehook/core';
import { deserializeError, type SerializedError } from './remote-error.ts';

/** One store call sent to a store thread (in an array: the calls of one turn of the event loop). */
export type StoreCall = { id: number; repo: string; method: string; args: unknown[] } | { id: number; close: true };
/** Its answer (in an array, likewise). */
export type StoreReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: SerializedError };

/** What a store thread's connection may do: `writer` owns the writes; a `reader` opens the file read-only. */
export type StoreThreadRole = 'writer' | 'reader';

const WORKER_MAIN = new URL('./store-worker.ts', import.meta.url);
/** The thread's young generation, unless a `--max-semi-space-size` flag replaces it (docs/operations.md, Memory). */
export const STORE_THREAD_YOUNG_GENERATION_MB = 8;

/**
 * A worker thread holding one SQLite connection to `path`, and the caller's side of it:
 * calls made during one turn of the event loop go in one message (a message costs more than
 * the copying of its contents), each answered by id; errors come back with their class.
 */
export class StoreThread {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (err: unknown) => void }>();
  #nextId = 0;
  /** The calls of this turn of the event loop, posted together once it ends (refused once the thread failed). */
  readonly #post = turnOutbox<StoreCall>((calls) => {
    if (!this.#failure) this.#worker.postMessage(calls);
  });
  #failure: Error | undefined;

  constructor(path: string, role: StoreThreadRole) {
    // The worker's objects live for one call: a small young generation is enough, and its
    // heap does not need to grow like the main thread's (RSS is a target: docs/benchmarks.md).
    // Named, so its CPU shows apart in /proc (top -H, the bench's CPU by thread).
    this.#worker = startThread(WORKER_MAIN, {
      name: `store-${role}`,
      workerData: { path, role },
      resourceLimits: { maxYoungGenerationSizeMb: STORE_THREAD_YOUNG_GENERATION_MB },
    });
    this.#worker.on('message', (replies: StoreReply[]) => replies.forEach((reply) => this.#settle(reply)));
    this.#worker.on('error', (err) => this.#failAll(err));
    // An answer that cannot be read would leave its calls waiting, and what they carried unrecorded.
    this.#worker.on('messageerror', (err) => this.#failAll(err));
    this.#worker.on('exit', (code) => this.#failAll(new Error(`the SQLite store's ${role} thread exited (code ${code})`)));
    // The worker keeps the process alive only while a call is waiting for it. After the listeners:
    // adding a 'message' listener refs a worker again.
    this.#worker.unref();
  }

  /** Whether the thread has failed (or was closed): every call is then refused with that error. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  send(call: Omit<StoreCall, 'id'>): Promise<unknown> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(id, { resolve, reject });
      this.#post({ ...call, id } as StoreCall);
    });
  }

  /**
   * Closes the connection (committing what is queued), then ends the thread, whether or not
   * the close succeeded (its error is thrown after); later calls fail with `reason`.
   */
  async close(reason: Error): Promise<void> {
    try {
      if (!this.#failure) await this.send({ close: true });
    } finally {
      this.#failure ??= reason;
      await this.#worker.terminate();
    }
  }

  #settle(reply: StoreReply): void {
    const call = this.#pending.get(reply.id);
    if (!call) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0) this.#worker.unref();
    if (reply.ok) call.resolve(reply.value);
    else call.reject(deserializeError(reply.error));
  }

  #failAll(err: Error): void {
    this.#failure ??= err;
    for (const call of this.#pending.values()) call.reject(err);
    this.#pending.clear();
  }
}
