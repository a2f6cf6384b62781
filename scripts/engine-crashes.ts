import { stripVTControlCharacters } from 'node:util';

// A test file whose vitest worker died of a known engine crash, not of anything the file tested.
// Both come of worker-thread churn with WebAssembly (Node's own type stripping loads a module in
// each worker): V8's `Check failed: jit_page.has_value()`, which ends the worker with a SIGTRAP
// and prints the check (nodejs/node#64500), and a segfault, which prints nothing
// (nodejs/node#56312); both open on Node 24. A core dump of the check on this machine (no PKU on
// its CPU, so `--no-memory-protection-keys` changes nothing here) shows an egress thread calling
// from WebAssembly into JS, tiering up the call's wrapper and freeing dead wrappers of the
// process-wide cache (WasmImportWrapperCache::Free → ThreadIsolation::UnregisterWasmAllocation)
// while a platform thread compiled WebAssembly in the background. Starting a thread only once
// those ended had exited (as #56312's reports suggest) was tried and did not stop either (in
// egress-thread.test.ts: a segfault in 1 of 2 clean-clone runs, the check in 1 of 75 runs of the
// file three at a time). Since then the threads Wirehook starts strip their TypeScript without
// WebAssembly (startThread, packages/core/src/thread-entry.mjs), but an egress thread still
// compiles undici's HTTP parser (llhttp, WebAssembly) and a transformation thread QuickJS: which
// of them the dump's frames were is not known, so the crash may come again. When it does, vitest
// counts the file failed: run-tests.ts runs it once more alone, and only when that crash is all
// that went wrong in its lane; it is printed either way. A worker of the unit tests runs many files
// (vitest.config.ts: not isolated) and vitest names all it was given: each of them runs again.

/** What a lane's output told of crashed workers. */
export interface EngineCrashes {
  /** Test files whose worker exited on SIGTRAP (as V8's fatal checks end one) or SIGSEGV (as vitest names them). */
  readonly files: string[];
  /** Workers lost so: one file's each, or a non-isolated worker's several. */
  readonly workers: number;
  /** How many of those workers exited on SIGTRAP: each needs V8's check printed for it. */
  readonly trapped: number;
  /** Test files whose worker exited on any other signal (an abort, an out-of-memory kill). */
  readonly otherSignals: string[];
  /** How many times V8 printed the known check failure. */
  readonly knownChecks: number;
  /** The errors vitest caught outside any test ("Vitest caught N unhandled errors"), 0 when it told of none. */
  readonly unhandled: number;
}

// "… while running test file A", or "… test files A, B, C" from a worker that runs several.
const CRASHED = /Worker exited unexpectedly with signal (SIG[A-Z]+) .*while running test files? ([^\s,]+(?:, [^\s,]+)*)/;
const KNOWN_CHECK = /# Check failed: jit_page(?:\.has_value\(\)|_->allocations_\.erase)/;
const UNHANDLED = /Vitest caught (\d+) unhandled errors? during the test run/;

/** Whether a line of a lane's output is one engineCrashes reads (so a runner keeps only those). */
export function tellsOfCrash(raw: string): boolean {
  const line = stripVTControlCharacters(raw);
  return CRASHED.test(line) || KNOWN_CHECK.test(line) || UNHANDLED.test(line);
}

/** Reads a lane's output lines for workers lost to a signal, V8's known check failure, and vitest's unhandled errors. */
export function engineCrashes(lines: Iterable<string>): EngineCrashes {
  const files = new Set<string>();
  const otherSignals = new Set<string>();
  let workers = 0;
  let trapped = 0;
  let knownChecks = 0;
  let unhandled = 0;
  for (const raw of lines) {
    // Without the colours vitest writes to a terminal.
    const line = stripVTControlCharacters(raw);
    const crashed = CRASHED.exec(line);
    if (crashed !== null) {
      const signal = crashed[1]!;
      const known = signal === 'SIGTRAP' || signal === 'SIGSEGV';
      for (const file of crashed[2]!.split(', ')) (known ? files : otherSignals).add(file);
      if (known) workers++;
      if (signal === 'SIGTRAP') trapped++;
    }
    if (KNOWN_CHECK.test(line)) knownChecks++;
    const caught = UNHANDLED.exec(line);
    if (caught !== null) unhandled = Math.max(unhandled, Number(caught[1]));
  }
  return { files: [...files], workers, trapped, otherSignals: [...otherSignals], knownChecks, unhandled };
}

/**
 * Whether all that went wrong in a lane is the known crash, so its crashed files may run once
 * more: each lost worker a segfault, or a SIGTRAP with V8's check printed for it, no worker lost otherwise, no
 * error vitest caught beyond one a lost worker, and no failure in the lane's other files
 * (`failedElsewhere`) nor in a crashed file's tests that ran before its worker died (`failedInCrashed`).
 */
export function onlyKnownCrashes(crashes: EngineCrashes, failedElsewhere: number, failedInCrashed: number): boolean {
  const lost = crashes.workers;
  return (
    lost > 0 &&
    crashes.otherSignals.length === 0 &&
    crashes.knownChecks >= crashes.trapped &&
    crashes.unhandled <= lost &&
    failedElsewhere === 0 &&
    failedInCrashed === 0
  );
}
