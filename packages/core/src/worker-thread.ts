import { Worker, type WorkerOptions } from 'node:worker_threads';

const THREAD_ENTRY = new URL('./thread-entry.mjs', import.meta.url);

/**
 * A worker thread running the TypeScript module `main`, its types stripped without WebAssembly
 * (thread-entry.mjs says why: Node's own stripping is what its engine crashes came of).
 * Every thread Wirehook starts on a `.ts` module starts here.
 */
export function startThread(main: URL, options: WorkerOptions = {}): Worker {
  return new Worker(THREAD_ENTRY, { ...options, argv: [main.href, ...(options.argv ?? [])] });
}
