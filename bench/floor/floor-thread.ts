// The threaded floor's (bench/floor/threaded-floor-process.ts) worker threads, both sides: the
// calls of one turn of the event loop cross in one message and are answered by id, the answers
// of one turn likewise (FloorLink) — as Wirehook's store and egress threads post (StoreThread,
// EgressThread), with no more than that.
import { parentPort, type Transferable } from 'node:worker_threads';
import { startThread } from '@wirehook/core';
import { FloorLink } from './floor-link.ts';
import { endFloor } from './floor-parts.ts';

/**
 * A worker thread named `name` (its CPU shows under that name) running `main`, and the caller's
 * side of it. `youngGenerationMb`: the young generation's cap of Wirehook's thread of the same
 * role, given to it too.
 */
export class FloorThread<C extends object, R> {
  readonly #link: FloorLink<never, C, R>;

  /** `transfer`: what `data` carries that moves to the thread (a MessagePort to another worker). */
  constructor(main: URL, name: string, data: unknown, youngGenerationMb: number, transfer: Transferable[] = []) {
    const worker = startThread(main, { name, workerData: data, transferList: transfer, resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMb } });
    this.#link = new FloorLink(worker, `its ${name} thread`);
    // A floor whose thread is gone measures nothing: it ends, and the bench fails the run (measureFloor).
    worker.on('error', (err: unknown) => endFloor(`its ${name} thread failed: ${String(err)}`));
    worker.on('exit', (code) => endFloor(`its ${name} thread exited (code ${code})`));
  }

  call(call: C): Promise<R> {
    return this.#link.call(call);
  }
}

/** The worker's side: each call answered by `handle`, a turn's answers in one message. */
export function serveCalls<C extends object, R>(handle: (call: C) => Promise<R>): void {
  new FloorLink<never, never, never, never, C, R>(parentPort!, 'its owner', { serve: handle });
}
