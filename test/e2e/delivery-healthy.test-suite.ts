// The delivery suite's first part: a message to a healthy endpoint arrives once, signed, to every
// matching endpoint, and is recorded.
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@wirehook/testkit';
import type { TestTenant } from '../support/harness.ts';
import { verifyAt, type NamedReceiver } from '../support/receivers.ts';
import type { DeliveryHarness, DeliverySuite } from '../support/delivery-suite-context.ts';

/** Registers the part in the calling describe. */
export function describeHealthyEndpoint(suite: DeliverySuite): void {
  describe('a message to a healthy endpoint', () => {
    const { nextSeq, endpoint, send, detail, requestsFor } = suite;
    let wh: DeliveryHarness;
    let t: TestTenant;
    let rx: NamedReceiver;
    beforeAll(() => {
      ({ wh, t, rx } = suite);
    });

    it('arrives once, signed, with the spec headers and body, and is recorded', async () => {
      const ep = await endpoint();
      const res = await send(ep.consumer, { amount: 42, note: 'ünïcode' });
      expect(res.body).toEqual({ id: expect.stringMatching(/^msg_/), deliveries: 1 });
      expect(Number(res.headers.get('x-usage-month'))).toBeGreaterThan(0);
      const msgId = res.body.id as string;

      await eventually(() => expect(requestsFor(rx, msgId)).toHaveLength(1));
      const req = requestsFor(rx, msgId)[0]!;
      expect(req.method).toBe('POST');
      expect(req.path).toBe('/hook');
      expect(req.headers).toMatchObject({
        'content-type': 'application/json',
        'webhook-id': msgId,
        'user-agent': 'Wirehook/1',
      });
      expect(Math.abs(Number(req.headers['webhook-timestamp']) - wh.clock.now() / 1000)).toBeLessThan(5);
      expect(req.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      const body = verifyAt(rx.receiver, ep.secret, req, wh.clock.now());

      await eventually(async () => expect((await detail(msgId)).status).toBe('success'));
      const msg = await detail(msgId);
      expect(body).toEqual({ type: 'invoice.paid', timestamp: new Date(msg.created_at).toISOString(), data: { amount: 42, note: 'ünïcode' } });
      expect(msg).toMatchObject({ id: msgId, event_type: 'invoice.paid', payload: { amount: 42, note: 'ünïcode' }, idempotency_key: null });
      expect(msg.consumer).toEqual({ id: ep.consumerId, external_id: ep.consumer, name: null });
      expect(msg.deliveries).toHaveLength(1);
      expect(msg.deliveries[0]).toMatchObject({ endpoint_id: ep.id, url: rx.url(), status: 'success', attempt_count: 1, next_attempt_at: null });
      expect(msg.deliveries[0].attempts[0]).toMatchObject({
        id: expect.stringMatching(/^att_/),
        response_status: 200,
        response_head: '',
        error: null,
        via: 'direct',
        source_ip: '127.0.0.1',
        duration_ms: expect.any(Number),
      });
    });

    it('goes to every matching endpoint and to no other', async () => {
      const consumer = `fan${nextSeq()}`;
      const consumerId = (await t.api.post('/v1/consumers', { external_id: consumer })).body.id;
      const mk = (event_types: string[] | null, path: string) => t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url(path), event_types });
      await mk(null, '/all');
      await mk(['user.created'], '/users');
      await mk(['invoice.paid', 'invoice.void'], '/invoices');
      const res = await send(consumer, {}, 'invoice.paid');
      expect(res.body.deliveries).toBe(2);
      await eventually(() =>
        expect(
          requestsFor(rx, res.body.id)
            .map((r) => r.path)
            .sort(),
        ).toEqual(['/all', '/invoices']),
      );
    });

    it('creates an unknown consumer on the spot, with no deliveries', async () => {
      const res = await send('brand-new-customer');
      expect(res.body.deliveries).toBe(0);
      const consumers = (await t.api.get('/v1/consumers')).body.items;
      expect(consumers.some((c: { external_id: string }) => c.external_id === 'brand-new-customer')).toBe(true);
      expect((await detail(res.body.id)).status).toBe('success');
    });
  });
}
