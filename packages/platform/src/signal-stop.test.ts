// The entry point's hold on the stop signals (holdEarlySignals), handed to the stop a process sets
// up later: real child processes sending themselves the signals (signals and a test runner's worker do not mix).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const PROBE = join(import.meta.dirname, 'testing', 'early-signal-process.ts');

async function run(env: Record<string, string>): Promise<{ code: number | null; said: unknown }> {
  const child = spawn(process.execPath, [PROBE], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, said: stdout === '' ? null : JSON.parse(stdout) };
}

it.each([
  ['service', 'SIGTERM', { aborted: true, reason: 'SIGTERM' }],
  ['command', 'SIGTERM', { aborted: true, reason: 'SIGTERM' }],
  ['command', 'SIGINT', { aborted: true, reason: 'SIGINT' }],
  // A service under the launcher (SIGTERM only) does not take a Ctrl-C the hold heard.
  ['service', 'SIGINT', { aborted: false, reason: null }],
  ['service', '', { aborted: false, reason: null }],
] as const)('a %s whose entry point heard %s while it loaded: its stop is %o', async (stop, signals, said) => {
  expect(await run({ STOP: stop, SIGNALS: signals })).toEqual({ code: 0, said });
});
