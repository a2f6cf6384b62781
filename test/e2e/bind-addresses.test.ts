// Internal ports stay on loopback by default: with HOST unset (0.0.0.0 for a service started
// directly, the API for everyone), /metrics, /livez and /readyz answer only on 127.0.0.1.
// `./dev start` (scripts/start.ts) is a developer's machine: there the API and the portal
// listen on loopback too unless HOST is set. Loopback is a /8, so a server bound to 0.0.0.0
// also answers on 127.0.0.2 and one bound to 127.0.0.1 does not.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePort, spawnTestProcess } from '@wirehook/testkit';
import { afterAll, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const dataDir = mkdtempSync(join(tmpdir(), 'wirehook-bind-'));
// Every process started here ends with this file, timed out or failed (test/support/end-test-processes.ts).
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** SIGTERM, then resolves once it has exited. */
async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const answers = async (url: string) => {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2_000) })).status;
  } catch {
    return 'refused';
  }
};

it('embedded mode: the API on every address, the metrics port on loopback only (METRICS_HOST widens it)', async () => {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    PORTAL_PORT: String(await freePort()),
    DATA_DIR: dataDir,
  };
  delete env['HOST'];
  delete env['METRICS_HOST'];
  const first = spawnTestProcess(process.execPath, [join(root, 'services/embedded/src/main.ts')], { env, stdio: 'ignore' });
  await eventually(async () => expect(await answers(`http://127.0.0.1:${metricsPort}/livez`)).toBe(200), 20_000);
  expect(await answers(`http://127.0.0.2:${port}/v1/consumers`)).toBe(401);
  expect(await answers(`http://127.0.0.2:${metricsPort}/metrics`)).toBe('refused');
  await stop(first);

  const second = spawnTestProcess(process.execPath, [join(root, 'services/embedded/src/main.ts')], {
    env: { ...env, METRICS_HOST: '0.0.0.0' },
    stdio: 'ignore',
  });
  await eventually(async () => expect(await answers(`http://127.0.0.2:${metricsPort}/livez`)).toBe(200), 20_000);
  await stop(second);
}, 60_000);

it('./dev start (scripts/start.ts): the API and the portal on loopback only unless HOST is set; HOST=0.0.0.0 opens them', async () => {
  const [port, portalPort] = [await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    METRICS_PORT: String(await freePort()),
    PORTAL_PORT: String(portalPort),
    DATA_DIR: dataDir,
  };
  delete env['HOST'];
  const first = spawnTestProcess(process.execPath, [join(root, 'scripts/start.ts')], { env, stdio: 'ignore' });
  await eventually(async () => expect(await answers(`http://127.0.0.1:${port}/v1/consumers`)).toBe(401), 20_000);
  expect(await answers(`http://127.0.0.2:${port}/v1/consumers`)).toBe('refused');
  expect(await answers(`http://127.0.0.1:${portalPort}/healthz`)).toBe(200);
  expect(await answers(`http://127.0.0.2:${portalPort}/healthz`)).toBe('refused');
  await stop(first);

  const second = spawnTestProcess(process.execPath, [join(root, 'scripts/start.ts')], { env: { ...env, HOST: '0.0.0.0' }, stdio: 'ignore' });
  await eventually(async () => expect(await answers(`http://127.0.0.2:${port}/v1/consumers`)).toBe(401), 20_000);
  expect(await answers(`http://127.0.0.2:${portalPort}/healthz`)).toBe(200);
  await stop(second);
}, 60_000);
