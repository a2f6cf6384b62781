// The README's first webhook, run as written: the shell block under the `readme-walkthrough:
// first webhook` marker, line by line (background lines `&` started and left running, the
// next line once `listen` says Ready, as the README tells the reader), against embedded
// Wirehook. Only what a test cannot share with a person's machine is changed: the port 3000 (a
// free one here), `./dev pnpm` (already inside ./dev: `pnpm`), and $KEY (a test key of a new org).
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, freePort, spawnTestProcess } from '@wirehook/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startWirehook, type Harness } from '../support/harness.ts';

const REPO = join(import.meta.dirname, '..', '..');
const MARKER = '<!-- readme-walkthrough: first webhook';

/** The commands of the marked block: comments and blank lines left out. */
function walkthrough(): string[] {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const at = readme.indexOf(MARKER);
  expect(at, 'README.md has the first-webhook walkthrough marker').toBeGreaterThan(-1);
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
  return block![1]!.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
}

let wh: Harness;
const started: { child: ChildProcess; out: () => string }[] = [];

beforeAll(async () => {
  wh = await startWirehook({ realTime: true });
}, 60_000);

afterAll(async () => {
  for (const { child } of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await wh?.close();
});

it('the README’s first webhook arrives at the local server through wirehook listen, as the README shows', async () => {
  const t = await wh.tenant({ env: 'test' });
  const port = await freePort();
  const env: Record<string, string> = { PATH: process.env['PATH'] ?? '', KEY: t.key, WIREHOOK_API_URL: wh.url };
  const lines = walkthrough();
  expect(lines.some((l) => l.includes('wirehook listen --forward-to http://localhost:3000/webhook'))).toBe(true);

  const run = (line: string) => {
    const command = line.replace(/^\.\/dev pnpm /, 'pnpm ').replaceAll('3000', String(port));
    const child = spawnTestProcess('sh', ['-c', command], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const handle = { child, out: () => out };
    started.push(handle);
    return handle;
  };

  let listen: ReturnType<typeof run> | undefined;
  let server: ReturnType<typeof run> | undefined;
  let trigger = '';
  for (const line of lines) {
    const exported = /^export (\w+)=\$(\w+)$/.exec(line);
    if (exported) {
      env[exported[1]!] = env[exported[2]!]!;
      continue;
    }
    if (line.endsWith('&')) {
      const handle = run(line.slice(0, -1).trim());
      if (line.includes('wirehook listen')) {
        listen = handle;
        await eventually(() => expect(handle.out()).toContain('Ready: forwarding webhooks of consumer wirehook-listen'), 30_000);
      } else {
        server = handle;
        // The server is up once something answers on its port.
        await eventually(async () => expect((await fetch(`http://localhost:${port}/`, { method: 'POST', body: '{}' })).status).toBe(200), 15_000);
      }
      continue;
    }
    const handle = run(line);
    const code = await new Promise<number | null>((resolve) => handle.child.once('exit', resolve));
    expect(code, handle.out()).toBe(0);
    trigger += handle.out();
  }

  const messageId = /(msg_\w+)/.exec(trigger)?.[1];
  expect(messageId, trigger).toBeDefined();
  await eventually(() => expect(listen!.out()).toMatch(new RegExp(`→ 200 invoice\\.paid ${messageId} \\d+ ms`)), 30_000);
  await eventually(() => expect(server!.out()).toContain(`${messageId} {"type":"invoice.paid","timestamp":"`), 30_000);
  expect(server!.out()).toContain('"data":{"invoice":1001}}');
  // The CLI has the local server's answer before Wirehook does: the attempt is written after it.
  await eventually(async () => {
    const attempts = (await t.api.get(`/v1/deliveries/${(await t.api.get(`/v1/messages/${messageId}`)).body.deliveries[0].id}`)).body.attempts;
    expect(attempts).toEqual([expect.objectContaining({ via: 'listen', response_status: 200 })]);
  });
}, 120_000);
