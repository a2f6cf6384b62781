import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Processes the tests start without WIREHOOK_SECRET_KEY make their key file in
// $XDG_CONFIG_HOME/wirehook: a directory of this run's, not the user's ~/.config.
const configHome = mkdtempSync(join(tmpdir(), 'wirehook-test-config-'));

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'services/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // No retries: a flaky test is a bug in the test or the code.
    retry: 0,
    // expect.poll's wait, for every test: its default (1 s) ran out in a browser test on a machine running two suites.
    expect: { poll: { timeout: 10_000 } },
    env: { XDG_CONFIG_HOME: configHome },
    // Ends, after each test file's own afterAll, every process the file started and left running.
    setupFiles: ['test/support/end-test-processes.ts'],
  },
});
