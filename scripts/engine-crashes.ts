import { stripVTControlCharacters } from 'node:util';

// A test file whose vitest worker died of a known V8 crash, not of anything the file tested:
// `Check failed: jit_page.has_value()` (V8's ThreadIsolation registry of JIT pages, which
// worker-thread churn with WebAssembly — Node's own type stripping in each worker loads one —
// can leave out of step: nodejs/node#64500, open on Node 24). The worker is lost with a
// SIGTRAP and vitest counts the file failed. run-tests.ts runs such a file once more alone,
// and only when that crash is all that went wrong in its lane; the crash is printed either way.

/** What a lane's output told of crashed workers. */
export interface EngineCrashes {
  /** Test files whose worker exited on SIGTRAP, as V8's fatal checks end one (as vitest names them). */
  readonly files: string[];
  /** Test files whose worker exited on any other signal (a segfault, an out-of-memory kill). */
  readonly otherSignals: string[];
  /** How many times V8 printed the known check failure. */
  readonly knownChecks: number;
  /** The errors vitest caught outside any test ("Vitest caught N unhandled errors"), 0 when it told of none. */
  readonly unhandled: number;
}

const CRASHED = /Worker exited unexpectedly with signal (SIG[A-Z]+) .*while running test file (\S+)/;
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
  let knownChecks = 0;
  let unhandled = 0;
  for (const raw of lines) {
    // Without the colours vitest writes to a terminal.
    const line = stripVTControlCharacters(raw);
    const crashed = CRASHED.exec(line);
    if (crashed !== null) (crashed[1] === 'SIGTRAP' ? files : otherSignals).add(crashed[2]!);
    if (KNOWN_CHECK.test(line)) knownChecks++;
    const caught = UNHANDLED.exec(line);
    if (caught !== null) unhandled = Math.max(unhandled, Number(caught[1]));
  }
  return { files: [...files], otherSignals: [...otherSignals], knownChecks, unhandled };
}

/**
 * Whether all that went wrong in a lane is the known crash, so its crashed files may run once
 * more: each lost worker a SIGTRAP with V8's check printed for it, no worker lost otherwise, no
 * error vitest caught beyond one a lost worker, and no failure in the lane's other files
 * (`failedElsewhere`) nor in a crashed file's tests that ran before its worker died (`failedInCrashed`).
 */
export function onlyKnownCrashes(crashes: EngineCrashes, failedElsewhere: number, failedInCrashed: number): boolean {
  const lost = crashes.files.length;
  return (
    lost > 0 && crashes.otherSignals.length === 0 && crashes.knownChecks >= lost && crashes.unhandled <= lost && failedElsewhere === 0 && failedInCrashed === 0
  );
}
