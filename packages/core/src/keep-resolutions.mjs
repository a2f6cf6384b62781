// Loaded before a process's main module (`./dev` puts it in NODE_OPTIONS as `--import`): the
// process keeps Node's answers to its imports across starts (kept-resolutions.mjs says how and when).
// Node runs a preload in each worker thread too, its argv[1] the thread's entry: a Wirehook
// thread keeps its own program's answers (thread-entry.mjs), not one file for every thread.
//
// Every Node process under `./dev` loads this (pnpm, tsc, a test's own scripts), so it asks only
// what is cheap first — a main thread, a program inside this checkout — and imports the rest only
// then: ESM imports of the keeping's built-ins cost an unrelated process ≈ 20 ms of CPU (measured).
// A Node without process.getBuiltinModule (before 20.16 or 22.3) only resolves, as without this;
// so does code given by -e or -p, whose argv[1] is an argument, not its program.
const EVAL_FLAGS = new Set(['-e', '--eval', '-p', '--print']);

if (typeof process.getBuiltinModule === 'function' && !process.execArgv.some((flag) => EVAL_FLAGS.has(flag))) {
  const { isMainThread } = process.getBuiltinModule('node:worker_threads');
  const program = process.argv[1];
  if (isMainThread && program !== undefined) {
    const { checkoutProgramUrl } = await import('./checkout-program.mjs');
    const programUrl = checkoutProgramUrl(program);
    if (programUrl !== undefined) {
      const { keepCheckoutProgram } = await import('./kept-resolutions.mjs');
      keepCheckoutProgram(programUrl);
    }
  }
}
