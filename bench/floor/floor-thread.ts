// The threaded floor's (bench/floor/threaded-floor-process.ts) worker threads, both sides: the
// calls of one turn of the event loop cross in one message and are answered by id, the answers
// of one turn likewise — as Wirehook's store and egress threads post (StoreThread,
// EgressThread), with no more than that.
import { parentPort, type Transferable, type Worker } from 'node:worker_threads';
import { startThread, turnOutbox } from '@wirehook/core';
import { endFloor } from './floor-parts.ts';

interface Reply<R> {
  id: number;
  value?: R;
  error?: string;
}

/**
 * A worker thread named `name` (its CPU shows under that name) running `main`, and the caller's
 * side of it. `youngGenerationMb`: the young generation's cap of Wirehook's thread of the same
 * role, given to it too.
 */
export class FloorThread<C extends object, R> {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: (value: R) => void; reject: (err: Error) => void }>();
  #nextId = 0;
  readonly #post = turnOutbox<C & { id: number }>((calls) => this.#worker.postMessage(calls));

  /** `transfer`: what `data` carries that moves to the thread (a MessagePort to another worker). */
  constructor(main: URL, name: string, data: unknown, youngGenerationMb: number, transfer: Transferable[] = []) {
    this.#worker = startThread(main, { name, workerData: data, transferList: transfer, resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMb } });
    this.#worker.on('message', (replies: Reply<R>[]) => {
      for (const { id, value, error } of replies) {
        const call = this.#pending.get(id);
        this.#pending.delete(id);
        if (error === undefined) call?.resolve(value as R);
        else call?.reject(new Error(error));
      }
    });
    // A floor whose thread is gone, or whose answers cannot be read, measures nothing: it ends,
    // and the bench fails the run (measureFloor).
    this.#worker.on('error', (err: unknown) => endFloor(`its ${name} thread failed: ${String(err)}`));
    this.#worker.on('messageerror', (err) => endFloor(`an answer of its ${name} thread could not be read: ${String(err)}`));
    this.#worker.on('exit', (code) => endFloor(`its ${name} thread exited (code ${code})`));
  }

  call(call: C): Promise<R> {
    const id = ++this.#nextId;
    return new Promise<R>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#post({ ...call, id });
    });
  }
}

/** The worker's side: each call answered by `handle`, a turn's answers in one message. */
export function serveCalls<C extends object, R>(handle: (call: C) => Promise<R>): void {
  const port = parentPort!;
  const reply = turnOutbox<Reply<R>>((replies) => port.postMessage(replies));
  // Calls that cannot be read would never be answered: the thread fails instead (and the floor with it).
  port.on('messageerror', (err) => {
    throw err;
  });
  port.on('message', (calls: (C & { id: number })[]) => {
    for (const call of calls) {
      handle(call).then(
        (value) => reply({ id: call.id, value }),
        (err: unknown) => reply({ id: call.id, error: err instanceof Error ? err.message : String(err) }),
      );
    }
  });
}
