// Delivery outcomes in the log, as an operator following a customer's outage reads them:
// failures at info with the ids and what the endpoint answered; successes only at debug.
import { createLogger } from '@wirehook/platform';
import { eventually, jsonLines, testCa } from '@wirehook/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startWirehook, type Harness } from '../support/harness.ts';
import { startReceiver, TEST_ALLOW_HOSTS, TEST_RESOLVE, type NamedReceiver } from '../support/receivers.ts';

let wh: Harness;
let rx: NamedReceiver;
const { destination: out, lines } = jsonLines();

beforeAll(async () => {
  wh = await startWirehook({
    allowHosts: TEST_ALLOW_HOSTS,
    resolve: TEST_RESOLVE,
    ca: (await testCa()).caPem,
    logger: createLogger({ name: 'wirehook', instance: 'test-1', level: 'info', format: 'json', destination: out }),
  });
  rx = await startReceiver();
});
afterAll(async () => {
  await wh.close();
  await rx.receiver.close();
});

it('a failed attempt is logged at info with its ids, the answer and the next try; a success is not', async () => {
  const t = await wh.tenant();
  const consumer = (await t.api.post('/v1/consumers', { external_id: 'c' })).body.id;
  const endpoint = (await t.api.post('/v1/endpoints', { consumer_id: consumer, url: rx.url() })).body.id;
  rx.receiver.respondWith({ status: 503 });
  const failing = (await t.api.post('/v1/messages', { consumer: 'c', event_type: 'a.b', payload: {} })).body.id;
  await eventually(() => expect(lines.find((l) => l['messageId'] === failing)).toBeDefined());
  expect(lines.find((l) => l['messageId'] === failing)).toMatchObject({
    level: 30,
    service: 'wirehook',
    instance: 'test-1',
    msg: 'attempt failed; retrying',
    endpointId: endpoint,
    orgId: t.orgId,
    status: 'retrying',
    responseStatus: 503,
    error: 'http_status: 503',
    nextAttemptAt: expect.any(Number),
  });

  rx.receiver.respondWith({});
  const ok = (await t.api.post('/v1/messages', { consumer: 'c', event_type: 'a.b', payload: {} })).body.id;
  await eventually(async () => expect((await t.api.get(`/v1/messages/${ok}`)).body.status).toBe('success'));
  expect(lines.some((l) => l['messageId'] === ok)).toBe(false);
});
