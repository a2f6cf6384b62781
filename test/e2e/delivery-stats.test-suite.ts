// The delivery suite's endpoint health: GET /v1/endpoints/{id}/stats after real sends,
// its errors and its scope.
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@wirehook/testkit';
import { startReceiver, type NamedReceiver } from '../support/receivers.ts';
import type { DeliveryHarness, DeliverySuite } from '../support/delivery-suite-context.ts';

/** Registers the part in the calling describe. */
export function describeEndpointStats(suite: DeliverySuite): void {
  describe('endpoint health (GET /v1/endpoints/{id}/stats)', () => {
    const { extra, endpoint, send, detail } = suite;
    let wh: DeliveryHarness;
    let rx: NamedReceiver;
    let ep: Awaited<ReturnType<typeof endpoint>>;
    const sum = (series: { attempts: number; succeeded: number; failed: number }[], key: 'attempts' | 'succeeded' | 'failed') =>
      series.reduce((n, p) => n + p[key], 0);

    beforeAll(async () => {
      wh = suite.wh;
      // A receiver of its own, failing its first 10 requests with a 503 and taking the rest.
      rx = await startReceiver();
      extra.push(rx);
      let answered = 0;
      rx.receiver.respondWith(() => (++answered <= 10 ? { status: 503, body: 'warming up' } : { status: 204 }));
      ep = await endpoint({ retry: { count: 0, interval: '1m' } }, rx.url());
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) ids.push((await send(ep.consumer, { n: i })).body.id);
      await eventually(
        async () => {
          const statuses = await Promise.all(ids.map(async (id) => (await detail(id)).status));
          expect(statuses.filter((s) => s === 'success')).toHaveLength(20);
          expect(statuses.filter((s) => s === 'failed')).toHaveLength(10);
        },
        60_000,
        200,
      );
    }, 90_000);

    it('30 messages to an endpoint failing the first 10, no retries: 30 attempts, 20 succeeded, 10 failed (5xx), in every window', async () => {
      // Embedded, the read writes its process's rollups first; in cluster mode the dispatchers'
      // arrive within their flush interval (1 s with SQLite, 2 s with MongoDB: docs/semantics.md).
      await eventually(async () => expect((await suite.t.api.get(`/v1/endpoints/${ep.id}/stats?window=1h`)).body).toMatchObject({ attempts: 30 }), 10_000, 100);
      for (const window of ['1h', '24h', '7d'] as const) {
        const res = await suite.t.api.get(`/v1/endpoints/${ep.id}/stats?window=${window}`);
        expect(res.status).toBe(200);
        const stats = res.body;
        expect(stats).toMatchObject({
          endpoint_id: ep.id,
          window,
          attempts: 30,
          succeeded: 20,
          failed: 10,
          success_rate: 0.6667,
          errors: { http_4xx: 0, http_5xx: 10, timeout: 0, connection: 0, tls: 0, dns: 0, refused: 0, relay: 0 },
          pending: 0,
          oldest_pending_at: null,
        });
        expect(stats.series).toHaveLength({ '1h': 12, '24h': 24, '7d': 28 }[window]);
        expect(sum(stats.series, 'attempts')).toBe(30);
        expect(sum(stats.series, 'succeeded')).toBe(20);
        expect(sum(stats.series, 'failed')).toBe(10);
        // The window ends at the end of the bucket holding now; the buckets tile it, oldest first.
        const bucket = (stats.to - stats.from) / stats.series.length;
        expect(bucket).toBe({ '1h': 5 * 60_000, '24h': 3_600_000, '7d': 6 * 3_600_000 }[window]);
        expect(stats.to % bucket).toBe(0);
        expect(stats.to).toBeGreaterThan(wh.clock.now());
        expect(stats.to - bucket).toBeLessThanOrEqual(wh.clock.now());
        expect(stats.series.map((p: { at: number }) => p.at)).toEqual(stats.series.map((_: unknown, i: number) => stats.from + i * bucket));
        expect(stats.latency_ms.p50).toBeGreaterThan(0);
        expect(stats.latency_ms.p50).toBeLessThanOrEqual(stats.latency_ms.p95);
        expect(stats.latency_ms.p95).toBeLessThanOrEqual(stats.latency_ms.p99);
      }
      // Without ?window=: 24 hours.
      expect((await suite.t.api.get(`/v1/endpoints/${ep.id}/stats`)).body).toMatchObject({ window: '24h', attempts: 30 });
    });

    it('an endpoint without attempts: zeros, and null rate and latencies', async () => {
      const quiet = await endpoint();
      const res = await suite.t.api.get(`/v1/endpoints/${quiet.id}/stats?window=1h`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ attempts: 0, success_rate: null, latency_ms: { p50: null, p95: null, p99: null }, pending: 0, oldest_pending_at: null });
      expect(res.body.series.every((p: { attempts: number; p95_ms: number | null }) => p.attempts === 0 && p.p95_ms === null)).toBe(true);
    });

    it('422 for a window other than 1h, 24h, 7d (and for an unknown parameter), before looking the endpoint up', async () => {
      for (const query of ['window=2h', 'window=', 'window=7D', 'windows=1h']) {
        const res = await suite.t.api.get(`/v1/endpoints/${ep.id}/stats?${query}`);
        expect(res.status, query).toBe(422);
        expect(res.body.error).toBe('invalid');
      }
      expect((await suite.t.api.get(`/v1/endpoints/${ep.id}/stats?window=2h`)).body.message).toBe('window: must be one of 1h, 24h, 7d');
      expect((await suite.t.api.get('/v1/endpoints/ep_nope/stats?window=2h')).status).toBe(422);
    });

    it('404 for another organization’s endpoint, another environment’s, and one that does not exist', async () => {
      const other = await wh.tenant();
      const testEnv = await wh.key(suite.t.orgId, { env: 'test' });
      for (const [api, id] of [
        [other.api, ep.id],
        [testEnv.api, ep.id],
        [suite.t.api, 'ep_01JH4Z6Q8R2W7X3Y5Z9A0B1C2G'],
      ] as const) {
        const res = await api.get(`/v1/endpoints/${id}/stats`);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: 'not_found', message: `endpoint ${id} not found` });
      }
    });

    it('needs logs:read', async () => {
      const sender = await wh.key(suite.t.orgId, { scopes: ['messages:send'] });
      expect((await sender.api.get(`/v1/endpoints/${ep.id}/stats`)).status).toBe(403);
    });
  });
}
