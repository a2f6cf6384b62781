/**
 * @wirehook/transform — endpoint transformations (issue #45): a customer's JavaScript
 * `function handler(webhook)` run on each webhook before it is sent, safe on a shared cluster.
 *
 * ```ts
 * const runner = new TransformRunner({ cpuBudgetMs: 50, memoryLimitBytes: 16 * 2 ** 20 });
 * const result = await runner.run(endpoint.transformation.code, { event_type, payload, headers, url }, clock.now());
 * // { ok: true, cancel: false, payload, headers, url } | { ok: true, cancel: true } | { ok: false, error }
 * await runner.close();
 * ```
 *
 * Why QuickJS compiled to WebAssembly (quickjs-emscripten):
 * - Isolation from the host heap. The code runs in its own interpreter inside a WebAssembly
 *   memory; it holds no reference to any Node object, and data goes in and out as JSON text.
 *   There is no `require`, `import`, `process`, `fetch`, timer or file system to reach:
 *   QuickJS's core has none and nothing is added but a fixed clock and a silent console.
 * - A CPU budget by interrupt: QuickJS polls a handler every few thousand operations (and
 *   inside regular expressions); past the budget it throws an error the code cannot catch.
 * - A hard memory cap: the WebAssembly memory is created with a maximum, so malloc fails past
 *   it whatever allocates, and QuickJS throws its out-of-memory error. (QuickJS's own
 *   JS_SetMemoryLimit does not hold in this build: without malloc_usable_size it counts 8
 *   bytes an allocation, and let 40 buffers of 1 MiB through a 16 MiB limit.)
 * - Ordinary npm packages (JavaScript and a .wasm file): nothing to compile on a fresh machine.
 *
 * Why not `node:vm`: Node documents it as not a security mechanism — code in a context reaches
 * the host through any object passed in (`this.constructor.constructor('return process')()`),
 * shares the process's heap (no memory limit), and its `timeout` lets microtasks escape unless
 * `microtaskMode: 'afterEvaluate'`. Why not `isolated-vm`: a native addon, built with node-gyp
 * for each Node version on every fresh machine and image, for isolation WebAssembly gives.
 *
 * Shape of a run (transform-runner.ts → sandbox-thread.ts → sandbox-worker.ts → run-in-quickjs.ts):
 * - Worker threads, not the event loop: some QuickJS built-ins loop in C without polling the
 *   interrupt (`'a'.repeat(3e5).indexOf('a'.repeat(1e5) + 'b')` ran 18 s on one poll), so a
 *   run inline could block the event loop for as long as it likes. On a thread the event loop
 *   is never blocked (it pays ~60 µs a run: messages and JSON), and a watchdog ends a thread
 *   that has used `watchdogGraceMs` (250 ms) of CPU past the budget and starts another (150-350
 *   ms of that thread's CPU, most of it Node loading TypeScript in a new thread). Each thread runs
 *   one transformation at a time, synchronously: nothing in the sandbox waits for anything, so
 *   QuickJS's sync build (not the asyncify one, which instruments every call so it can pause).
 * - The budget is the thread's user CPU time, so a run waiting for a core on a busy machine is
 *   not failed for it. The watchdog reads the thread's CPU time from outside too (its schedstat
 *   in /proc: thread-cpu.ts), so a starved run is not ended as over budget either: a wall-clock
 *   limit (`wallLimitMs`, 10 s) bounds it all the same. Where that file cannot be read (not
 *   Linux, gVisor) or disagrees with the thread's own count, the watchdog has the wall clock
 *   alone (budget + grace). Before this, a run waiting 300 ms for a core on a loaded machine
 *   was failed as over its CPU budget.
 * - A fresh QuickJS runtime and context per run: nothing a run leaves (globals, prototypes,
 *   pending promise jobs, garbage) reaches the next, and the heap is the run's alone.
 *   Measured side by side, a fresh runtime costs what a shared one does (creating it and its
 *   context, then freeing them, ~350 µs with the prelude's compiling either way).
 * - No cache of compiled code: quickjs-emscripten does not expose QuickJS's bytecode reader,
 *   and a context kept per code would let one webhook's run see the last one's. Compiling is
 *   ~100 µs a kilobyte in this build: the 32,768-byte limit's worst case is ~4 ms a run.
 * - `Date.now()`, `new Date()` and `Date()` give the run's `now`; QuickJS's zone is UTC.
 *   `Math.random` is allowed and not seeded by us (QuickJS seeds it per context): not for secrets.
 * - Errors: `transformation: <what> (line L, column C)`, the position from the first stack
 *   frame in the code, for exceptions and syntax errors alike.
 *
 * Not here (the caller's): the endpoint URL rules for a returned `url`, the header denylist
 * for returned `headers`, the payload size limit on the returned payload.
 */
export { TransformRunner, type TransformRunnerOptions } from './transform-runner.ts';
export type { SandboxLimits, TransformInput, TransformResult } from './transform-types.ts';
