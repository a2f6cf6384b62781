// Each attempt records the URL it was sent to; a delivery shows its endpoint's current URL
// (after a PATCH of an endpoint's url, the delivery showed the old URL next to a 204
// from the new one — in the API, the portal and explain_delivery).
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { explainDelivery } from '@wirehook/mcp';
import { SQLITE_FILE_NAME } from '@wirehook/store';
import { eventually, testCa } from '@wirehook/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';
import { startReceiver, TEST_ALLOW_HOSTS, TEST_RESOLVE, type NamedReceiver } from '../support/receivers.ts';

let wh: Harness;
let t: TestTenant;
let before: NamedReceiver;
let after: NamedReceiver;

beforeAll(async () => {
  wh = await startWirehook({ allowHosts: TEST_ALLOW_HOSTS, resolve: TEST_RESOLVE, ca: (await testCa()).caPem });
  t = await wh.tenant({ plan: 'starter' });
  [before, after] = [await startReceiver(), await startReceiver()];
  before.receiver.respondWith({ status: 503 });
  after.receiver.respondWith({ status: 204 });
});
afterAll(async () => {
  await wh?.close();
  await Promise.all([before, after].map((r) => r?.receiver.close()));
});

it('a PATCH of the url between two attempts: each attempt shows where it went, the delivery the URL it goes to now', async () => {
  const [oldUrl, newUrl] = [before.url('/hooks'), after.url('/hooks')];
  const consumerId = (await t.api.post('/v1/consumers', { external_id: 'moved' })).body.id;
  const endpointId = (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: oldUrl, retry: { count: 3, interval: '1m' } })).body.id;
  const messageId = (await t.api.post('/v1/messages', { consumer: 'moved', event_type: 'a.b', payload: {} })).body.id;
  const detail = async () => (await t.api.get(`/v1/messages/${messageId}`)).body;
  await eventually(async () => expect((await detail()).deliveries[0].attempt_count).toBe(1));

  expect((await t.api.patch(`/v1/endpoints/${endpointId}`, { url: newUrl })).status).toBe(200);
  // Before the next attempt the delivery already shows where that attempt will go.
  expect((await detail()).deliveries[0]).toMatchObject({ url: newUrl, status: 'retrying', attempts: [{ url: oldUrl, response_status: 503 }] });

  await wh.advance(60_000);
  await eventually(async () => expect((await detail()).status).toBe('success'));
  const delivery = (await detail()).deliveries[0];
  expect(delivery).toMatchObject({
    url: newUrl,
    attempts: [
      { url: oldUrl, response_status: 503 },
      { url: newUrl, response_status: 204 },
    ],
  });
  expect(before.receiver.requests).toHaveLength(1);
  expect(after.receiver.requests).toHaveLength(1);

  // The same in GET /v1/deliveries/{id}, the endpoint's recent attempts and the portal's API.
  expect((await t.api.get(`/v1/deliveries/${delivery.id}`)).body).toEqual(delivery);
  expect((await t.api.get(`/v1/endpoints/${endpointId}`)).body.recent.map((a: { url: string }) => a.url)).toEqual([newUrl, oldUrl]);
  const token = ((await t.api.post(`/v1/consumers/${consumerId}/portal`, {})).body.url as string).split('/l/')[1]!;
  const portal = await fetch(`${wh.embedded.portalUrl()}/api/messages/${messageId}`, { headers: { authorization: `Bearer ${token}` } });
  expect(((await portal.json()) as { deliveries: unknown[] }).deliveries[0]).toEqual(delivery);

  // explain_delivery, on the API's own answer: the delivery's URL is the new one, no attempt_url
  // (the last attempt went there); before the 204 it names the old URL as the attempt's.
  const explained = explainDelivery(await detail());
  expect(explained).toContain(`"url":"${newUrl}"`);
  expect(explained).not.toContain('attempt_url');
  const olderView = { ...(await detail()), deliveries: [{ ...delivery, status: 'retrying', attempts: delivery.attempts.slice(0, 1) }] };
  expect(explainDelivery(olderView)).toContain(`"attempt_url":"${oldUrl}"`);

  // Past the retention window (3 months by default), before retention's job runs: the endpoint's recent attempts are
  // unreadable with the rest (the delivery is 404 by id), not listed until they are removed.
  wh.clock.advance(4 * 31 * 86_400_000);
  expect((await t.api.get(`/v1/deliveries/${delivery.id}`)).status).toBe(404);
  expect((await t.api.get(`/v1/endpoints/${endpointId}`)).body.recent).toEqual([]);
});

it('an attempt recorded before attempts kept their URL shows url null; a deleted endpoint’s delivery shows its last attempt’s URL', async () => {
  const url = after.url('/old');
  const consumerId = (await t.api.post('/v1/consumers', { external_id: 'old-rows' })).body.id;
  const endpointId = (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url })).body.id;
  const messageId = (await t.api.post('/v1/messages', { consumer: 'old-rows', event_type: 'a.b', payload: {} })).body.id;
  const detail = async () => (await t.api.get(`/v1/messages/${messageId}`)).body;
  await eventually(async () => expect((await detail()).status).toBe('success'));

  // As migration 15 leaves a row recorded before it: no URL, not a guessed one.
  const db = new DatabaseSync(join(wh.dataDir, SQLITE_FILE_NAME));
  db.prepare('UPDATE attempts SET url = NULL WHERE delivery_id = ?').run((await detail()).deliveries[0].id);
  db.close();
  expect((await detail()).deliveries[0]).toMatchObject({ url, attempts: [{ url: null, response_status: 204 }] });

  await t.api.post('/v1/messages', { consumer: 'old-rows', event_type: 'a.b', payload: {} });
  const second = (await t.api.get('/v1/messages?limit=1')).body.items[0].id;
  await eventually(async () => expect((await t.api.get(`/v1/messages/${second}`)).body.status).toBe('success'));
  expect((await t.api.delete(`/v1/endpoints/${endpointId}`)).status).toBe(204);
  expect((await t.api.get(`/v1/messages/${second}`)).body.deliveries[0]).toMatchObject({ url, attempts: [{ url }] });
  // With neither endpoint nor a recorded attempt URL: the URL the delivery was made for.
  expect((await detail()).deliveries[0].url).toBe(url);
});
