import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';
import type { LoadedQuickJs } from './quickjs-module.ts';
import { CODE_FILE_NAME, DESCRIBE_FILE_NAME, DESCRIBE_SOURCE, PRELUDE_FILE_NAME, PRELUDE_SOURCE } from './sandbox-prelude.ts';
import { cpuBudgetError, memoryLimitError, runBudgetMs, thrownError } from './transform-errors.ts';
import type { SandboxLimits } from './transform-types.ts';

/** One run, as a sandbox thread is given it: the webhook as JSON text, never as objects. */
export interface SandboxJob {
  code: string;
  inputJson: string;
  now: number;
}

/** A run's outcome inside the thread: the prelude's JSON text (checked by the host: transform-result.ts), or the final error string. */
export type SandboxOutcome = { ok: true; output: string } | { ok: false; error: string };

/** What a failing run is judged by, besides what was thrown. */
interface RunState {
  limits: SandboxLimits;
  /** The run's CPU budget: the limits' and the JSON allowance of its input (runBudgetMs). */
  budgetMs: number;
  interrupted: boolean;
  /** The heap was refused growth during this run: it reached the memory cap. */
  outOfMemory: () => boolean;
}

/**
 * Runs `job` in a fresh QuickJS runtime of `quickJs` and disposes of it: nothing a run leaves
 * behind (globals, prototypes, pending jobs, garbage) reaches the next one, and the memory cap
 * is this run's alone (a fresh runtime measured no dearer than a shared one: index.ts).
 * @throws whatever the WebAssembly module throws (a trap or abort): the module is then unusable.
 */
export function runInQuickJs(quickJs: LoadedQuickJs, job: SandboxJob, limits: SandboxLimits): SandboxOutcome {
  // The budget counts from here: runtime and context creation are part of what a run costs;
  // reading the input in and writing the answer out have an allowance by the input's size.
  const budgetMs = runBudgetMs(limits.cpuBudgetMs, job.inputJson.length);
  const overBudget = cpuBudget(budgetMs);
  const refusedBefore = quickJs.refusedGrowths();
  const state: RunState = { limits, budgetMs, interrupted: false, outOfMemory: () => quickJs.refusedGrowths() !== refusedBefore };
  const runtime = quickJs.module.newRuntime();
  try {
    // QuickJS's own limit refuses single allocations over it (it cannot count the rest in
    // this build; the capped WebAssembly memory does: quickjs-module.ts).
    runtime.setMemoryLimit(limits.memoryLimitBytes);
    runtime.setMaxStackSize(limits.stackLimitBytes);
    // Polled by QuickJS every few thousand operations and inside regular expressions; once
    // true the exception cannot be caught by the code. Native loops that never poll (a long
    // indexOf) are the watchdog's: the thread is ended from outside (sandbox-thread.ts).
    runtime.setInterruptHandler(() => {
      if (!state.interrupted && overBudget()) state.interrupted = true;
      return state.interrupted;
    });
    const context = runtime.newContext();
    try {
      const outcome = evaluate(context, job, state);
      if (outcome.ok && overBudget()) return { ok: false, error: cpuBudgetError(budgetMs) };
      return outcome;
    } finally {
      context.dispose();
    }
  } finally {
    runtime.dispose();
  }
}

/**
 * Whether this thread has spent more than `budgetMs` of user CPU since the call. CPU time, not
 * wall time: a thread waiting for a core on a busy machine is not charged for the wait (the
 * watchdog's wall-clock limit still bounds it). User time only: code in the sandbox makes no
 * system calls, so its system time is the kernel handing the WebAssembly memory its pages the
 * first time a run reaches them — up to 35 ms for the 16 MiB heap, more on a busy machine, paid
 * once per thread and bounded by the memory cap: the thread's cost, not the code's. Read only
 * once the wall clock is past the budget — one thread's CPU time cannot run ahead of it — as it
 * costs a system call (~1.6 µs).
 */
function cpuBudget(budgetMs: number): () => boolean {
  const wallStart = performance.now();
  const userStart = process.threadCpuUsage().user;
  return () => {
    if (performance.now() - wallStart <= budgetMs) return false;
    return (process.threadCpuUsage().user - userStart) / 1_000 > budgetMs;
  };
}

function evaluate(context: QuickJSContext, job: SandboxJob, state: RunState): SandboxOutcome {
  const handles: QuickJSHandle[] = [];
  // Every handle is disposed before the context: QuickJS aborts the whole module when a
  // runtime is freed with objects still referenced.
  const keep = (handle: QuickJSHandle) => {
    handles.push(handle);
    return handle;
  };
  try {
    const prelude = context.evalCode(PRELUDE_SOURCE, PRELUDE_FILE_NAME, { type: 'global' });
    if (prelude.error) return preludeFailure(context, keep(prelude.error), state);
    const installed = context.callFunction(keep(prelude.value), context.undefined, keep(context.newNumber(job.now)));
    if (installed.error) return preludeFailure(context, keep(installed.error), state);
    const [run, stringify, toText] = [0, 1, 2].map((i) => keep(context.getProp(keep(installed.value), i))) as [QuickJSHandle, QuickJSHandle, QuickJSHandle];
    const describe = (error: QuickJSHandle) => failure(context, keep(error), [stringify, toText], state, keep);

    const evaluated = context.evalCode(job.code, CODE_FILE_NAME, { type: 'global' });
    if (evaluated.error) return describe(evaluated.error);
    keep(evaluated.value);
    const called = context.callFunction(run, context.undefined, keep(context.newString(job.inputJson)));
    if (called.error) return describe(called.error);
    const output = context.getString(keep(called.value));
    // The prelude always answers some JSON: empty text is its answer lost copying it out (no memory left).
    if (output === '') return stopped(state);
    return { ok: true, output };
  } finally {
    for (let i = handles.length - 1; i >= 0; i--) if (handles[i]!.alive) handles[i]!.dispose();
  }
}

/** Out of time or out of memory: the two ways a run is stopped rather than failing by itself. */
function stopped(state: RunState): SandboxOutcome {
  const { memoryLimitBytes } = state.limits;
  return { ok: false, error: state.interrupted && !state.outOfMemory() ? cpuBudgetError(state.budgetMs) : memoryLimitError(memoryLimitBytes) };
}

/** The prelude is ours and cannot fail but by running out of time or memory before the code starts. */
function preludeFailure(context: QuickJSContext, error: QuickJSHandle, state: RunState): SandboxOutcome {
  if (state.interrupted || state.outOfMemory()) return stopped(state);
  throw new Error(`the transformation prelude failed: ${JSON.stringify(context.dump(error))}`);
}

/**
 * What the code threw, read inside the VM by DESCRIBE_SOURCE (compiled only now: most runs do
 * not fail), with the prelude's `stringify` and `String`; its getters run there, under the same limits.
 */
function failure(
  context: QuickJSContext,
  error: QuickJSHandle,
  builtIns: [QuickJSHandle, QuickJSHandle],
  state: RunState,
  keep: (handle: QuickJSHandle) => QuickJSHandle,
): SandboxOutcome {
  if (state.interrupted) return stopped(state);
  const compiled = context.evalCode(DESCRIBE_SOURCE, DESCRIBE_FILE_NAME, { type: 'global' });
  keep(compiled.error ?? compiled.value);
  if (compiled.error) return stopped(state);
  const described = context.callFunction(compiled.value, context.undefined, error, ...builtIns);
  keep(described.error ?? described.value);
  // It catches every error a value can throw: only time or memory can stop it.
  if (described.error) return stopped(state);
  const thrown = parseDescription(context.getString(described.value));
  if (thrown === null) return stopped(state);
  if (thrown.name === 'InternalError' && thrown.message === 'out of memory') return stopped(state);
  // QuickJS throws null when it has no memory left to make an error of.
  if (thrown.isNull && state.outOfMemory()) return stopped(state);
  return { ok: false, error: thrownError(thrown) };
}

interface Description {
  name: string | null;
  message: string | null;
  stack: string | null;
  isNull: boolean;
}

/**
 * DESCRIBE_SOURCE's answer, or null when it is not there (lost copying it out: no memory left).
 * Text that is not the expected JSON (code that set Object.prototype.toJSON made the prelude's
 * stringify answer `undefined`) describes nothing: an exception with no name or message — a
 * failure of that run, never of the thread.
 */
function parseDescription(text: string): Description | null {
  if (text === '') return null;
  let parsed: Partial<Description>;
  try {
    parsed = JSON.parse(text) as Partial<Description>;
  } catch {
    parsed = {};
  }
  if (typeof parsed !== 'object' || parsed === null) parsed = {};
  const textOrNull = (value: unknown) => (typeof value === 'string' ? value : null);
  return { name: textOrNull(parsed.name), message: textOrNull(parsed.message), stack: textOrNull(parsed.stack), isNull: parsed.isNull === true };
}
