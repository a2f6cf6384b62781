// What the alerting end-to-end files share: embedded Wirehook with real HTTPS receivers as a
// failing endpoint and as the organization's webhook and chat targets, organizations with both
// targets, and the alerting worker's tick. The bindings below are set by useAlertingWirehook's
// beforeAll (ES module bindings are live: importers see them once set).
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { eventually, testCa } from '@wirehook/testkit';
import { startWirehook, type Harness, type TestTenant } from './harness.ts';
import { startReceiver, TEST_ALLOW_HOSTS, TEST_RESOLVE, type NamedReceiver } from './receivers.ts';

export let wh: Harness;
export let failing: NamedReceiver; // the customers' endpoints, answering 500
export let hooks: NamedReceiver; // the organization's webhook target
export let chat: NamedReceiver; // the organization's chat target
export let caPem: string;

/** Starts Wirehook and the receivers before the calling file's tests, clears the targets' records before each, closes all after. */
export function useAlertingWirehook(): void {
  beforeAll(async () => {
    caPem = (await testCa()).caPem;
    wh = await startWirehook({ allowHosts: TEST_ALLOW_HOSTS, resolve: TEST_RESOLVE, ca: caPem });
    [failing, hooks, chat] = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
    failing.receiver.respondWith({ status: 500, body: 'boom' });
  });
  afterAll(async () => {
    await wh.close();
    await Promise.all([failing, hooks, chat].map((r) => r.receiver.close()));
  });
  beforeEach(() => {
    hooks.receiver.clear();
    chat.receiver.clear();
    hooks.receiver.respondWith({});
  });
}

/** An organization with alert conditions, a webhook and a chat target, and helpers to make failing endpoints and send to them. */
export interface Org {
  t: TestTenant;
  secret: string;
  endpoint(retry?: { count: number; interval: string }): Promise<{ id: string; consumer: string }>;
  send(consumer: string): Promise<string>;
}
let seq = 0;

/** A new organization with `conditions` and both targets. */
export async function org(conditions: Record<string, unknown>): Promise<Org> {
  const t = await wh.tenant();
  await t.api.put('/v1/alert-conditions', conditions);
  const target = await t.api.post('/v1/alert-targets', { type: 'webhook', url: hooks.url(`/alerts/${t.orgId}`) });
  await t.api.post('/v1/alert-targets', { type: 'chat', url: chat.url(`/chat/${t.orgId}`) });
  return {
    t,
    secret: target.body.secret,
    async endpoint(retry = { count: 0, interval: '1m' }) {
      const consumer = `alert-${++seq}`;
      const consumerId = (await t.api.post('/v1/consumers', { external_id: consumer })).body.id;
      return { id: (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: failing.url(`/${consumer}`), retry })).body.id, consumer };
    },
    async send(consumer) {
      const id = (await t.api.post('/v1/messages', { consumer, event_type: 'order.created', payload: {} })).body.id;
      await eventually(async () => expect((await t.api.get(`/v1/messages/${id}`)).body.deliveries[0].attempts.length).toBeGreaterThan(0));
      return id;
    },
  };
}

/** The notices the organization's webhook target received. */
export const noticesOf = (o: Org) => hooks.receiver.requests.filter((r) => r.path === `/alerts/${o.t.orgId}`);
/** Runs the alerting worker once. */
export const tick = () => wh.embedded.alertingWorker.tick();
/**
 * Two rounds, each followed by the recording of every send it started: what is due now (a
 * retry the first round's answers made due included) has been sent, and nothing more will be
 * until the clock moves. No sleep: a check for "no notice" after it is a check of the decision.
 */
export const settle = async () => {
  for (let round = 0; round < 2; round++) {
    await tick();
    await wh.embedded.alertingWorker.idle();
  }
};
