// Readiness gates only on what a pod needs to serve its own traffic: with Redis stopped the
// gateway stays in its Service (rate limits fail open), with NATS stopped message-intake
// does (sends are stored and answered 202; the sweeper delivers). Both still name the
// dependency that failed, in /readyz and in wirehook_readiness_check_up.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePort, startNatsServer, startRedisServer, type NatsServer, type RedisServer, spawnTestProcess } from '@wirehook/testkit';
import { afterAll, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const dataDir = mkdtempSync(join(tmpdir(), 'wirehook-degraded-'));
const children: ChildProcess[] = [];
let nats: NatsServer | undefined;
let redis: RedisServer | undefined;
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all([nats?.stop(), redis?.stop()]);
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts `services/<service>/src/main.ts` and resolves with its metrics URL once it is ready. */
async function startService(service: string, env: Record<string, string>): Promise<string> {
  const metricsPort = await freePort();
  let output = '';
  const child = spawnTestProcess(process.execPath, [join(root, 'services', service, 'src', 'main.ts')], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      MONGODB_URL: '',
      HOST: '127.0.0.1',
      METRICS_PORT: String(metricsPort),
      INTERNAL_AUTH_TOKEN: 'x'.repeat(32),
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const url = `http://127.0.0.1:${metricsPort}`;
  await eventually(async () => {
    expect(child.exitCode, output).toBeNull();
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
  }, 20_000);
  return url;
}

const readyz = async (url: string) => {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, string> } };
};
const checkUp = async (url: string, check: string) =>
  (await (await fetch(`${url}/metrics`)).text()).split('\n').find((line) => line.startsWith(`wirehook_readiness_check_up{check="${check}"`));

it('gateway: Redis stopped, still ready (200), redis named as failing; the listener and the store gate', async () => {
  redis = await startRedisServer();
  const url = await startService('gateway', { REDIS_URL: redis.url, PORT: String(await freePort()) });
  expect(await readyz(url)).toEqual({ status: 200, body: { status: 'ready', checks: { api: 'ok', store: 'ok', redis: 'ok', secret_key: 'ok' } } });

  await redis.stop();
  const degraded = await readyz(url);
  expect(degraded.status).toBe(200);
  expect(degraded.body.status).toBe('ready');
  expect(degraded.body.checks).toMatchObject({ api: 'ok', store: 'ok', secret_key: 'ok' });
  expect(degraded.body.checks['redis']).not.toBe('ok');
  expect(await checkUp(url, 'redis')).toMatch(/gates="false".* 0$/);

  await redis.restart();
  await eventually(async () => expect((await readyz(url)).body.checks['redis']).toBe('ok'), 15_000, 200);
  expect(await checkUp(url, 'redis')).toMatch(/ 1$/);
}, 45_000);

it('message-intake: NATS stopped, still ready (200), nats named as failing; only the store gates', async () => {
  nats = await startNatsServer();
  const url = await startService('message-intake', { NATS_URL: nats.url, GRPC_PORT: String(await freePort()) });
  expect(await readyz(url)).toEqual({ status: 200, body: { status: 'ready', checks: { store: 'ok', nats: 'ok' } } });

  await nats.kill();
  // eventually: the client notices the closed connection on its next read.
  await eventually(async () => expect((await readyz(url)).body.checks['nats']).not.toBe('ok'), 10_000, 200);
  const degraded = await readyz(url);
  expect(degraded).toMatchObject({ status: 200, body: { status: 'ready', checks: { store: 'ok' } } });
  expect(await checkUp(url, 'nats')).toMatch(/gates="false".* 0$/);

  await nats.restart();
  await eventually(async () => expect((await readyz(url)).body.checks['nats']).toBe('ok'), 15_000, 200);
}, 45_000);
