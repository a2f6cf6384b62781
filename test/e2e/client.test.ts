// @wirehook/client against a real embedded Wirehook delivering to a real HTTPS receiver: every
// client method once at least, paging over several pages, idempotent sends, the typed errors
// (404, 409, 422, 403, 401) with the server's own messages. The last test checks that every
// operation of docs/openapi.json was called with a 2xx answer.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FetchLike, idempotencyKey, isWirehookApiError, OPERATION_METHODS, Wirehook, WirehookApiError } from '@wirehook/client';
import { eventually } from '@wirehook/testkit';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';
import { type NamedReceiver, reachingReceivers, startReceiver } from '../support/receivers.ts';

const MINUTE = 60_000;

let wh: Harness;
let t: TestTenant;
let rx: NamedReceiver;
let client: Wirehook;

/** Every request the client made: its method, path and answer status. */
const seen: { method: string; pathname: string; search: string; status: number }[] = [];
const recordingFetch: FetchLike = async (url, init) => {
  const res = await fetch(url, init);
  const { pathname, search } = new URL(url);
  seen.push({ method: init.method ?? 'GET', pathname, search, status: res.status });
  return res;
};

beforeAll(async () => {
  wh = await startWirehook(await reachingReceivers());
  t = await wh.tenant({ plan: 'starter' });
  rx = await startReceiver();
  client = new Wirehook({ apiKey: t.key, baseUrl: wh.url, fetch: recordingFetch });
});
afterAll(async () => {
  await wh?.close();
  await rx?.receiver.close();
});

/** What `promise` rejects with; fails the test when it resolves. */
async function caught(promise: Promise<unknown>): Promise<WirehookApiError> {
  const err = await promise.then(
    () => expect.fail('expected the call to be refused'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WirehookApiError);
  return err as WirehookApiError;
}

const received = (messageId: string) => rx.receiver.requests.filter((r) => r.headers['webhook-id'] === messageId);

// Shared between the tests below, which run in order.
let acme: { id: string; external_id: string };
let endpoint: { id: string; secret: string };
let firstMessage: string;

describe('@wirehook/client against embedded Wirehook', () => {
  it('eventTypes: create and list; a name taken is a typed conflict', async () => {
    expect(await client.eventTypes.create({ name: 'order.created', description: 'An order was placed' })).toMatchObject({
      name: 'order.created',
      description: 'An order was placed',
      archived_at: null,
      version: 1,
      schema: null,
    });
    await client.eventTypes.create({ name: 'order.paid' });
    expect((await client.eventTypes.list()).items.map((e) => e.name)).toEqual(['order.created', 'order.paid']);
    const err = await caught(client.eventTypes.create({ name: 'order.created' }));
    expect(err).toMatchObject({ status: 409, code: 'conflict', message: 'an event type named "order.created" already exists' });
    // The catalog: a schema, a new version, the earlier one listed, the export.
    expect(await client.eventTypes.update('order.created', { schema: { type: 'object' } })).toMatchObject({ version: 2 });
    expect((await client.eventTypes.get('order.created')).schema).toEqual({ type: 'object' });
    expect((await client.eventTypes.versions('order.created')).items).toEqual([expect.objectContaining({ version: 1, schema: null })]);
    expect((await client.eventTypes.exportOpenApi())['openapi']).toBe('3.1.0');
  });

  it('consumers: create, list one page, iterate over every page', async () => {
    acme = await client.consumers.create({ external_id: 'acme', name: 'Acme' });
    expect(acme).toMatchObject({ id: expect.stringMatching(/^con_/), external_id: 'acme', name: 'Acme', endpoint_count: 0 });
    for (const n of [1, 2, 3, 4]) await client.consumers.create({ external_id: `shop-${n}` });
    expect((await caught(client.consumers.create({ external_id: 'acme' }))).code).toBe('conflict');
    // One by its id (an added route): as created; another id is 404.
    expect(await client.consumers.get(acme.id)).toEqual(acme);
    expect((await caught(client.consumers.get('con_01JH4Z6Q8R2W7X3Y5Z9A0B1C2F'))).code).toBe('not_found');

    const page = await client.consumers.list({ limit: 2 });
    expect(page.items).toHaveLength(2);
    expect(page.next_cursor).toEqual(expect.any(String));

    const before = seen.length;
    const all: string[] = [];
    for await (const c of client.consumers.iterate({ limit: 2 })) all.push(c.external_id);
    expect(all.sort()).toEqual(['acme', 'shop-1', 'shop-2', 'shop-3', 'shop-4']);
    const pages = seen.slice(before);
    expect(pages).toHaveLength(3); // 2 + 2 + 1
    expect(pages.filter((r) => r.search.includes('cursor='))).toHaveLength(2);
  });

  it('endpoints: create to the receiver (the secret shown once), list, get', async () => {
    const created = await client.endpoints.create({
      consumer_id: acme.id,
      url: rx.url(),
      event_types: ['order.created'],
      description: 'orders',
      retry: { count: 0, interval: '1m' },
    });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^ep_/),
      consumer_id: acme.id,
      url: rx.url(),
      status: 'active',
      secret: expect.stringMatching(/^whsec_/),
    });
    endpoint = { id: created.id, secret: created.secret };

    expect((await client.endpoints.list({ consumer_id: acme.id })).items.map((e) => e.id)).toEqual([endpoint.id]);
    const detail = await client.endpoints.get(endpoint.id);
    expect(detail).toMatchObject({ id: endpoint.id, description: 'orders', recent: [], retrying_count: 0, recovery: null });
    expect(detail).not.toHaveProperty('secret');
    const stats = await client.endpoints.stats(endpoint.id, { window: '1h' });
    expect(stats).toMatchObject({ endpoint_id: endpoint.id, window: '1h', attempts: 0, success_rate: null, pending: 0 });
    expect(stats.series).toHaveLength(12);
    expect(await client.endpoints.egressIps()).toEqual({ items: expect.any(Array) });
  });

  it('messages.send: the same idempotency key twice gives the same id; delivered once, signed; usage and rate limit read', async () => {
    const key = idempotencyKey();
    const first = await client.messages.send({ consumer: 'acme', event_type: 'order.created', payload: { order: 1 } }, { idempotencyKey: key });
    const again = await client.messages.send({ consumer: 'acme', event_type: 'order.created', payload: { order: 'other' } }, { idempotencyKey: key });
    expect(first).toEqual({ id: expect.stringMatching(/^msg_/), deliveries: 1, usageMonth: 1, idempotentReplayed: false });
    expect(again.id).toBe(first.id);
    firstMessage = first.id;
    // A key beyond Latin-1 goes as its UTF-8 bytes and is stored as written (fetch refused it as it was).
    const cyrillic = await client.messages.send({ consumer: 'acme', event_type: 'order.created', payload: { order: 2 } }, { idempotencyKey: 'ключ-1' });
    expect((await client.messages.get(cyrillic.id)).idempotency_key).toBe('ключ-1');
    const replayed = await client.messages.send({ consumer: 'acme', event_type: 'order.created', payload: {} }, { idempotencyKey: 'ключ-1' });
    expect(replayed).toMatchObject({ id: cyrillic.id, idempotentReplayed: true });

    await eventually(() => expect(received(first.id)).toHaveLength(1));
    expect(rx.receiver.verify(endpoint.secret, received(first.id)[0])).toMatchObject({ type: 'order.created', data: { order: 1 } });
    await eventually(async () => expect((await client.messages.get(first.id)).status).toBe('success'));
    expect(received(first.id)).toHaveLength(1); // the repeat stored nothing new

    const detail = await client.messages.get(first.id);
    expect(detail).toMatchObject({ id: first.id, idempotency_key: key, payload: { order: 1 }, consumer: { id: acme.id, external_id: 'acme' } });
    expect(detail.deliveries).toHaveLength(1);
    expect(detail.deliveries[0]).toMatchObject({ endpoint_id: endpoint.id, status: 'success', attempt_count: 1 });
    expect(detail.deliveries[0]?.attempts[0]?.response_status).toBe(200);

    const rate = client.lastRateLimit;
    expect(rate?.limit).toBe(3_000); // the Starter plan's requests per minute
    expect(rate?.remaining).toBeLessThan(3_000);
    expect(rate?.reset).toBeGreaterThanOrEqual(Math.floor(wh.clock.now() / 1000));
  });

  it('messages.list and iterate: filters and numeric query values, over several pages', async () => {
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) sent.push((await client.messages.send({ consumer: 'pager', event_type: 'order.paid', payload: { i } })).id);

    const page = await client.messages.list({ q: 'pager', limit: 2, since: wh.clock.now() - MINUTE });
    expect(page.items).toHaveLength(2);
    expect(page.next_cursor).toEqual(expect.any(String));
    expect(seen.at(-1)?.search).toMatch(new RegExp(`since=${wh.clock.now() - MINUTE}`));

    const before = seen.length;
    const ids: string[] = [];
    for await (const m of client.messages.iterate({ q: 'pager', limit: 2 })) ids.push(m.id);
    expect(ids.sort()).toEqual([...sent].sort());
    expect(seen.slice(before)).toHaveLength(3);

    const paid: string[] = [];
    for await (const m of client.messages.iterate({ event_type: 'order.paid', limit: 2 })) paid.push(m.id);
    expect(paid.sort()).toEqual([...sent].sort());
  });

  it('deliveries.get reads one delivery as the message shows it', async () => {
    const delivery = (await client.messages.get(firstMessage)).deliveries[0]!;
    expect(await client.deliveries.get(delivery.id)).toEqual(delivery);
  });

  it("deliveries.attempts pages a delivery's attempts newest first; iterateAttempts reads them all", async () => {
    const delivery = (await client.messages.get(firstMessage)).deliveries[0]!;
    const page = await client.deliveries.attempts(delivery.id, { limit: 1 });
    expect(page.items).toEqual(delivery.attempts.slice(-1));
    const all: string[] = [];
    for await (const a of client.deliveries.iterateAttempts(delivery.id, { limit: 1 })) all.push(a.id);
    expect(all).toEqual(delivery.attempts.map((a) => a.id).reverse());
  });

  it('deliveries.retry sends the message again with its webhook-id', async () => {
    const delivery = (await client.messages.get(firstMessage)).deliveries[0]!;
    const queued = await client.deliveries.retry(delivery.id);
    // As GET shows it: the attempts it has so far, not an empty list.
    expect(queued).toMatchObject({ id: delivery.id, endpoint_id: endpoint.id, attempts: delivery.attempts, attempts_next_cursor: null });
    await eventually(() => expect(received(firstMessage)).toHaveLength(2));
    rx.receiver.verify(endpoint.secret, received(firstMessage)[1]);
  });

  it('a failed message: iterate({ status: failed }) finds it; recover is 409 on a paused endpoint, then re-sends it', async () => {
    rx.receiver.respondWith({ status: 503 });
    const failed = (await client.messages.send({ consumer: 'acme', event_type: 'order.created', payload: { order: 2 } })).id;
    await eventually(async () => expect((await client.messages.get(failed)).status).toBe('failed'), 15_000);
    rx.receiver.respondWith({});
    const failedIds: string[] = [];
    for await (const m of client.messages.iterate({ status: 'failed' })) failedIds.push(m.id);
    expect(failedIds).toEqual([failed]);

    expect(await client.endpoints.update(endpoint.id, { status: 'paused' })).toMatchObject({ id: endpoint.id, status: 'paused' });
    const since = wh.clock.now() - MINUTE;
    const err = await caught(client.endpoints.recover(endpoint.id, { since }));
    if (err.code !== 'conflict') expect.fail(`expected conflict, got ${err.code}`);
    expect(err.status).toBe(409);
    expect(err.message).toBe(`endpoint ${endpoint.id} is paused; a recovery needs it active`);
    expect(isWirehookApiError(err, 'conflict')).toBe(true);

    expect((await client.endpoints.update(endpoint.id, { status: 'active' })).status).toBe('active');
    const recovery = await client.endpoints.recover(endpoint.id, { since });
    expect(recovery).toMatchObject({ id: expect.any(String), endpoint_id: endpoint.id, since, total: 1 });
    await eventually(async () => {
      await wh.embedded.recoveryWorker.tick();
      expect(received(failed)).toHaveLength(2);
      expect(await client.endpoints.getRecovery(endpoint.id, recovery.id)).toMatchObject({ id: recovery.id, status: 'done', queued: 1, total: 1 });
    }, 15_000);
  });

  it('endpoints.update changes the fields given; retry: null restores the default policy', async () => {
    const updated = await client.endpoints.update(endpoint.id, { description: 'orders, v2', retry: null });
    expect(updated).toMatchObject({ id: endpoint.id, description: 'orders, v2', retry: { count: 7, interval: 'progressive' }, event_types: ['order.created'] });
    expect((await client.endpoints.get(endpoint.id)).description).toBe('orders, v2');
  });

  it('endpoints.rotateSecret: the next delivery verifies with the new secret and, for 24 h, the old one', async () => {
    const rotated = await client.endpoints.rotateSecret(endpoint.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    const { id } = await client.messages.send({ consumer: 'acme', event_type: 'order.created', payload: { order: 3 } });
    await eventually(() => expect(received(id)).toHaveLength(1));
    expect(rx.receiver.verify(rotated.secret, received(id)[0])).toMatchObject({ data: { order: 3 } });
    expect(rx.receiver.verify(endpoint.secret, received(id)[0])).toMatchObject({ data: { order: 3 } });
    endpoint.secret = rotated.secret;
  });

  it('endpoints.simulateTransformation: the request a send would make, nothing sent', async () => {
    const before = rx.receiver.requests.length;
    const simulated = await client.endpoints.simulateTransformation(endpoint.id, {
      event_type: 'order.created',
      payload: { order: 4 },
      code: 'function handler(w) { w.payload = { id: w.payload.order }; return w }',
    });
    expect(simulated).toMatchObject({ cancel: false, error: null });
    expect(JSON.parse(simulated.request!.body)).toMatchObject({ type: 'order.created', data: { id: 4 } });
    expect(rx.receiver.requests.length).toBe(before);
  });

  it('consumers.portalLink: a link valid 15 minutes', async () => {
    const link = await client.consumers.portalLink(acme.id, { locale: 'en' });
    expect(link.url).toMatch(/^https?:\/\//);
    expect(link.expires_at).toBe(wh.clock.now() + 15 * MINUTE);
  });

  it('alerts: conditions read and changed; a webhook target created, listed, read and deleted', async () => {
    expect(await client.alerts.getConditions()).toEqual({ delivery_failure: '60m', automatic_stop: true, pending_retries: 1000, usage: 80 });
    const changed = await client.alerts.updateConditions({ delivery_failure: 'first', usage: 50 });
    expect(changed).toEqual({ delivery_failure: 'first', automatic_stop: true, pending_retries: 1000, usage: 50 });
    expect(await client.alerts.getConditions()).toEqual(changed);

    const target = await client.alerts.createTarget({ type: 'webhook', url: 'https://localhost:8443/alerts' });
    expect(target).toMatchObject({
      id: expect.stringMatching(/^atg_/),
      type: 'webhook',
      url: 'https://localhost:8443/alerts',
      secret: expect.stringMatching(/^whsec_/),
    });
    expect((await client.alerts.listTargets()).items.map((x) => x.id)).toEqual([target.id]);
    expect(await client.alerts.getTarget(target.id)).toMatchObject({ id: target.id, recent: [] });
    // Nothing listens there: the sample's first try fails, and the answer says so.
    const tested = await client.alerts.testTarget(target.id);
    expect(tested.notice_id).toMatch(/^ntc_/);
    await client.alerts.deleteTarget(target.id);
    expect((await caught(client.alerts.getTarget(target.id))).code).toBe('not_found');
    expect((await client.alerts.listTargets()).items).toEqual([]);
  });

  it('typed errors: 404 not_found, 422 invalid with the server message, 403 forbidden, 401 unauthorized', async () => {
    const missing = await caught(client.messages.get('msg_0000000000000000000000'));
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    expect(isWirehookApiError(missing, 'not_found')).toBe(true);
    // Encoded, `../consumers` stays one path segment: a 404, not GET /v1/consumers.
    expect((await caught(client.endpoints.get('../consumers'))).code).toBe('not_found');

    const bad = { consumer_id: acme.id, url: 'http://example.com/hook' };
    const invalid = await caught(client.endpoints.create(bad));
    const raw = await t.api.post('/v1/endpoints', bad);
    expect(raw.status).toBe(422);
    expect(invalid).toMatchObject({ status: 422, code: 'invalid', message: raw.body.message });
    expect(invalid.message).toMatch(/url/);

    const reader = await wh.tenant({ scopes: ['logs:read'] });
    const readOnly = new Wirehook({ apiKey: reader.key, baseUrl: wh.url });
    const forbidden = await caught(readOnly.messages.send({ consumer: 'acme', event_type: 'order.created', payload: {} }));
    expect(forbidden).toMatchObject({ status: 403, code: 'forbidden', message: 'this API key lacks the scope messages:send' });
    expect((await readOnly.messages.list()).items).toEqual([]);

    const wrongKey = new Wirehook({ apiKey: 'sk_live_wrong', baseUrl: wh.url });
    expect(await caught(wrongKey.eventTypes.list())).toMatchObject({ status: 401, code: 'unauthorized', rateLimit: undefined });
  });

  it('endpoints.delete: gone afterwards', async () => {
    await client.endpoints.delete(endpoint.id);
    expect((await caught(client.endpoints.get(endpoint.id))).code).toBe('not_found');
    expect((await client.endpoints.list({ consumer_id: acme.id })).items).toEqual([]);
  });

  it('openapi(): the served document has exactly the operations the client maps', async () => {
    const served = (await client.openapi()) as { paths: Record<string, Record<string, { operationId?: string }>> };
    const ids = Object.values(served.paths).flatMap((item) => Object.values(item).flatMap((op) => (op.operationId ? [op.operationId] : [])));
    expect(ids.sort()).toEqual(Object.keys(OPERATION_METHODS).sort());
  });

  it('every operation of docs/openapi.json was called above with a 2xx answer', () => {
    const doc = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, op]) =>
        op.operationId ? [{ id: op.operationId, method: method.toUpperCase(), pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`) }] : [],
      ),
    );
    const called = new Set(
      seen
        .filter((r) => r.status >= 200 && r.status < 300)
        .flatMap((r) => operations.filter((o) => o.method === r.method && o.pattern.test(r.pathname)).map((o) => o.id)),
    );
    expect(operations.map((o) => o.id).filter((id) => !called.has(id))).toEqual([]);
  });
});
