// Loaded before a process's main module (`./dev` puts it in NODE_OPTIONS as `--import`): the
// process keeps Node's answers to its imports across starts (kept-resolutions.mjs says how and when).
// Node runs a preload in each worker thread too, its argv[1] the thread's entry: a Wirehook
// thread keeps its own program's answers (thread-entry.mjs), not one file for every thread.
//
// Every Node process under `./dev` loads this (pnpm, tsc, a test's own scripts), so it asks only
// what is cheap first — a main thread, a program inside this checkout — and imports the rest only
// then: ESM imports of the keeping's built-ins cost an unrelated process ≈ 20 ms of CPU (measured).
import { checkoutProgramUrl } from './checkout-program.mjs';

const { isMainThread } = process.getBuiltinModule('node:worker_threads');
const program = process.argv[1];
const programUrl = isMainThread && program !== undefined ? checkoutProgramUrl(program) : undefined;
if (programUrl !== undefined) {
  const { keepResolutions } = await import('./kept-resolutions.mjs');
  keepResolutions(programUrl);
}
