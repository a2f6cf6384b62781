// A service started while NATS is down does not exit: it is live, says it is not ready (and
// why), retries with backoff, and becomes ready once NATS answers.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePort, startNatsServer, type NatsServer, spawnTestProcess } from '@wirehook/testkit';
import { afterAll, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
let nats: NatsServer | undefined;
const children: ChildProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'wirehook-nonats-'));
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await nats?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it.each(['message-intake', 'dispatcher'])(
  '%s: live and not ready while NATS is down at start; ready once it answers',
  async (service) => {
    nats ??= await startNatsServer();
    await nats.kill(); // its port and store stay: restart() brings it back there
    const metricsPort = await freePort();
    let output = '';
    const child = spawnTestProcess(process.execPath, [join(root, 'services', service, 'src', 'main.ts')], {
      env: {
        ...process.env,
        NATS_URL: nats.url,
        DATA_DIR: dataDir,
        METRICS_PORT: String(metricsPort),
        GRPC_PORT: String(await freePort()),
        INTERNAL_AUTH_TOKEN: 'x'.repeat(32),
        LOG_FORMAT: 'json',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const url = `http://127.0.0.1:${metricsPort}`;
    await eventually(async () => expect(((await (await fetch(`${url}/livez`)).json()) as { state: string }).state).toBe('starting'), 20_000);
    const readyz = await fetch(`${url}/readyz`);
    expect(readyz.status).toBe(503);
    expect(await readyz.json()).toEqual({ status: 'not ready', checks: { starting: 'connecting to its dependencies' } });
    await eventually(() => expect(output).toContain(`NATS (${nats!.url}) unreachable at start; not ready, retrying`));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(child.exitCode).toBeNull(); // still there, retrying

    await nats.restart();
    await eventually(async () => expect((await fetch(`${url}/readyz`)).status).toBe(200), 20_000, 200);
    expect(((await (await fetch(`${url}/livez`)).json()) as { state: string }).state).toBe('running');
    expect(output).toContain('answered; starting');
    child.kill('SIGTERM');
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(0);
  },
  60_000,
);
