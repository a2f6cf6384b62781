import { globSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Processes the tests start without WIREHOOK_SECRET_KEY make their key file in
// $XDG_CONFIG_HOME/wirehook: a directory of this run's, not the user's ~/.config.
const configHome = mkdtempSync(join(tmpdir(), 'wirehook-test-config-'));

const UNIT_TESTS = ['packages/*/src/**/*.test.ts', 'services/*/src/**/*.test.ts'];
// A unit test file that mocks a module (vi.mock) needs the module loaded fresh: it runs isolated.
const MOCKING = UNIT_TESTS.flatMap((pattern) => globSync(pattern, { cwd: import.meta.dirname })).filter((file) =>
  readFileSync(join(import.meta.dirname, file), 'utf8').includes('vi.mock('),
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
        // loaded once: a fresh process and module graph for each of ≈ 190 files cost as much CPU as
        // their tests (alone, 396 s of wall clock and 371 s of CPU isolated, 245 s and 182 s not),
        // and the suite is bound by the CPU (docs/benchmarks.md). Each file leaves nothing behind
        // (its servers closed, its processes ended by the setup file above).
        extends: true,
        test: { name: 'units', include: UNIT_TESTS, exclude: MOCKING, isolate: false },
      },
      {
        // Each file in a process of its own: the end-to-end, cluster, browser and other tests of
        // test/ (they start Wirehook, set up servers and change process state), and the mocking units.
        extends: true,
        test: { name: 'isolated', include: ['test/**/*.test.ts', ...MOCKING] },
      },
    ],
  },
});
