import { stripVTControlCharacters } from 'node:util';

// A test file whose vitest worker died of a known V8 crash, not of anything the file tested:
// `Check failed: jit_page.has_value()` (V8's ThreadIsolation registry of JIT pages, which
// worker-thread churn with WebAssembly — Node's own type stripping in each worker loads one —
// can leave out of step: nodejs/node#64500, open on Node 24). The worker is lost with a
// SIGTRAP and vitest counts the file failed. run-tests.ts runs such a file once more alone,
// and only when that crash is the lane's every failure; the crash is printed either way.

/** What a lane's output told of crashed workers. */
export interface EngineCrashes {
  /** Test files whose worker exited on a signal (as vitest names them). */
  readonly files: string[];
  /** Whether V8 printed the known check failure in that output. */
  readonly knownCheck: boolean;
}

const CRASHED = /Worker exited unexpectedly with signal (SIG[A-Z]+) .*while running test file (\S+)/;
const KNOWN_CHECK = /# Check failed: jit_page(?:\.has_value\(\)|_->allocations_\.erase)/;

/** Reads a lane's output lines for workers lost to a signal, and for V8's known check failure. */
export function engineCrashes(lines: Iterable<string>): EngineCrashes {
  const files = new Set<string>();
  let knownCheck = false;
  for (const raw of lines) {
    // Without the colours vitest writes to a terminal.
    const line = stripVTControlCharacters(raw);
    const crashed = CRASHED.exec(line);
    if (crashed !== null) files.add(crashed[2]!);
    if (KNOWN_CHECK.test(line)) knownCheck = true;
  }
  return { files: [...files], knownCheck };
}

/**
 * Whether a lane's failures are all the known crash, so its crashed files may run once more:
 * V8's check seen, at least one file lost, and no failure beyond one per lost file.
 */
export function onlyKnownCrashes(crashes: EngineCrashes, failed: number): boolean {
  return crashes.knownCheck && crashes.files.length > 0 && failed <= crashes.files.length;
}
