// Two cluster-mode installs, each with its own store (DATA_DIR) and Redis, sharing ONE
// nats-server under different NATS_PREFIX values: each delivers its own messages, and every
// stream and consumer on the server carries one install's prefix. The due sweep is slowed to
// a minute, so a wake-up taken by the other install (a shared stream) would not be made good
// by a sweep within the test: only each install's own stream gets its messages delivered.
import { eventually, startNatsServer, type NatsServer } from '@wirehook/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startClusterHarness, type ClusterHarness } from '../support/cluster-harness.ts';
import { natsTopology } from '../support/nats-topology.ts';
import { startReceiver, type NamedReceiver } from '../support/receivers.ts';

let nats: NatsServer;
const installs: ClusterHarness[] = [];

beforeAll(async () => {
  nats = await startNatsServer();
  // One after the other: fourteen processes starting at once on two cores would crawl.
  for (const prefix of ['alpha', 'beta']) {
    installs.push(await startClusterHarness({ nats, env: { NATS_PREFIX: prefix, SWEEP_INTERVAL_MS: '60000' } }));
  }
}, 300_000);
afterAll(async () => {
  await Promise.all(installs.map((h) => h.close()));
  await nats?.stop();
});

/** A tenant of `h` with one endpoint at `rx`; sends `count` messages and returns their ids. */
async function sendTo(h: ClusterHarness, rx: NamedReceiver, count: number): Promise<string[]> {
  const t = await h.tenant();
  const consumerId = (await t.api.post('/v1/consumers', { external_id: 'shop' })).body.id;
  expect((await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url() })).status).toBe(201);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await t.api.post('/v1/messages', { consumer: 'shop', event_type: 'order.paid', payload: { i } });
    expect(res.status).toBe(202);
    ids.push(res.body.id);
  }
  return ids;
}

it('two installs with different NATS_PREFIX on one nats-server deliver independently, each through its own stream', async () => {
  const [a, b] = installs as [ClusterHarness, ClusterHarness];
  const [rxA, rxB] = [await startReceiver(), await startReceiver()];
  try {
    const sentA = await sendTo(a, rxA, 3);
    const sentB = await sendTo(b, rxB, 2);
    const received = (rx: NamedReceiver) => rx.receiver.requests.map((r) => r.headers['webhook-id']).sort();
    await eventually(() => {
      expect(received(rxA)).toEqual([...sentA].sort());
      expect(received(rxB)).toEqual([...sentB].sort());
    }, 30_000);

    // Everything on the server is one install's: its stream, subject and consumer (KV buckets
    // would be streams named KV_…: there are none), and each stream carried its install's jobs.
    // Each stream carried at least its install's jobs: a due sweep whose tick reads a new delivery
    // before the intake's wake-up is taken publishes it too (wake-ups are at least once).
    const topology = await natsTopology(nats.url);
    expect(topology).toEqual([
      { name: 'ALPHA_DISPATCH', subjects: ['alpha.dispatch'], consumers: ['alpha-dispatchers alpha.dispatch'], published: expect.any(Number) },
      { name: 'BETA_DISPATCH', subjects: ['beta.dispatch'], consumers: ['beta-dispatchers beta.dispatch'], published: expect.any(Number) },
    ]);
    expect(topology.map((s) => s.published >= (s.name === 'ALPHA_DISPATCH' ? 3 : 2))).toEqual([true, true]);
  } finally {
    await Promise.all([rxA.receiver.close(), rxB.receiver.close()]);
  }
}, 120_000);
