// Two gateway processes sharing one Redis: one rate limit per environment, one message per
// Idempotency-Key, whichever gateway a request reaches (the store decides; Redis in front
// holds duplicates back while the first is in flight).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, freePort, readMetric } from '@wirehook/testkit';
import { startClusterHarness, type ClusterHarness } from '../support/cluster-harness.ts';

let h: ClusterHarness;
let second: ApiClient;

beforeAll(async () => {
  h = await startClusterHarness();
  const first = h.cluster.specs.find((s) => s.name === 'gateway')!;
  const [port, metricsPort] = [await freePort(), await freePort()];
  await h.cluster.add({ name: 'gateway-2', service: 'gateway', metricsPort, env: { ...first.env, PORT: String(port), METRICS_PORT: String(metricsPort) } });
  second = new ApiClient(`http://127.0.0.1:${port}`);
}, 180_000); // a loaded CI machine starts ten processes slowly
afterAll(() => h?.close());

describe('two gateways, one Redis', () => {
  it('count one rate limit per environment', async () => {
    const t = await h.tenant({ plan: 'free' });
    const a = t.api;
    const b = second.as(t.key);
    // Start at the beginning of a minute so the budget is not split by a window edge.
    const toNextMinute = 60_000 - (h.clock.now() % 60_000) + 50;
    await h.advance(toNextMinute);
    for (let i = 0; i < 600; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => ((i + j) % 2 ? a : b).get('/v1/event-types')));
    }
    const [ra, rb] = [await a.get('/v1/event-types'), await b.get('/v1/event-types')];
    expect(ra.status).toBe(429);
    expect(rb.status).toBe(429);
    expect(rb.headers.get('x-ratelimit-remaining')).toBe('0');
  }, 60_000);

  it('say a replay is one (idempotent-replayed: true, answered from Redis) and give every answer an x-request-id, whichever gateway answers', async () => {
    const t = await h.tenant();
    const send = (api: ApiClient) => api.post('/v1/messages', { consumer: 'idem', event_type: 'x', payload: {} }, { 'idempotency-key': 'replayed-key' });
    const first = await send(t.api);
    expect(first.status).toBe(202);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await send(second.as(t.key));
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    for (const res of [first, again, await second.get('/v1/consumers')]) expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
  }, 60_000);

  it('make one message of a 50-way burst of one Idempotency-Key; the duplicates are answered in front of the store', async () => {
    const t = await h.tenant();
    const b = second.as(t.key);
    const metrics = (service: string) => `http://127.0.0.1:${h.cluster.specs.find((s) => s.name === service)!.metricsPort}`;
    const sum = async (names: string[], metric: string, labels: Record<string, string> = {}) =>
      (await Promise.all(names.map((n) => readMetric(metrics(n), metric, labels)))).reduce((x, y) => x + y, 0);
    const intake = (outcome: string) => sum(['message-intake'], 'wirehook_intake_messages_total', { outcome });
    const front = async () =>
      (await sum(['gateway', 'gateway-2'], 'wirehook_idempotency_replays_total')) +
      (await sum(['gateway', 'gateway-2'], 'wirehook_idempotency_waits_total', { outcome: 'answered' }));
    const before = { accepted: await intake('accepted'), replayed: await intake('replayed'), front: await front() };

    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 ? t.api : b).post('/v1/messages', { consumer: 'idem', event_type: 'x', payload: { i } }, { 'idempotency-key': 'shared-key' }),
      ),
    );
    expect(results.every((r) => r.status === 202)).toBe(true);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect((await t.api.get('/v1/messages?q=shared-key')).body.items).toHaveLength(1);
    // One store write; each of the 49 duplicates was answered either in front (Redis) or by
    // intake's replay, and the front answered some of them.
    expect((await intake('accepted')) - before.accepted).toBe(1);
    const answeredInFront = (await front()) - before.front;
    expect(answeredInFront + (await intake('replayed')) - before.replayed).toBe(49);
    expect(answeredInFront).toBeGreaterThan(0);
  }, 60_000);

  it('say a replay the store decided is one too (Redis lost the key: the answer comes through message-intake over gRPC)', async () => {
    const t = await h.tenant();
    const send = () => t.api.post('/v1/messages', { consumer: 'idem', event_type: 'x', payload: {} }, { 'idempotency-key': 'store-key' });
    const first = await send();
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    await h.redis.kill(); // no persistence: it comes back empty, the front has no answer
    await h.redis.restart();
    const again = await send();
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  }, 60_000);
});
