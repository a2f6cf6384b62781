// GET /v1/deliveries/{id} (the retry operation takes a delivery id, so a delivery
// can be read by it): the delivery as the message view shows it, scope logs:read, and 404
// with the spec's error body for any id the key may not see. The portal's token API has the
// same route, scoped to the link's consumer.
import { eventually, testCa } from '@wirehook/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';
import { startReceiver, TEST_ALLOW_HOSTS, TEST_RESOLVE, type NamedReceiver } from '../support/receivers.ts';

let wh: Harness;
let t: TestTenant;
let rx: NamedReceiver;

beforeAll(async () => {
  wh = await startWirehook({ allowHosts: TEST_ALLOW_HOSTS, resolve: TEST_RESOLVE, ca: (await testCa()).caPem, startAt: Date.UTC(2026, 5, 10, 12) });
  t = await wh.tenant({ plan: 'starter' });
  rx = await startReceiver();
});
afterAll(async () => {
  await wh?.close();
  await rx?.receiver.close();
});

/** A consumer with one endpoint, and a message to it that failed once (retrying). */
async function failedOnce(externalId: string) {
  const consumerId = (await t.api.post('/v1/consumers', { external_id: externalId })).body.id as string;
  const endpointId = (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url(), retry: { count: 3, interval: '1h' } })).body.id;
  rx.receiver.respondWith({ status: 503 });
  const messageId = (await t.api.post('/v1/messages', { consumer: externalId, event_type: 'a.b', payload: {} })).body.id as string;
  await eventually(async () => expect((await t.api.get(`/v1/messages/${messageId}`)).body.deliveries[0].attempt_count).toBe(1));
  return { consumerId, endpointId, messageId };
}

describe('GET /v1/deliveries/{id}', () => {
  it('is the delivery as GET /v1/messages/{id} shows it: attempts, status, next_attempt_at', async () => {
    const { endpointId, messageId } = await failedOnce('get-1');
    const shown = (await t.api.get(`/v1/messages/${messageId}`)).body.deliveries[0];
    const res = await t.api.get(`/v1/deliveries/${shown.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(shown);
    expect(res.body).toMatchObject({
      endpoint_id: endpointId,
      status: 'retrying',
      attempt_count: 1,
      next_attempt_at: wh.clock.now() + 60 * 60_000,
      attempts: [{ response_status: 503, error: 'http_status: 503' }],
    });
  });

  it('needs logs:read', async () => {
    const { messageId } = await failedOnce('get-2');
    const id = (await t.api.get(`/v1/messages/${messageId}`)).body.deliveries[0].id;
    expect((await (await wh.key(t.orgId, { scopes: ['logs:read'] })).api.get(`/v1/deliveries/${id}`)).status).toBe(200);
    const retryOnly = await (await wh.key(t.orgId, { scopes: ['messages:retry'] })).api.get(`/v1/deliveries/${id}`);
    expect(retryOnly.status).toBe(403);
    expect(retryOnly.body).toEqual({ error: 'forbidden', message: 'this API key lacks the scope logs:read' });
  });

  it("is 404 not_found for an unknown id, another org's or environment's, a malformed one and one outside retention", async () => {
    const { messageId } = await failedOnce('get-3');
    const id = (await t.api.get(`/v1/messages/${messageId}`)).body.deliveries[0].id as string;
    const otherOrg = await wh.tenant();
    const testEnv = await wh.key(t.orgId, { env: 'test' });
    const unknown = `dlv_${id.slice(4, 14)}${'A'.repeat(16)}`; // this month, never made
    const cases = [
      [t, unknown],
      [otherOrg, id],
      [testEnv, id],
      [t, 'dlv_nope'],
      [t, messageId], // a message id is no delivery id
      [t, 'dlv_01BX5ZZKBKACTAV9WEVGEMMVRZ'], // 2017: before the retention window
    ] as const;
    for (const [who, asked] of cases) {
      const res = await who.api.get(`/v1/deliveries/${asked}`);
      expect(res.status, asked).toBe(404);
      expect(res.body).toEqual({ error: 'not_found', message: `delivery ${asked} not found` });
    }
  });

  it("the portal's token API: its consumer's deliveries only", async () => {
    const mine = await failedOnce('get-4');
    const theirs = await failedOnce('get-5');
    const idOf = async (messageId: string) => (await t.api.get(`/v1/messages/${messageId}`)).body.deliveries[0].id as string;
    const link = (await t.api.post(`/v1/consumers/${mine.consumerId}/portal`, {})).body.url as string;
    const token = link.split('/l/')[1]!;
    const get = (id: string) => fetch(`${wh.embedded.portalUrl()}/api/deliveries/${id}`, { headers: { authorization: `Bearer ${token}` } });
    const own = await get(await idOf(mine.messageId));
    expect(own.status).toBe(200);
    expect(((await own.json()) as { endpoint_id: string }).endpoint_id).toBe(mine.endpointId);
    const other = await get(await idOf(theirs.messageId));
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ error: 'not_found', message: `delivery ${await idOf(theirs.messageId)} not found` });
  });
});

// A waiting delivery says why (waiting_on), on GET /v1/deliveries/{id} and in the message
// detail alike; the retry answers the delivery as GET shows it.
describe('waiting_on and the retry answer', () => {
  /** The delivery of `messageId` as GET /v1/deliveries/{id} shows it, after checking the message detail shows the same. */
  async function shown(messageId: string) {
    const inMessage = (await t.api.get(`/v1/messages/${messageId}`)).body.deliveries[0];
    const res = await t.api.get(`/v1/deliveries/${inMessage.id}`);
    expect(res.body.waiting_on).toEqual(inMessage.waiting_on);
    return res.body;
  }
  async function endpointOf(externalId: string, extra: Record<string, unknown> = {}) {
    const consumerId = (await t.api.post('/v1/consumers', { external_id: externalId })).body.id as string;
    return (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url(), retry: { count: 3, interval: '1h' }, ...extra })).body.id as string;
  }
  const send = async (consumer: string, extra: Record<string, unknown> = {}) =>
    (await t.api.post('/v1/messages', { consumer, event_type: 'a.b', payload: {}, ...extra })).body.id as string;

  it('null for a retry waiting for its time; paused while its endpoint is paused', async () => {
    const { messageId, endpointId } = await failedOnce('wait-1');
    expect((await shown(messageId)).waiting_on).toBeNull();
    await t.api.patch(`/v1/endpoints/${endpointId}`, { status: 'paused' });
    const held = await send('wait-1');
    expect(await shown(held)).toMatchObject({ status: 'pending', attempt_count: 0, waiting_on: { reason: 'paused' } });
  });

  it('lane: behind an earlier delivery of its ordering key, with its own sequence', async () => {
    await endpointOf('wait-2', { ordering: 'key' });
    rx.receiver.respondWith({ status: 503 });
    const first = await send('wait-2', { ordering_key: 'order-7' });
    await eventually(async () => expect((await shown(first)).attempt_count).toBe(1));
    const second = await send('wait-2', { ordering_key: 'order-7' });
    expect(await shown(second)).toMatchObject({ status: 'pending', sequence: 2, waiting_on: { reason: 'lane', sequence: 2 } });
    expect((await shown(first)).waiting_on).toBeNull(); // the head waits only for its retry's time
  });

  it("hold: the receiver's Retry-After holds the endpoint", async () => {
    await endpointOf('wait-3');
    rx.receiver.respondWith({ status: 429, headers: { 'retry-after': '600' } });
    const first = await send('wait-3');
    await eventually(async () => expect((await shown(first)).attempt_count).toBe(1));
    expect((await shown(first)).waiting_on).toEqual({ reason: 'hold' });
    expect((await shown(await send('wait-3'))).waiting_on).toEqual({ reason: 'hold' });
  });

  it('POST /v1/deliveries/{id}/retry answers the delivery with the attempts it has, as GET does', async () => {
    const { messageId } = await failedOnce('wait-4');
    const before = await shown(messageId);
    expect(before.attempts).toHaveLength(1);
    const retried = await t.api.post(`/v1/deliveries/${before.id}/retry`, {});
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ id: before.id, attempt_count: 1, attempts: before.attempts, attempts_next_cursor: null });
    expect(retried.body.next_attempt_at).toBeLessThanOrEqual(wh.clock.now());
  });

  it('PATCH /v1/endpoints/{id} answers with throughput, as GET does', async () => {
    const endpointId = await endpointOf('wait-5');
    const patched = await t.api.patch(`/v1/endpoints/${endpointId}`, { rate_limit: 7 });
    expect(patched.status).toBe(200);
    expect(patched.body.throughput).toEqual((await t.api.get(`/v1/endpoints/${endpointId}`)).body.throughput);
    expect(patched.body.throughput).toMatchObject({ rate_limit: 7, held_until: null });
  });
});
