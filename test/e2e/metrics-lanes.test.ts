// Ordered lanes as an SRE watches them, from embedded mode's /metrics: lanes with an
// open head, lanes blocked by a head waiting for its retry, and the oldest head's age.
import { eventually, readMetric } from '@wirehook/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startWirehook, type Harness } from '../support/harness.ts';
import { type NamedReceiver, reachingReceivers, startReceiver } from '../support/receivers.ts';

let wh: Harness;
let rx: NamedReceiver;
beforeAll(async () => {
  wh = await startWirehook(await reachingReceivers());
  rx = await startReceiver();
});
afterAll(async () => {
  await wh.close();
  await rx.receiver.close();
});

it('lanes open, lanes blocked by a head waiting for its retry, the oldest head’s age; none once the endpoint is gone', async () => {
  const metrics = wh.embedded.metricsUrl();
  const t = await wh.tenant();
  const consumerId = (await t.api.post('/v1/consumers', { external_id: 'lanes' })).body.id;
  const body = { consumer_id: consumerId, url: rx.url(), ordering: 'key', retry: { count: 7, interval: '1m' } };
  const endpoint = (await t.api.post('/v1/endpoints', body)).body.id;
  rx.receiver.respondWith((q) => ({ status: q.headers['webhook-ordering-key'] === 'stuck' ? 503 : 200 }));
  for (const key of ['stuck', 'stuck', 'free']) await t.api.post('/v1/messages', { consumer: 'lanes', event_type: 'a.b', payload: {}, ordering_key: key });
  // free's lane has ended; stuck's head waits a minute for its retry, its second message behind it.
  await eventually(async () => expect(await readMetric(metrics, 'wirehook_ordered_lanes_blocked')).toBe(1));
  await eventually(async () => expect(await readMetric(metrics, 'wirehook_ordered_lanes_open')).toBe(1));
  wh.clock.advance(30_000);
  expect(await readMetric(metrics, 'wirehook_ordered_lane_oldest_head_age_seconds')).toBeGreaterThanOrEqual(30);
  // Deleted, its deliveries fail: no lane is open.
  expect((await t.api.delete(`/v1/endpoints/${endpoint}`)).status).toBe(204);
  await eventually(async () => expect(await readMetric(metrics, 'wirehook_ordered_lanes_open')).toBe(0));
  expect(await readMetric(metrics, 'wirehook_ordered_lanes_blocked')).toBe(0);
  expect(await readMetric(metrics, 'wirehook_ordered_lane_oldest_head_age_seconds')).toBe(0);
});
