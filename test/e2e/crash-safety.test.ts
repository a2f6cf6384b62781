// Kill -9 the embedded process while deliveries are in flight and retries are scheduled,
// start it again on the same DATA_DIR: every message still reaches the receiver (at least
// once) and every attempt is recorded.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, eventually, freePort } from '@wirehook/testkit';
import { collectStderr, EMBEDDED_START_MS, runAdmin, spawnEmbedded, whileRunning } from '../support/embedded-process.ts';
import { startReceiver, TEST_ALLOW_HOSTS, type NamedReceiver } from '../support/receivers.ts';

const MESSAGES = 60;
let dataDir: string;
let rx: NamedReceiver;
let port: number;
let server: ChildProcess | undefined;
/** The servers this test SIGKILLed itself (any other end is logged: an OOM kill is a SIGKILL too). */
const killedHere = new WeakSet<ChildProcess>();
/** What the running server has written to stderr: a failure names why it stopped answering. */
let serverStderr: () => string = () => '';

async function startServer(): Promise<ChildProcess> {
  const child = await spawnEmbedded({
    port,
    dataDir,
    env: {
      DELIVERY_ALLOW_HOSTS: TEST_ALLOW_HOSTS,
      DELIVERY_RESOLVE: `${rx.host}:${rx.ip}`,
      NODE_EXTRA_CA_CERTS: rx.receiver.caFile,
      SWEEP_INTERVAL_MS: '100',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  serverStderr = collectStderr(child);
  // A fetch outside the waits below fails with "fetch failed" alone: the log says why.
  child.once('exit', (code, signal) => {
    if (!killedHere.has(child)) console.error(`the server exited (${code ?? signal}); its stderr:\n${serverStderr()}`);
  });
  server = child;
  const api = new ApiClient(`http://127.0.0.1:${port}`);
  await whileRunning(
    child,
    serverStderr,
    eventually(async () => expect((await api.get('/healthz')).status).toBe(200), EMBEDDED_START_MS, 100),
  );
  return child;
}

const admin = async (...args: string[]) => (await runAdmin(dataDir, args)).json;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'wirehook-crash-'));
  rx = await startReceiver();
  port = await freePort();
});

afterAll(async () => {
  if (server && server.exitCode === null) {
    killedHere.add(server);
    killedHere.add(server);
    server.kill('SIGKILL');
  }
  await rx?.receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('crash safety (embedded mode)', () => {
  it('a SIGKILL mid-burst loses no message', async () => {
    const org = await admin('org', 'create', '--name', 'Crash', '--plan', 'business');
    const key = (await admin('key', 'create', '--org', org['id'], '--env', 'live'))['key'] as string;
    server = await startServer();
    const api = new ApiClient(`http://127.0.0.1:${port}`, key);
    const consumerId = (await api.post('/v1/consumers', { external_id: 'victim' })).body.id;
    const ep = await api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url() });
    expect(ep.status).toBe(201);

    // Every third message fails once (a retry gets scheduled 5 s out); the rest are slow,
    // so many are in flight when the process dies.
    const seen = new Map<string, number>();
    rx.receiver.respondWith((req) => {
      const id = req.headers['webhook-id']!;
      const n = (seen.get(id) ?? 0) + 1;
      seen.set(id, n);
      const index = Number(JSON.parse(req.body).data.i);
      return index % 3 === 0 && n === 1 ? { status: 500 } : { delayMs: 400 };
    });
    const ids: string[] = [];
    // Sent at once: sent one after another on a loaded machine, the first ones had all been
    // answered before the last was accepted, and the kill found the burst over.
    const sent = await Promise.all(
      Array.from({ length: MESSAGES }, (_, i) => api.post('/v1/messages', { consumer: 'victim', event_type: 'crash.test', payload: { i } })),
    );
    for (const res of sent) {
      expect(res.status).toBe(202);
      ids.push(res.body.id);
    }
    await eventually(() => expect(rx.receiver.requests.length).toBeGreaterThanOrEqual(20), 15_000);
    server.kill('SIGKILL');
    await new Promise((resolve) => server!.once('exit', resolve));
    const beforeRestart = new Set(rx.receiver.requests.map((r) => r.headers['webhook-id']));
    expect(beforeRestart.size).toBeLessThan(MESSAGES); // the crash really cut the burst short

    const restartAt = performance.now();
    server = await startServer();
    const restartMs = Math.round(performance.now() - restartAt);
    await whileRunning(
      server,
      serverStderr,
      eventually(
        async () => {
          for (const id of ids) {
            const detail = (await api.get(`/v1/messages/${id}`)).body;
            expect(detail.status, id).toBe('success');
          }
        },
        60_000,
        500,
      ),
    );
    const delivered = new Set(rx.receiver.requests.map((r) => r.headers['webhook-id']));
    expect([...delivered].sort()).toEqual([...ids].sort());
    const duplicates = rx.receiver.requests.length - delivered.size;
    console.log(
      `crash safety: ${MESSAGES} messages, ${rx.receiver.requests.length} requests, ${duplicates} beyond the first per message; restarted in ${restartMs} ms`,
    );
    // Attempts are on record: each message ends with its 2xx attempt; nothing is recorded
    // that was not sent, and only attempts cut off by the kill (at most the endpoint's 16
    // concurrent slots) can be missing from the record.
    let recorded = 0;
    for (const id of ids) {
      const attempts = (await api.get(`/v1/messages/${id}`)).body.deliveries[0].attempts;
      expect(attempts.at(-1)).toMatchObject({ response_status: 200, error: null });
      recorded += attempts.length;
    }
    expect(recorded).toBeLessThanOrEqual(rx.receiver.requests.length);
    expect(rx.receiver.requests.length - recorded).toBeLessThanOrEqual(16);
    expect(rx.receiver.requests.filter((r) => seen.get(r.headers['webhook-id']!)! > 1).length).toBeGreaterThan(0);
    // Its waits: two starts of up to EMBEDDED_START_MS, the burst's 15 s, the recovery's 60 s.
  }, 180_000);
});
