// `./dev start --cluster` (node scripts/start.ts --cluster) given its own NATS_URL of a
// nats-server that wants a password and a client certificate: the launcher hands NATS_USER,
// NATS_PASSWORD, NATS_TLS_CA_FILE, NATS_TLS_CERT_FILE, NATS_TLS_KEY_FILE and NATS_PREFIX to
// every service it starts, and a message goes through to a receiver.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { usernamePasswordAuthenticator } from '@nats-io/transport-node';
import { runAdminCommand } from '@wirehook/admin';
import { systemClock } from '@wirehook/core';
import { openEmbeddedStore } from '@wirehook/store';
import { ApiClient, eventually, freePortRun, startNatsServer, testCa, type NatsServer, spawnTestProcess } from '@wirehook/testkit';
import { afterAll, expect, it } from 'vitest';
import { natsTopology } from '../support/nats-topology.ts';
import { startReceiver, TEST_ALLOW_HOSTS } from '../support/receivers.ts';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'wirehook-launcher-nats-'));
let nats: NatsServer | undefined;
let launcher: ChildProcess | undefined;
afterAll(async () => {
  if (launcher && launcher.exitCode === null) {
    const exited = new Promise((resolve) => launcher!.once('exit', resolve));
    launcher.kill('SIGTERM'); // the launcher stops every service it started
    await exited;
  }
  await nats?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('the cluster launcher passes the NATS auth and TLS variables to every service: a message is delivered through an authenticated nats-server', async () => {
  nats = await startNatsServer({ user: { user: 'wh', password: 'launch-secret' }, tls: { verifyClients: true } });
  const { caFile } = await testCa();
  const certFile = join(dir, 'client-cert.pem');
  const keyFile = join(dir, 'client-key.pem');
  writeFileSync(certFile, nats.clientCertificate!.certPem);
  writeFileSync(keyFile, nats.clientCertificate!.keyPem, { mode: 0o600 });
  const rx = await startReceiver();
  const dataDir = join(dir, 'data');
  const base = await freePortRun(13); // 7 metrics ports (6 services and the dispatcher), API, 3 gRPC, portal, Redis
  launcher = spawnTestProcess(process.execPath, [join(root, 'scripts/start.ts'), '--cluster'], {
    env: {
      ...process.env,
      METRICS_PORT: String(base),
      PORT: String(base + 7),
      INTAKE_GRPC_PORT: String(base + 8),
      RECOVERY_GRPC_PORT: String(base + 9),
      RELAY_GRPC_PORT: String(base + 10),
      PORTAL_PORT: String(base + 11),
      REDIS_PORT: String(base + 12),
      NATS_URL: nats.url,
      NATS_USER: 'wh',
      NATS_PASSWORD: 'launch-secret',
      NATS_TLS_CA_FILE: caFile,
      NATS_TLS_CERT_FILE: certFile,
      NATS_TLS_KEY_FILE: keyFile,
      NATS_PREFIX: 'launched',
      REDIS_URL: '',
      MONGODB_URL: '',
      DATA_DIR: dataDir,
      DISPATCHERS: '1',
      // Eight processes starting on two cores beside other test files.
      CLUSTER_START_TIMEOUT_MS: '90000',
      DELIVERY_ALLOW_HOSTS: TEST_ALLOW_HOSTS,
      DELIVERY_RESOLVE: `${rx.host}:${rx.ip}`,
      NODE_EXTRA_CA_CERTS: caFile,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  launcher.stdout!.resume();
  launcher.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    await eventually(() => expect(stderr).toContain('Wirehook (cluster mode): API on'), 150_000, 100);
    // The NATS it reports: the URL as given (no password in it to hide).
    expect(stderr).toContain(`NATS ${nats.url}, Redis`);

    const store = openEmbeddedStore(dataDir);
    let key: string;
    try {
      const admin = (...argv: string[]) => runAdminCommand(argv, { store, clock: systemClock }) as Promise<Record<string, any>>;
      const org = await admin('org', 'create', '--name', 'Launched org', '--plan', 'business');
      key = (await admin('key', 'create', '--org', org['id'], '--env', 'live'))['key'];
    } finally {
      await store.close();
    }
    const api = new ApiClient(`http://127.0.0.1:${base + 7}`, key);
    const consumerId = (await api.post('/v1/consumers', { external_id: 'shop' })).body.id;
    expect((await api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url() })).status).toBe(201);
    const sent = await api.post('/v1/messages', { consumer: 'shop', event_type: 'order.paid', payload: { n: 1 } });
    expect(sent.status).toBe(202);
    await eventually(() => expect(rx.receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([sent.body.id]), 30_000);

    // The wake-up went through the authenticated server, under the launcher's NATS_PREFIX.
    const auth = { authenticator: usernamePasswordAuthenticator('wh', 'launch-secret'), tls: { caFile, certFile, keyFile } };
    // At least one job: the intake's wake-up, and the due sweep's too when its tick read the new
    // delivery before that wake-up was taken (wake-ups are at least once; the claim takes one).
    const topology = await natsTopology(nats.url, auth);
    expect(topology).toEqual([
      { name: 'LAUNCHED_DISPATCH', subjects: ['launched.dispatch'], consumers: ['launched-dispatchers launched.dispatch'], published: expect.any(Number) },
    ]);
    expect(topology[0]!.published).toBeGreaterThanOrEqual(1);
  } finally {
    await rx.receiver.close();
  }
}, 240_000);
