// One organization's hanging targets do not delay another's notices, end to end with
// the engine ticking on its own (1 s). Org A has 200 alert targets at a host that accepts the
// connection and never answers (a real loopback server): 20 webhook targets made through the
// API (the cap per environment) and 180 chat targets written to the store as if made before
// the cap. A's endpoint fails, so A's 200 notices queue and hang until each send's 10 s bound;
// then org B's endpoint fails. B's first notice must arrive within 10 s of that failure: behind
// a FIFO outbox of 50 sends at a time it waits for A's 200 (four rounds of hanging sends).
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newId, type OrgId } from '@wirehook/core';
import { eventually } from '@wirehook/testkit';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';
import { freshLoopbackIp, hostFor, reachingReceivers, startReceiver, type NamedReceiver } from '../support/receivers.ts';

let wh: Harness;
let failing: NamedReceiver;
let hooks: NamedReceiver;
let hang: { server: Server; host: string; sockets: Set<Socket> };

/** A TCP server on 8443 of a free loopback address that accepts every connection and never sends a byte. */
async function startHangingHost(): Promise<typeof hang> {
  for (let tries = 0; ; tries++) {
    const ip = freshLoopbackIp();
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    });
    try {
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(8443, ip, resolve));
      return { server, host: hostFor(ip), sockets };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || tries > 20) throw err;
    }
  }
}

beforeAll(async () => {
  wh = await startWirehook(await reachingReceivers());
  [failing, hooks, hang] = await Promise.all([startReceiver(), startReceiver(), startHangingHost()]);
  failing.receiver.respondWith({ status: 503 });
});
afterAll(async () => {
  await wh.close();
  for (const socket of hang.sockets) socket.destroy();
  await new Promise((resolve) => hang.server.close(resolve));
  await Promise.all([failing, hooks].map((r) => r.receiver.close()));
});

/** A failing endpoint of `t`'s consumer `name` (no retries: one attempt fails it). */
async function endpoint(t: TestTenant, name: string): Promise<void> {
  const consumer = (await t.api.post('/v1/consumers', { external_id: name })).body.id;
  await t.api.post('/v1/endpoints', { consumer_id: consumer, url: failing.url(`/${t.orgId}/${name}`), retry: { count: 0, interval: '1m' } });
}

/** Sends one message to `t`'s consumer and resolves when its endpoint answered the attempt (503: the failure). */
async function fail(t: TestTenant, consumer: string): Promise<void> {
  await t.api.post('/v1/messages', { consumer, event_type: 'order.created', payload: {} });
  await eventually(() => expect(failing.receiver.requests.some((r) => r.path === `/${t.orgId}/${consumer}`)).toBe(true), 10_000);
}

it("B's first notice arrives within 10 s of its failure while A's 200 targets hang", async () => {
  const a = await wh.tenant();
  await a.api.put('/v1/alert-conditions', { delivery_failure: 'first' });
  for (let i = 0; i < 20; i++) {
    expect((await a.api.post('/v1/alert-targets', { type: 'webhook', url: `https://${hang.host}:8443/hook/${i}` })).status).toBe(201);
  }
  for (let i = 0; i < 180; i++) {
    const id = newId('alertTarget', wh.clock);
    const target = { id, type: 'chat' as const, url: `https://${hang.host}:8443/chat/${i}`, address: null, sealedSecret: null, createdAt: wh.clock.now() };
    await wh.store.alerts.createTarget({ orgId: a.orgId as OrgId, env: 'live' }, target);
  }
  await endpoint(a, 'a-1');
  const b = await wh.tenant();
  await b.api.put('/v1/alert-conditions', { delivery_failure: 'first' });
  await b.api.post('/v1/alert-targets', { type: 'webhook', url: hooks.url(`/alerts/${b.orgId}`) });
  await endpoint(b, 'b-1');

  await fail(a, 'a-1');
  // A's notices are being sent (and hang) before B fails.
  await eventually(() => expect(hang.sockets.size).toBeGreaterThanOrEqual(10), 15_000);
  await fail(b, 'b-1');
  const failedAt = performance.now();
  await eventually(() => expect(hooks.receiver.requests.some((r) => r.path === `/alerts/${b.orgId}`)).toBe(true), 30_000);
  const waited = performance.now() - failedAt;
  expect(waited, `B's notice came ${Math.round(waited)} ms after its failure`).toBeLessThan(10_000);
}, 90_000);
