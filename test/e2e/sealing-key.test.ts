// The key ring that seals signing secrets, as an operator meets it: a wrong key is refused at
// start with one line naming WIREHOOK_SECRET_KEY; a rotation re-seals every secret while the
// server runs; a process left with a retired key reports not-ready and puts its sends off
// (no attempt, the endpoint not blamed) until it is restarted with the new ring.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyFingerprint, SecretBox, within } from '@wirehook/core';
import { resealAll } from '@wirehook/platform';
import { ApiClient, eventually, freePort, readMetric, testCa, testClientCertificate, verifyWebhook } from '@wirehook/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { startWirehook } from '../support/harness.ts';
import { collectStderr, EMBEDDED_START_MS, runAdmin, spawnEmbedded } from '../support/embedded-process.ts';
import { startReceiver, TEST_ALLOW_HOSTS, TEST_RESOLVE } from '../support/receivers.ts';
import { TokenServer } from '../support/token-server.ts';

const A = SecretBox.generateKey();
const B = SecretBox.generateKey();
const idA = keyFingerprint(Buffer.from(A, 'base64'));
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const newDataDir = () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'wirehook-keys-')), 'data');
  dirs.push(dir);
  return dir;
};

const adminIn = (dataDir: string, key: string, ...args: string[]) => runAdmin(dataDir, args, { WIREHOOK_SECRET_KEY: key });

/** Starts `./dev start`'s process; resolves once it is ready, or with its exit code and stderr if it exits first. */
async function startEmbedded(dataDir: string, key: string) {
  const port = await freePort();
  const child = await spawnEmbedded({ port, dataDir, env: { WIREHOOK_SECRET_KEY: key, DELIVERY_ALLOW_HOSTS: 'localhost' } });
  const stderr = collectStderr(child);
  // 'close', not 'exit': after it the pipes are read to their end, so stderr() holds the refusal's last line.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  // Ready as its line arrives (no poll left running once the process has exited instead).
  let stdout = '';
  const ready = new Promise<'ready'>((resolve) =>
    child.stdout!.on('data', (d) => {
      stdout += d;
      if (stdout.includes('wirehook ready')) resolve('ready');
    }),
  );
  const first = await within(
    Promise.race([ready, exited]),
    EMBEDDED_START_MS,
    () => new Error(`neither ready nor exited in ${EMBEDDED_START_MS} ms; its stderr:\n${stderr()}`),
  );
  return {
    first,
    stderr,
    api: new ApiClient(`http://127.0.0.1:${port}`),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('the sealing key at start', () => {
  it(
    'a wrong key is refused with one line naming WIREHOOK_SECRET_KEY; a rotated ring starts; reseal retires the old key',
    async () => {
      const dataDir = newDataDir();
      const first = await startEmbedded(dataDir, A);
      expect(first.first).toBe('ready');
      const org = (await adminIn(dataDir, A, 'org', 'create', '--name', 'Acme')).json;
      const key = (await adminIn(dataDir, A, 'key', 'create', '--org', org['id'], '--env', 'live')).json;
      const api = first.api.as(key['key']);
      const consumer = (await api.post('/v1/consumers', { external_id: 'c1' })).body.id;
      const auth = {
        type: 'oauth2_client_credentials',
        token_url: 'https://localhost:8443/oauth/token',
        client_id: 'c',
        client_secret: 's3cret',
        token_auth_method: 'client_secret_basic',
      };
      const endpoint = await api.post('/v1/endpoints', { consumer_id: consumer, url: 'https://localhost:8443/x', headers: { 'X-Api-Key': 'gw-0042' }, auth });
      expect(endpoint.status).toBe(201);
      expect(await first.stop()).toBe(0);
      // The data is owner-only: it holds every payload and the sealed secrets.
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dataDir, 'wirehook.sqlite')).mode & 0o777).toBe(0o600);

      const wrong = await startEmbedded(dataDir, B);
      expect(wrong.first).toBe(1);
      const lines = wrong.stderr().trim().split('\n');
      expect(lines.at(-1)).toBe(
        `wirehook: WIREHOOK_SECRET_KEY does not open this store's signing secrets: they were sealed with key ${idA}, ` +
          `and the ring holds ${keyFingerprint(Buffer.from(B, 'base64'))}. ` +
          'Set the key they were sealed with (or add it to the ring as ID:BASE64; see docs/operations.md)',
      );
      expect(wrong.stderr()).not.toMatch(/\n\s+at /); // no stack

      // Rotation: the new key first, the old one still in the ring; the server runs meanwhile.
      const ring = `new:${B},${A}`;
      const rotated = await startEmbedded(dataDir, ring);
      expect(rotated.first).toBe('ready');
      const report = await adminIn(dataDir, ring, 'secrets', 'reseal');
      expect(report.code).toBe(0);
      // The signing secret, the custom headers and the OAuth client secret: all re-sealed, so the old key can leave.
      expect(report.json).toEqual({
        key_id: 'new',
        endpoints: 1,
        endpoint_headers: 1,
        endpoint_tls_keys: 0,
        endpoint_auth_secrets: 1,
        alert_targets: 0,
        resealed: 3,
        skipped: 0,
        retired_keys: [idA],
        kept_keys: [],
      });
      expect(await rotated.stop()).toBe(0);

      // The old key alone is refused now; the new key alone starts.
      const old = await startEmbedded(dataDir, A);
      expect(old.first).toBe(1);
      expect(old.stderr()).toContain(`they were sealed with key new, and the ring holds ${idA}`);
      const fresh = await startEmbedded(dataDir, `new:${B}`);
      expect(fresh.first).toBe('ready');
      expect(await fresh.stop()).toBe(0);
    },
    3 * EMBEDDED_START_MS + 60_000,
  ); // three starts at most EMBEDDED_START_MS each, the refusals and the admin runs
});

describe('a process whose key was retired by a re-seal elsewhere', () => {
  it('reports not-ready naming the key, puts sends off without an attempt, and delivers once restarted with the new ring', async () => {
    const ca = (await testCa()).caPem;
    // A receiver that takes only a client certificate of its CA and a Bearer token of its token endpoint.
    const rx = await startReceiver({ clientCa: ca });
    const tokens = await TokenServer.start();
    rx.receiver.respondWith(tokens.requireBearer());
    const { certPem, keyPem } = await testClientCertificate();
    const dataDir = newDataDir();
    const options = { allowHosts: TEST_ALLOW_HOSTS, resolve: TEST_RESOLVE, ca, dataDir };
    const before = await startWirehook({ ...options, secretKey: A });
    try {
      const t = await before.tenant();
      const consumer = (await t.api.post('/v1/consumers', { external_id: 'c1' })).body.id;
      const created = (
        await t.api.post('/v1/endpoints', {
          consumer_id: consumer,
          url: rx.url(),
          headers: { 'X-Api-Key': 'rotating-5150' },
          tls: { client_certificate: certPem, client_key: keyPem },
          auth: tokens.auth(),
        })
      ).body;
      const endpoint = created.id;
      const metrics = before.embedded.metricsUrl();
      expect((await fetch(`${metrics}/readyz`)).status).toBe(200);

      // An operator rotates to key B and re-seals while this process still has only A.
      await resealAll(before.store.sealing, { box: SecretBox.fromBase64(`b:${B},${A}`), source: 'WIREHOOK_SECRET_KEY' }, before.clock);
      const ready = await fetch(`${metrics}/readyz`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { checks: Record<string, string> }).checks.secret_key).toContain(`sealed with key b, and the ring holds ${idA}`);

      const sent = await t.api.post('/v1/messages', { consumer: 'c1', event_type: 'order.created', payload: { n: 1 } });
      expect(sent.status).toBe(202);
      await eventually(async () => expect(await readMetric(metrics, 'wirehook_dispatch_unseal_errors_total')).toBeGreaterThan(0));
      const detail = (await t.api.get(`/v1/messages/${sent.body.id}`)).body;
      expect(detail.deliveries[0].attempts).toEqual([]); // no attempt: the endpoint is not at fault
      expect(detail.status).toBe('pending');
      expect((await t.api.get(`/v1/endpoints/${endpoint}`)).body.status).toBe('active');
      expect(rx.receiver.requests).toHaveLength(0);
      expect(tokens.requests).toHaveLength(0); // the client secret did not open either: no token request
      await before.close();

      // Restarted with the new key alone (the re-seal retired A): ready, and the message goes out after its minute.
      const after = await startWirehook({ ...options, secretKey: `b:${B}`, startAt: before.clock.now() });
      try {
        expect((await fetch(`${after.embedded.metricsUrl()}/readyz`)).status).toBe(200);
        await after.advance(61_000);
        await eventually(() => expect(rx.receiver.requests.filter((r) => r.headers['webhook-id'] === sent.body.id)).toHaveLength(1));
        // Signed with the secret re-sealed under key B: the customer's secret did not change.
        expect(verifyWebhook(created.secret, rx.receiver.requests[0]!)).toMatchObject({ type: 'order.created' });
        // And its custom headers, client key (the receiver took the handshake) and OAuth secret, re-sealed under B too.
        expect(rx.receiver.requests[0]!.headers['x-api-key']).toBe('rotating-5150');
        expect(rx.receiver.requests[0]!.headers['authorization']).toBe(`Bearer ${tokens.issued[0]!.token}`);
        expect(tokens.requests).toHaveLength(1);
      } finally {
        await after.close();
      }
    } finally {
      await Promise.all([rx.receiver.close(), tokens.close()]);
    }
  }, 60_000);
});
