// The delivery suite's endpoint transformations (`transformation`, issue 45): a customer's
// `function handler(webhook)` run in the sandbox before each send. A renamed field arrives
// renamed and verifies with the official standardwebhooks library over the transformed body; a
// cancel sends nothing while the message's other endpoints get theirs; an infinite loop, a 100 MB
// allocation and require('fs') each fail only their own attempt (kind transformation, with line
// and column); another organisation's deliveries keep their latency meanwhile; the simulate
// route answers what a send would do.
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@wirehook/testkit';
import type { DeliveryHarness, DeliverySuite } from '../support/delivery-suite-context.ts';
import type { TestTenant } from '../support/harness.ts';
import { startReceiver, verifyAt, type NamedReceiver } from '../support/receivers.ts';

const RENAME = `function handler(webhook) {
  const { invoice_id, ...rest } = webhook.payload;
  webhook.payload = { ...rest, invoiceId: invoice_id };
  webhook.headers['x-invoice'] = String(invoice_id);
  return webhook;
}`;

/** Fails in its own way only for the payloads that ask it to; sends the others as they are. */
const HOSTILE = `function handler(webhook) {
  const how = webhook.payload.fail;
  if (how === 'loop') { while (true) {} }
  if (how === 'memory') { const chunks = []; for (let i = 0; i < 100; i++) chunks.push(new Uint8Array(1024 * 1024).fill(i)); return chunks.length; }
  if (how === 'require') { return require('fs').readFileSync('/etc/passwd', 'utf8'); }
  return webhook;
}`;

/** The p-th percentile (0–100) of `values`, by nearest rank. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Registers the part in the calling describe. */
export function describeTransformations(suite: DeliverySuite): void {
  describe('transformations (transformation)', () => {
    const { endpoint, send, detail, requestsFor, extra } = suite;
    let wh: DeliveryHarness;
    let rx2: NamedReceiver;
    beforeAll(async () => {
      wh = suite.wh;
      rx2 = await startReceiver();
      extra.push(rx2);
    });

    it('a renamed field arrives renamed, with the added header, and verifies with standardwebhooks over the transformed body', async () => {
      const ep = await endpoint({ transformation: { code: RENAME } });
      const shown = (await suite.t.api.get(`/v1/endpoints/${ep.id}`)).body;
      expect(shown.transformation).toEqual({ code: RENAME, enabled: true });
      const id = (await send(ep.consumer, { invoice_id: 'in_42', amount: 1250 })).body.id as string;
      await eventually(() => expect(requestsFor(suite.rx, id)).toHaveLength(1));
      const request = requestsFor(suite.rx, id)[0]!;
      const body = JSON.parse(request.body);
      expect(body).toMatchObject({ type: 'invoice.paid', data: { invoiceId: 'in_42', amount: 1250 } });
      expect(body.data).not.toHaveProperty('invoice_id');
      expect(request.headers['x-invoice']).toBe('in_42');
      // The official library (receiver.verify), at the time Wirehook's clock reads (the suite moves it by hours).
      const verified = verifyAt(suite.rx.receiver, ep.secret, request, wh.clock.now());
      expect(verified).toEqual(body);
      // The message keeps the payload as the sender gave it.
      expect((await detail(id)).payload).toEqual({ invoice_id: 'in_42', amount: 1250 });
    });

    it('enabled: false keeps the code and sends the webhook untransformed; null removes it', async () => {
      const ep = await endpoint({ transformation: { code: RENAME, enabled: false } });
      const id = (await send(ep.consumer, { invoice_id: 'in_7' })).body.id as string;
      await eventually(() => expect(requestsFor(suite.rx, id)).toHaveLength(1));
      expect(JSON.parse(requestsFor(suite.rx, id)[0]!.body).data).toEqual({ invoice_id: 'in_7' });
      const removed = await suite.t.api.patch(`/v1/endpoints/${ep.id}`, { transformation: null });
      expect(removed.status).toBe(200);
      expect(removed.body.transformation).toBeNull();
    });

    it('cancel sends nothing to that endpoint and ends its delivery success; the message’s other endpoint gets its webhook', async () => {
      const ep = await endpoint({ transformation: { code: 'function handler(webhook) { return webhook.payload.internal ? { cancel: true } : webhook; }' } });
      const sibling = await suite.t.api.post('/v1/endpoints', { consumer_id: ep.consumerId, url: rx2.url() });
      expect(sibling.status).toBe(201);
      const cancelled = (await send(ep.consumer, { internal: true })).body.id as string;
      const kept = (await send(ep.consumer, { internal: false })).body.id as string;
      await eventually(() => expect(requestsFor(rx2, cancelled)).toHaveLength(1));
      await eventually(() => expect(requestsFor(suite.rx, kept)).toHaveLength(1));
      await eventually(async () => {
        const message = await detail(cancelled);
        const mine = message.deliveries.find((d: { endpoint_id: string }) => d.endpoint_id === ep.id);
        expect(mine).toMatchObject({ status: 'success', attempt_count: 1 });
        expect(mine.attempts[0]).toMatchObject({ response_status: null, error: expect.stringMatching(/^cancelled: /) });
        expect(message.status).toBe('success');
      });
      expect(requestsFor(suite.rx, cancelled)).toHaveLength(0);
      // A cancel says nothing about the receiver: the endpoint's stats count only the send.
      await eventually(async () => {
        const stats = (await suite.t.api.get(`/v1/endpoints/${ep.id}/stats`)).body;
        expect(stats.attempts).toBe(1);
        expect(stats.succeeded).toBe(1);
      });
    });

    it('an infinite loop, a 100 MB allocation and require(fs) each fail only their own attempt, with line and column; the others arrive', async () => {
      const ep = await endpoint({ transformation: { code: HOSTILE }, retry: { count: 1, interval: '30m' } });
      const sibling = await suite.t.api.post('/v1/endpoints', { consumer_id: ep.consumerId, url: rx2.url() });
      expect(sibling.status).toBe(201);
      const ids: Record<string, string> = {};
      for (const fail of ['loop', 'memory', 'require', 'none']) ids[fail] = (await send(ep.consumer, { fail })).body.id as string;
      const attemptOf = async (id: string) => {
        const mine = (await detail(id)).deliveries.find((d: { endpoint_id: string }) => d.endpoint_id === ep.id);
        return { delivery: mine, attempt: mine.attempts[0] };
      };
      await eventually(async () => {
        for (const fail of ['loop', 'memory', 'require']) {
          const { delivery, attempt } = await attemptOf(ids[fail]!);
          expect(delivery.status).toBe('retrying');
          expect(attempt).toMatchObject({ response_status: null, error: expect.stringMatching(/^transformation: /) });
        }
      }, 60_000);
      expect((await attemptOf(ids['loop']!)).attempt.error).toMatch(/50 ms/);
      expect((await attemptOf(ids['memory']!)).attempt.error).toMatch(/memory/i);
      expect((await attemptOf(ids['require']!)).attempt.error).toMatch(/require.*\(line 5, column \d+\)/);
      // Nothing of theirs reached the receiver; the same endpoint's good webhook and every sibling delivery did.
      for (const fail of ['loop', 'memory', 'require']) expect(requestsFor(suite.rx, ids[fail]!)).toHaveLength(0);
      await eventually(() => expect(requestsFor(suite.rx, ids['none']!)).toHaveLength(1));
      await eventually(() => {
        for (const id of Object.values(ids)) expect(requestsFor(rx2, id)).toHaveLength(1);
      });
      // The health view names the class.
      await eventually(async () => expect((await suite.t.api.get(`/v1/endpoints/${ep.id}/stats`)).body.errors.transformation).toBe(3));
    }, 90_000);

    it('another organisation’s deliveries keep their latency while a transformation loops on every webhook', async () => {
      const other: TestTenant = await wh.tenant();
      const otherRx = await startReceiver();
      extra.push(otherRx);
      const consumer = `quiet-${suite.nextSeq()}`;
      const consumerId = (await other.api.post('/v1/consumers', { external_id: consumer })).body.id;
      expect((await other.api.post('/v1/endpoints', { consumer_id: consumerId, url: otherRx.url() })).status).toBe(201);
      const latencies = async (n: number) => {
        const sentAt = new Map<string, number>();
        for (let i = 0; i < n; i++) {
          const started = Date.now();
          const res = await other.api.post('/v1/messages', { consumer, event_type: 'usage.reported', payload: { i } });
          expect(res.status).toBe(202);
          sentAt.set(res.body.id, started);
        }
        await eventually(() => expect(otherRx.receiver.requests.filter((r) => sentAt.has(r.headers['webhook-id']!)).length).toBe(n), 60_000);
        return otherRx.receiver.requests.filter((r) => sentAt.has(r.headers['webhook-id']!)).map((r) => r.receivedAt - sentAt.get(r.headers['webhook-id']!)!);
      };
      const baseline = await latencies(60);
      // The noisy tenant: every webhook's run spends its whole 50 ms budget.
      const noisy = await endpoint({ transformation: { code: 'function handler(w) { while (true) {} }' }, retry: { count: 1, interval: '30m' } });
      // The noisy tenant's backlog: 300 webhooks, each a 50 ms run, about 15 s of one sandbox thread —
      // more than its dispatchers finish before the measurement below ends (sent first, so the
      // measurement sees the sandbox's load and not the noisy tenant's API calls).
      const noisyIds: string[] = [];
      for (let batch = 0; batch < 30; batch++) {
        noisyIds.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) => send(noisy.consumer, { i })))).map((r) => r.body.id as string));
      }
      const from = wh.clock.now();
      const during = await latencies(60);
      const to = wh.clock.now();
      // The loops ran meanwhile: attempts of the noisy endpoint inside the measured span. All 300
      // read (50 at a time), not a sample: on a busy machine the span can be short enough that a
      // one-in-ten sample holds a single attempt of the several that ran in it.
      await eventually(async () => {
        const attemptsAt: number[] = [];
        for (let i = 0; i < noisyIds.length; i += 50) {
          const messages = await Promise.all(noisyIds.slice(i, i + 50).map(detail));
          attemptsAt.push(...messages.flatMap((m) => m.deliveries[0].attempts.map((a: { at: number }) => a.at)));
        }
        expect(attemptsAt.filter((at) => at >= from && at <= to).length).toBeGreaterThanOrEqual(2);
      }, 60_000);
      // Its backlog ends with it (the suite's other parts do not share the machine with it).
      expect((await suite.t.api.delete(`/v1/endpoints/${noisy.id}`)).status).toBe(204);
      const [p99Base, p99During] = [percentile(baseline, 99), percentile(during, 99)];
      // No real-time bound of its own: the other organisation's p99 against its own, measured here.
      expect(p99During, `p99 ${p99During} ms while looping vs ${p99Base} ms before`).toBeLessThanOrEqual(Math.max(3 * p99Base, p99Base + 250));
    }, 180_000);

    it('simulate answers the request a send would make, a cancel, or the error — and sends nothing', async () => {
      const ep = await endpoint({ headers: { 'x-api-key': 'sk_live_1234567890abcdef' } });
      const simulate = (body: Record<string, unknown>) => suite.t.api.post(`/v1/endpoints/${ep.id}/transformation/simulate`, body);
      // No code given, none stored: 422 naming code.
      const none = await simulate({ event_type: 'invoice.paid', payload: {} });
      expect(none.status).toBe(422);
      expect(none.body.message).toMatch(/^code: /);
      const ok = await simulate({ event_type: 'invoice.paid', payload: { invoice_id: 'in_9' }, code: RENAME });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ cancel: false, error: null, request: { url: suite.rx.url() } });
      expect(JSON.parse(ok.body.request.body)).toMatchObject({ type: 'invoice.paid', data: { invoiceId: 'in_9' } });
      // The custom header's value is given to a simulation redacted: never echoed in the clear.
      expect(ok.body.request.headers).toMatchObject({ 'x-invoice': 'in_9', 'x-api-key': '…cdef', 'content-type': 'application/json' });
      expect(JSON.stringify(ok.body)).not.toContain('sk_live_1234567890abcdef');
      const cancel = await simulate({ event_type: 'invoice.paid', payload: {}, code: 'function handler() { return { cancel: true } }' });
      expect(cancel.body).toMatchObject({ cancel: true, request: null, error: null });
      const broken = await simulate({ event_type: 'invoice.paid', payload: {}, code: "function handler(w) {\n  return require('fs');\n}" });
      expect(broken.body).toMatchObject({ cancel: false, request: null, error: expect.stringMatching(/^transformation: .*require.*\(line 2, column \d+\)$/) });
      const badUrl = await simulate({
        event_type: 'invoice.paid',
        payload: {},
        code: "function handler(w) { w.url = 'http://169.254.169.254/latest'; return w; }",
      });
      expect(badUrl.body.error).toMatch(/^transformation: the returned url .* is refused: /);
      const badHeader = await simulate({
        event_type: 'invoice.paid',
        payload: {},
        code: "function handler(w) { w.headers['webhook-signature'] = 'v1,forged'; return w; }",
      });
      expect(badHeader.body.error).toMatch(/^transformation: the returned headers are refused: webhook-signature/);
      // Too long: 422 before any run; exactly 32,768 bytes is taken.
      const long = `function handler(w) { return w }\n//${'x'.repeat(32_768 - 35)}`;
      expect(Buffer.byteLength(long)).toBe(32_768);
      expect((await simulate({ event_type: 'invoice.paid', payload: {}, code: long })).status).toBe(200);
      const tooLong = await simulate({ event_type: 'invoice.paid', payload: {}, code: `${long}x` });
      expect(tooLong.status).toBe(422);
      expect(tooLong.body.message).toMatch(/code: must be at most 32,768 bytes \(UTF-8\); it is 32,769/);
      expect(suite.rx.receiver.requests).toHaveLength(0);
    });
  });
}
