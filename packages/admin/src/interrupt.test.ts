// The admin CLI interrupted while its store opens: a MongoDB URL whose port nothing listens on, so
// the open waits for a server (for 10 minutes, past the test's limit) until the Ctrl-C.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { eventually, freePort } from '@wirehook/testkit';
import { expect, it } from 'vitest';

/** Preloaded: says on stderr when the CLI sets its stop listeners (a signal sent after that is heard, not the default's). */
const SAY_LISTENERS = `--import=data:text/javascript,${encodeURIComponent(
  "process.on('newListener', (event) => event === 'SIGTERM' && process.stderr.write('listening for SIGTERM\\n'))",
)}`;

it.each([
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const)(
  'a %s while the store opens: one JSON document saying nothing was done, exit %i',
  async (signal, exitCode) => {
    const url = `mongodb://127.0.0.1:${await freePort()}/wirehook?serverSelectionTimeoutMS=600000&directConnection=true`;
    const child = spawn(process.execPath, [SAY_LISTENERS, join(import.meta.dirname, 'main.ts'), 'org', 'create', '--name', 'Acme'], {
      env: { ...process.env, MONGODB_URL: url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = once(child, 'exit');
    await eventually(() => expect(stderr).toContain('listening for SIGTERM'), 20_000, 20);
    child.kill(signal);
    const [code] = (await exited) as [number | null];
    expect(JSON.parse(stdout)).toEqual({ error: 'interrupted', message: `${signal} while the store opened; nothing was done` });
    expect(code).toBe(exitCode);
  },
  30_000,
);
