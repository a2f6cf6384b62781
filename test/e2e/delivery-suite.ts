// The delivery engine end to end: public API in, signed HTTPS POSTs out to real receivers
// that verify every request with the official standardwebhooks library; retries driven by
// moving the clock, never by sleeping. One suite, run in embedded mode (delivery.test.ts)
// and in cluster mode (test/cluster/delivery.cluster.test.ts).
import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@wirehook/testkit';
import type { Harness, TestTenant } from '../support/harness.ts';
import { refusingUrl, startReceiver, verifyAt, type NamedReceiver } from '../support/receivers.ts';

const S = 1_000;
const M = 60 * S;
const H = 60 * M;
const DAY = 24 * H;

/** What the suite needs of a running Wirehook, in-process or as a cluster of processes. */
export type DeliveryHarness = Pick<Harness, 'url' | 'tenant' | 'key' | 'advance' | 'close'> & {
  clock: { now(): number };
};

/** Registers the delivery suite against the Wirehook `start` brings up. */
export function describeDeliverySuite(mode: string, start: () => Promise<DeliveryHarness>): void {
  describe(`delivery (${mode})`, () => {
    let wh: DeliveryHarness;
    let t: TestTenant;
    let rx: NamedReceiver;
    const extra: NamedReceiver[] = [];

    beforeAll(async () => {
      wh = await start();
      t = await wh.tenant();
      rx = await startReceiver();
    }, 180_000); // cluster mode: ten processes starting on a loaded machine
    afterEach(() => {
      rx.receiver.respondWith({});
      rx.receiver.clear();
    });
    afterAll(async () => {
      await wh.close();
      await Promise.all([rx, ...extra].map((r) => r.receiver.close()));
    });

    let seq = 0;
    /** A consumer with one endpoint; returns ids and the secret. */
    async function endpoint(body: Record<string, unknown> = {}, url = rx.url()) {
      const consumer = `c${++seq}`;
      const consumerId = (await t.api.post('/v1/consumers', { external_id: consumer })).body.id;
      const res = await t.api.post('/v1/endpoints', { consumer_id: consumerId, url, ...body });
      expect(res.status).toBe(201);
      return { consumer, consumerId, id: res.body.id as string, secret: res.body.secret as string };
    }

    async function send(consumer: string, payload: unknown = { n: 1 }, eventType = 'invoice.paid', headers?: Record<string, string>) {
      const res = await t.api.post('/v1/messages', { consumer, event_type: eventType, payload }, headers);
      expect(res.status).toBe(202);
      return res;
    }

    const detail = async (id: string) => (await t.api.get(`/v1/messages/${id}`)).body;
    const requestsFor = (r: NamedReceiver, msgId: string) => r.receiver.requests.filter((q) => q.headers['webhook-id'] === msgId);

    describe('a message to a healthy endpoint', () => {
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
        const consumer = `fan${++seq}`;
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

    describe('failures are retried on schedule and end failed', () => {
      it('500 on the default progressive schedule: 8 sends over ~28 hours, then failed', async () => {
        rx.receiver.respondWith({ status: 500, body: 'database is on fire' });
        const ep = await endpoint();
        const msgId = (await send(ep.consumer)).body.id;
        await eventually(() => expect(requestsFor(rx, msgId)).toHaveLength(1));
        const delays = [5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H];
        for (const [i, delay] of delays.entries()) {
          await eventually(async () => expect((await detail(msgId)).deliveries[0].attempt_count).toBe(i + 1));
          const d = (await detail(msgId)).deliveries[0];
          expect(d.status).toBe('retrying');
          expect(d.next_attempt_at - d.attempts.at(-1).at).toBe(delay);
          await wh.advance(delay - 1_000); // not yet due
          expect(requestsFor(rx, msgId)).toHaveLength(i + 1);
          await wh.advance(1_000);
          await eventually(() => expect(requestsFor(rx, msgId)).toHaveLength(i + 2));
        }
        await eventually(async () => expect((await detail(msgId)).status).toBe('failed'));
        const d = (await detail(msgId)).deliveries[0];
        expect(d).toMatchObject({ status: 'failed', attempt_count: 8, next_attempt_at: null });
        expect(d.attempts[0]).toMatchObject({ response_status: 500, response_head: 'database is on fire', error: 'http_status: 500' });
        // Every send carried the same webhook-id and a valid signature for its own time.
        for (const req of requestsFor(rx, msgId)) {
          expect(verifyAt(rx.receiver, ep.secret, req, Number(req.headers['webhook-timestamp']) * 1000)).toBeTruthy();
        }
        await wh.advance(10 * H);
        expect(requestsFor(rx, msgId)).toHaveLength(8);
      });

      const modes: [string, () => Promise<{ url: string; setup?: () => void }>, RegExp, number | null][] = [
        ['404', async () => ({ url: rx.url('/gone'), setup: () => rx.receiver.respondWith({ status: 404 }) }), /^http_status: 404$/, 404],
        [
          'a 3xx redirect (not followed)',
          async () => ({ url: rx.url('/moved'), setup: () => rx.receiver.respondWith({ redirectTo: rx.url('/elsewhere') }) }),
          /^redirect: 302 to .*elsewhere not followed$/,
          302,
        ],
        ['a hang past the timeout', async () => ({ url: rx.url('/slow'), setup: () => rx.receiver.respondWith({ hang: true }) }), /^timeout: /, null],
        ['a refused connection', async () => ({ url: refusingUrl() }), /^connection: .*ECONNREFUSED/, null],
        [
          'a TLS error',
          async () => {
            const bad = await startReceiver({ untrusted: true });
            extra.push(bad);
            return { url: bad.url() };
          },
          /^tls: /,
          null,
        ],
      ];

      it.each(modes)('%s: retried after the interval, then failed', async (_name, make, error, status) => {
        const target = await make();
        target.setup?.();
        const ep = await endpoint({ retry: { count: 1, interval: '1m' } }, target.url);
        const msgId = (await send(ep.consumer)).body.id;
        await eventually(async () => expect((await detail(msgId)).deliveries[0].attempt_count).toBe(1), 10_000);
        let d = (await detail(msgId)).deliveries[0];
        expect(d.status).toBe('retrying');
        expect(d.attempts[0].error).toMatch(error);
        expect(d.attempts[0].response_status).toBe(status);
        expect(d.next_attempt_at).toBe(d.attempts[0].at + M);
        await wh.advance(M);
        await eventually(async () => expect((await detail(msgId)).status).toBe('failed'), 10_000);
        d = (await detail(msgId)).deliveries[0];
        expect(d.attempt_count).toBe(2);
        expect(d.attempts.map((a: { error: string }) => a.error)).toEqual([expect.stringMatching(error), expect.stringMatching(error)]);
        const redirectTarget = rx.receiver.requests.filter((r) => r.path === '/elsewhere');
        expect(redirectTarget).toHaveLength(0);
      });
    });

    describe('signatures', () => {
      it('rotation: both secrets sign for 24 hours, then only the new one', async () => {
        const ep = await endpoint();
        const rotated = (await t.api.post(`/v1/endpoints/${ep.id}/rotate-secret`)).body.secret as string;
        const during = (await send(ep.consumer)).body.id;
        await eventually(() => expect(requestsFor(rx, during)).toHaveLength(1));
        const req = requestsFor(rx, during)[0]!;
        expect(req.headers['webhook-signature']!.split(' ')).toHaveLength(2);
        expect(verifyAt(rx.receiver, ep.secret, req, wh.clock.now())).toBeTruthy();
        expect(verifyAt(rx.receiver, rotated, req, wh.clock.now())).toBeTruthy();

        await wh.advance(DAY + S);
        const after = (await send(ep.consumer)).body.id;
        await eventually(() => expect(requestsFor(rx, after)).toHaveLength(1));
        const later = requestsFor(rx, after)[0]!;
        expect(later.headers['webhook-signature']!.split(' ')).toHaveLength(1);
        expect(verifyAt(rx.receiver, rotated, later, wh.clock.now())).toBeTruthy();
        expect(() => verifyAt(rx.receiver, ep.secret, later, wh.clock.now())).toThrow();
      });

      it.each([
        ['timestamp_body', 'hex', 'sha256='],
        ['body', 'base64', ''],
      ] as const)('compat signature (%s, %s) checks out', async (content, encoding, prefix) => {
        const ep = await endpoint({ compat_signature: { header: 'X-Partner-Signature', content, encoding, prefix } });
        const msgId = (await send(ep.consumer, { compat: true })).body.id;
        await eventually(() => expect(requestsFor(rx, msgId)).toHaveLength(1));
        const req = requestsFor(rx, msgId)[0]!;
        const key = Buffer.from(ep.secret.slice('whsec_'.length), 'base64');
        const signed = content === 'body' ? req.body : `${req.headers['webhook-timestamp']}.${req.body}`;
        const expected = prefix + createHmac('sha256', key).update(signed).digest(encoding);
        expect(req.headers['x-partner-signature']).toBe(expected);
      });
    });

    describe('endpoint state', () => {
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
  });
}
