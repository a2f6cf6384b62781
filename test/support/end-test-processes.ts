// Vitest setup (vitest.config.ts): registered first, this afterAll runs after the test file's
// own, timed-out tests included, and ends whatever the file started and left running.
// The module alone, not the testkit's index (its tracing, receiver and client imports cost every test file a few hundred ms).
import { endTestProcesses } from '../../packages/testkit/src/servers/test-processes.ts';
import { afterAll } from 'vitest';

afterAll(() => endTestProcesses());
