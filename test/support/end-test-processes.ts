// Vitest setup (vitest.config.ts): registered first, this afterAll runs after the test file's
// own, timed-out tests included, and ends whatever the file started and left running.
import { endTestProcesses } from '@wirehook/testkit';
import { afterAll } from 'vitest';

afterAll(() => endTestProcesses());
