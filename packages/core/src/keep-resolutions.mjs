// Loaded before a process's main module (`./dev` puts it in NODE_OPTIONS as `--import`): the
// process keeps Node's answers to its imports across starts (kept-resolutions.mjs says how and when).
// Node runs a preload in each worker thread too, its argv[1] the thread's entry: a Wirehook
// thread keeps its own program's answers (thread-entry.mjs), not one file for every thread.
//
// Every Node process under `./dev` loads this (pnpm, tsc, a test's own scripts), so it asks only
// what is cheap first — a main thread, a program inside this checkout — and imports the rest only
// then: ESM imports of the keeping's built-ins cost an unrelated process ≈ 20 ms of CPU (measured).
const { isMainThread } = process.getBuiltinModule('node:worker_threads');
const { realpathSync } = process.getBuiltinModule('node:fs');
const { fileURLToPath } = process.getBuiltinModule('node:url');

const program = process.argv[1];
if (isMainThread && program !== undefined && inThisCheckout(program)) {
  const { keepResolutions } = await import('./kept-resolutions.mjs');
  keepResolutions(program);
}

/** Whether `program`'s real path is this checkout's (not `./dev`'s own tools); keepResolutions asks again, exactly. */
function inThisCheckout(program) {
  try {
    const checkout = `${realpathSync(fileURLToPath(new URL('../../../', import.meta.url)))}/`;
    const path = realpathSync(program.startsWith('file:') ? fileURLToPath(program) : program);
    return path.startsWith(checkout) && !path.startsWith(`${checkout}.tools/`);
  } catch {
    return false; // no file (`node -e code arg`)
  }
}
