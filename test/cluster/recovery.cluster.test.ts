// Recovery in cluster mode: the gateway starts it over gRPC, the recovery process drives it
// as dispatch jobs on JetStream; SIGKILLed mid-way and restarted, it carries on after the
// dead run's lease, and every failed delivery is re-sent exactly once with its webhook-id.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually } from '@wirehook/testkit';
import { startClusterHarness, type ClusterHarness } from '../support/cluster-harness.ts';
import { startReceiver, type NamedReceiver } from '../support/receivers.ts';

let h: ClusterHarness;
let rx: NamedReceiver;

beforeAll(async () => {
  h = await startClusterHarness({ dispatchers: 1 });
  rx = await startReceiver();
}, 60_000);
afterAll(async () => {
  await h?.close();
  await rx?.receiver.close();
});

it('120 failed deliveries re-sent once each, paced, through a SIGKILL of the recovery process; ends done', async () => {
  const t = await h.tenant();
  const consumerId = (await t.api.post('/v1/consumers', { external_id: 'c' })).body.id;
  const endpoint = (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url(), retry: { count: 0, interval: '1m' } })).body.id;
  rx.receiver.respondWith({ status: 503 });
  const since = h.clock.now();
  const ids: string[] = [];
  for (let i = 0; i < 120; i++) ids.push((await t.api.post('/v1/messages', { consumer: 'c', event_type: 'a.b', payload: { i } })).body.id);
  await eventually(async () => {
    for (const id of ids) expect((await t.api.get(`/v1/messages/${id}`)).body.status).toBe('failed');
  }, 60_000, 250);
  rx.receiver.respondWith({});
  rx.receiver.clear();
  const received = () => rx.receiver.requests.filter((r) => ids.includes(r.headers['webhook-id']!));

  const started = await t.api.post(`/v1/endpoints/${endpoint}/recover`, { since });
  expect(started.status).toBe(202);
  expect(started.body).toMatchObject({ status: 'running', total: 120 });
  const rid = started.body.id;
  await eventually(() => expect(received()).toHaveLength(50), 30_000, 100);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(received()).toHaveLength(50); // the next 50 wait for the clock's 10 s

  // The process driving it dies with its lease; a new one takes over once the lease is out.
  await h.cluster.kill('recovery', 'SIGKILL');
  await h.cluster.restart('recovery');
  await h.advance(10_000);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(received()).toHaveLength(50);
  await h.advance(60_000);
  await eventually(() => expect(received()).toHaveLength(100), 30_000, 100);
  await eventually(async () => {
    for (const id of ids.slice(0, 100)) expect((await t.api.get(`/v1/messages/${id}`)).body.status).toBe('success');
  }, 30_000, 250);
  await h.advance(10_000);
  await eventually(() => expect(received()).toHaveLength(120), 30_000, 100);
  await eventually(async () => expect((await t.api.get(`/v1/endpoints/${endpoint}/recoveries/${rid}`)).body).toMatchObject({ status: 'done', queued: 120 }), 30_000, 200);
  for (const id of ids) expect(received().filter((r) => r.headers['webhook-id'] === id)).toHaveLength(1);
}, 180_000);
