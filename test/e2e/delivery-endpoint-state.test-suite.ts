// The delivery suite's endpoint states: paused and resumed (the held months), disabled after 5
// days failing, a single delivery retried, the retrying count.
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@wirehook/testkit';
import type { TestTenant } from '../support/harness.ts';
import type { NamedReceiver } from '../support/receivers.ts';
import { M, H, DAY, type DeliveryHarness, type DeliverySuite } from '../support/delivery-suite-context.ts';

/** Registers the part in the calling describe. */
export function describeEndpointState(suite: DeliverySuite): void {
  describe('endpoint state', () => {
    const { endpoint, send, detail, requestsFor } = suite;
    let wh: DeliveryHarness;
    let t: TestTenant;
    let rx: NamedReceiver;
    beforeAll(() => {
      ({ wh, t, rx } = suite);
    });

    it('paused: held pending with no attempts; resumed: sent', async () => {
      const ep = await endpoint();
      expect((await t.api.patch(`/v1/endpoints/${ep.id}`, { status: 'paused' })).body.status).toBe('paused');
      const msgId = (await send(ep.consumer)).body.id;
      await wh.advance(M);
      await wh.advance(M);
      expect(requestsFor(rx, msgId)).toHaveLength(0);
      expect((await detail(msgId)).deliveries[0]).toMatchObject({ status: 'pending', attempt_count: 0 });
      expect((await detail(msgId)).status).toBe('pending');

      await t.api.patch(`/v1/endpoints/${ep.id}`, { status: 'active' });
      await eventually(() => expect(requestsFor(rx, msgId)).toHaveLength(1));
      await eventually(async () => expect((await detail(msgId)).status).toBe('success'));
    });

    it('resumed: held messages of this month and last month are sent; older ones fail', async () => {
      const ep = await endpoint();
      await t.api.patch(`/v1/endpoints/${ep.id}`, { status: 'paused' });
      // The spec's boundary, both sides: the last minute of one month and the first moment of
      // the next. (A minute, not a millisecond: in cluster mode the clock is the real one
      // moved by an offset, so it runs on between the advance and the send.)
      const month = new Date(wh.clock.now() + 2 * H);
      const boundary = Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1);
      await wh.advance(boundary - M - wh.clock.now());
      const monthBefore = (await send(ep.consumer)).body.id; // last day of the month before last month
      await wh.advance(boundary - wh.clock.now());
      const lastMonth = (await send(ep.consumer)).body.id; // first day of last month
      // Resume in the month after: "last month" is the one `lastMonth` was sent in.
      await wh.advance(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 2, 15) - wh.clock.now());
      expect(requestsFor(rx, lastMonth)).toHaveLength(0);

      await t.api.patch(`/v1/endpoints/${ep.id}`, { status: 'active' });
      await eventually(async () => expect((await detail(lastMonth)).status).toBe('success'));
      expect(requestsFor(rx, lastMonth)).toHaveLength(1);
      await eventually(async () => expect((await detail(monthBefore)).status).toBe('failed'));
      expect((await detail(monthBefore)).deliveries[0]).toMatchObject({ status: 'failed', attempt_count: 0 });
      expect(requestsFor(rx, monthBefore)).toHaveLength(0);
    });

    it('failing for 5 days: disabled with a reason; later messages get no delivery for it', async () => {
      rx.receiver.respondWith({ status: 503 });
      const ep = await endpoint({ retry: { count: 0, interval: '1m' } });
      const first = (await send(ep.consumer)).body.id;
      await eventually(async () => expect((await detail(first)).status).toBe('failed'));
      const failing = (await t.api.get(`/v1/endpoints/${ep.id}`)).body;
      expect(failing).toMatchObject({ status: 'active', failing_since: expect.any(Number) });
      expect(failing.recent[0]).toMatchObject({ response_status: 503, error: 'http_status: 503' });

      // The spec's 5 days on both sides: still active after 4 days 23 hours of failing…
      await wh.advance(4 * DAY + 23 * H);
      const early = (await send(ep.consumer)).body.id;
      await eventually(async () => expect((await detail(early)).status).toBe('failed'));
      expect((await t.api.get(`/v1/endpoints/${ep.id}`)).body).toMatchObject({ status: 'active', disabled_reason: null });

      // …disabled by the first failure at 5 days.
      await wh.advance(H);
      const second = (await send(ep.consumer)).body.id;
      await eventually(async () => expect((await detail(second)).status).toBe('failed'));
      const disabled = (await t.api.get(`/v1/endpoints/${ep.id}`)).body;
      expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'failing_5_days' });

      const third = await send(ep.consumer);
      expect(third.body.deliveries).toBe(0);

      rx.receiver.respondWith({});
      const resumed = (await t.api.patch(`/v1/endpoints/${ep.id}`, { status: 'active' })).body;
      expect(resumed).toMatchObject({ status: 'active', disabled_reason: null, failing_since: null });
      expect((await send(ep.consumer)).body.deliveries).toBe(1);
    });

    it('a single delivery can be retried: 202, sent now with the same webhook-id', async () => {
      rx.receiver.respondWith({ status: 500 });
      const ep = await endpoint({ retry: { count: 0, interval: '1m' } });
      const msgId = (await send(ep.consumer)).body.id;
      await eventually(async () => expect((await detail(msgId)).status).toBe('failed'));
      const deliveryId = (await detail(msgId)).deliveries[0].id;

      rx.receiver.respondWith({});
      const retry = await t.api.post(`/v1/deliveries/${deliveryId}/retry`);
      expect(retry.status).toBe(202);
      expect(retry.body).toMatchObject({ id: deliveryId, endpoint_id: ep.id, status: 'retrying' });
      await eventually(async () => expect((await detail(msgId)).status).toBe('success'));
      const reqs = requestsFor(rx, msgId);
      expect(reqs).toHaveLength(2);
      expect(new Set(reqs.map((r) => r.headers['webhook-id']))).toEqual(new Set([msgId]));
      expect((await detail(msgId)).deliveries[0].attempt_count).toBe(2);

      expect((await t.api.post('/v1/deliveries/dlv_01KAAAAAAAAAAAAAAAAAAAAAAA/retry')).status).toBe(404);
      const other = await wh.tenant();
      expect((await other.api.post(`/v1/deliveries/${deliveryId}/retry`)).status).toBe(404);
      await t.api.patch(`/v1/endpoints/${ep.id}`, { status: 'paused' });
      const paused = await t.api.post(`/v1/deliveries/${deliveryId}/retry`);
      expect(paused.status).toBe(409);
      expect(paused.body.error).toBe('conflict');
    });

    it('GET /v1/endpoints/{id} counts retrying deliveries', async () => {
      rx.receiver.respondWith({ status: 500 });
      const ep = await endpoint({ retry: { count: 3, interval: '1h' } });
      const ids = [(await send(ep.consumer)).body.id, (await send(ep.consumer)).body.id];
      await eventually(async () => expect((await t.api.get(`/v1/endpoints/${ep.id}`)).body.retrying_count).toBe(2));
      const got = (await t.api.get(`/v1/endpoints/${ep.id}`)).body;
      expect(got.recent).toHaveLength(2);
      expect(got.recent[0].at).toBeGreaterThanOrEqual(got.recent[1].at);
      expect((await detail(ids[0])).status).toBe('retrying');
    });
  });
}
