import { globSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { needsOwnProcess } from './test/support/test-isolation.ts';

// Processes the tests start without WIREHOOK_SECRET_KEY make their key file in
// $XDG_CONFIG_HOME/wirehook: a directory of this run's, not the user's ~/.config.
const configHome = mkdtempSync(join(tmpdir(), 'wirehook-test-config-'));

const UNIT_TESTS = ['packages/*/src/**/*.test.ts', 'services/*/src/**/*.test.ts'];
// A unit test file that mocks a module or resets the registry runs isolated (test/support/test-isolation.ts).
const OWN_PROCESS = UNIT_TESTS.flatMap((pattern) => globSync(pattern, { cwd: import.meta.dirname })).filter((file) =>
  needsOwnProcess(readFileSync(join(import.meta.dirname, file), 'utf8')),
);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // No retries: a flaky test is a bug in the test or the code.
    retry: 0,
    // expect.poll's wait, for every test: its default (1 s) ran out in a browser test on a machine running two suites.
    expect: { poll: { timeout: 10_000 } },
    env: { XDG_CONFIG_HOME: configHome },
    // Ends, after each test file's own afterAll, every process the file started and left running.
    setupFiles: ['test/support/end-test-processes.ts'],
    projects: [
      {
        // The packages' and services' own tests, one after another in one process, their modules
        // loaded once: a fresh process and module graph for each of ≈ 185 files cost about as much
        // CPU as their tests (packages/ and services/ alone: 396 s of wall clock and 371 s of CPU
        // with every file isolated, 281 s and 225 s so), and the suite is bound by the CPU
        // (docs/benchmarks.md). Each file leaves nothing behind: its servers closed, its timers,
        // spies and patches put back, its processes ended by the setup file above.
        extends: true,
        test: { name: 'units', include: UNIT_TESTS, exclude: OWN_PROCESS, isolate: false },
      },
      {
        // Each file in a process of its own: the end-to-end, cluster, browser and other tests of
        // test/ (they start Wirehook, set up servers and change process state), and the units that
        // mock a module or reset the registry.
        extends: true,
        test: { name: 'isolated', include: ['test/**/*.test.ts', ...OWN_PROCESS] },
      },
    ],
  },
});
