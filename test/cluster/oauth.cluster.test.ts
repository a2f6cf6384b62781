// OAuth client credentials across two dispatcher processes sharing Redis: 1,000 deliveries cost
// one token request however the dispatchers split them; a revoked token's 401s on both bring one
// new token; a fixed_ip endpoint's token comes from the relay process's pool address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, readMetric } from '@wirehook/testkit';
import { startClusterHarness, type ClusterHarness } from '../support/cluster-harness.ts';
import { startReceiver, type NamedReceiver } from '../support/receivers.ts';
import { TokenServer } from '../support/token-server.ts';
import type { TestTenant } from '../support/harness.ts';

let h: ClusterHarness;
let t: TestTenant;
let tokens: TokenServer;
let rx: NamedReceiver;
beforeAll(async () => {
  h = await startClusterHarness({ dispatchers: 2 });
  t = await h.tenant();
  tokens = await TokenServer.start();
  rx = await startReceiver();
  rx.receiver.respondWith(tokens.requireBearer({ status: 204 }));
}, 180_000);
afterAll(async () => {
  await h?.close();
  await Promise.all([tokens?.close(), rx?.receiver.close()]);
});

let seq = 0;
async function endpoint(body: Record<string, unknown>) {
  const consumer = `oauth-${++seq}`;
  const consumerId = (await t.api.post('/v1/consumers', { external_id: consumer })).body.id;
  const made = await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url(), ...body });
  expect(made.status).toBe(201);
  return { consumer, id: made.body.id as string };
}
const send = async (consumer: string, n: number) => (await t.api.post('/v1/messages', { consumer, event_type: 'a.b', payload: { n } })).body.id as string;
const successesOn = (name: string) =>
  readMetric(`http://127.0.0.1:${h.cluster.specs.find((s) => s.name === name)!.metricsPort}`, 'wirehook_delivery_attempts_total', { outcome: 'success' });

describe('OAuth tokens shared by two dispatchers (cluster)', () => {
  it('1,000 deliveries, sent by both dispatchers, cost one token request', async () => {
    const ep = await endpoint({ auth: tokens.auth() });
    const before = { one: await successesOn('dispatcher-1'), two: await successesOn('dispatcher-2'), tokens: tokens.requests.length };
    const ids = new Set<string>();
    for (let batch = 0; batch < 20; batch++) {
      for (const id of await Promise.all(Array.from({ length: 50 }, (_, i) => send(ep.consumer, batch * 50 + i)))) ids.add(id);
    }
    const arrived = () => new Set(rx.receiver.requests.filter((r) => ids.has(r.headers['webhook-id']!)).map((r) => r.headers['webhook-id']));
    await eventually(() => expect(arrived().size).toBe(1_000), 150_000, 500);
    expect(tokens.requests.length - before.tokens).toBe(1);
    // Both took part: the shared token, not one dispatcher doing all the work, is what is shown.
    // (Received is not yet counted: an attempt is counted after the receiver's answer.)
    await eventually(async () => {
      expect(await successesOn('dispatcher-1')).toBeGreaterThan(before.one);
      expect(await successesOn('dispatcher-2')).toBeGreaterThan(before.two);
    });
  }, 200_000);

  it('a revoked token: 401s on both dispatchers bring one new token, and every webhook arrives in its first attempt', async () => {
    const ep = await endpoint({ auth: tokens.auth() });
    const first = await send(ep.consumer, 0);
    await eventually(() => expect(rx.receiver.requests.some((r) => r.headers['webhook-id'] === first)).toBe(true), 30_000);
    // A token is replaced on a 401 once it is 30 s old (a receiver refusing fresh ones costs no token storm).
    await h.advance(30_000);
    tokens.revoke(tokens.issued.at(-1)!.token);
    const before = tokens.requests.length;
    const ids = await Promise.all(Array.from({ length: 40 }, (_, n) => send(ep.consumer, n + 1)));
    await eventually(
      async () => {
        for (const id of ids) expect((await t.api.get(`/v1/messages/${id}`)).body.status).toBe('success');
      },
      60_000,
      250,
    );
    expect(tokens.requests.length - before).toBe(1);
    for (const id of ids.slice(0, 10)) {
      expect((await t.api.get(`/v1/messages/${id}`)).body.deliveries[0].attempts).toEqual([expect.objectContaining({ response_status: 204 })]);
    }
  }, 90_000);

  it('a fixed_ip endpoint’s token request leaves from the relay process’s pool address', async () => {
    const own = await TokenServer.start({ method: 'client_secret_post' });
    const target = await startReceiver();
    target.receiver.respondWith(own.requireBearer({ status: 204 }));
    try {
      const consumer = `oauth-relay-${++seq}`;
      const consumerId = (await t.api.post('/v1/consumers', { external_id: consumer })).body.id;
      const made = await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: target.url(), fixed_ip: true, auth: own.auth() });
      expect(made.status).toBe(201);
      const id = await send(consumer, 1);
      await eventually(() => expect(target.receiver.requests.filter((r) => r.headers['webhook-id'] === id)).toHaveLength(1), 30_000);
      expect(own.requests.map((r) => r.remoteAddress)).toEqual(['127.0.0.2']);
      expect(target.receiver.requests[0]!.remoteAddress).toBe('127.0.0.2');
    } finally {
      await Promise.all([own.close(), target.receiver.close()]);
    }
  }, 60_000);
});
