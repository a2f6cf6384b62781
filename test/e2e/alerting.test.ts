// Failure notices end to end (embedded mode): a real receiver failing, real HTTPS receivers
// as the organization's webhook and chat targets, the clock moved, not slept. Each condition
// fires when it should and not before; the per-endpoint hour and the per-organization grouping
// hold; exhausted retries always notify; automatic stops notify; failed notices are retried
// and their tries shown on the target.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually, testCa, verifyWebhook } from '@wirehook/testkit';
import { createAlerting } from '@wirehook/alerting';
import { silentLogger } from '@wirehook/platform';
import { SecretBox } from '@wirehook/core';
import { fillLiveUsage, startWirehook, type Harness, type TestTenant } from '../support/harness.ts';
import { startReceiver, TEST_ALLOW_HOSTS, testLookup, type NamedReceiver } from '../support/receivers.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
let wh: Harness;
let failing: NamedReceiver; // the customers' endpoints, answering 500
let hooks: NamedReceiver; // the organization's webhook target
let chat: NamedReceiver; // the organization's chat target
let caPem: string;

beforeAll(async () => {
  caPem = (await testCa()).caPem;
  wh = await startWirehook({ allowHosts: TEST_ALLOW_HOSTS, lookup: testLookup, ca: caPem });
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

interface Org {
  t: TestTenant;
  secret: string;
  endpoint(retry?: { count: number; interval: string }): Promise<{ id: string; consumer: string }>;
  send(consumer: string): Promise<string>;
}
let seq = 0;
async function org(conditions: Record<string, unknown>): Promise<Org> {
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
const noticesOf = (o: Org) => hooks.receiver.requests.filter((r) => r.path === `/alerts/${o.t.orgId}`);
const tick = () => wh.embedded.alertingWorker.tick();
const settle = async () => {
  await tick();
  await new Promise((resolve) => setTimeout(resolve, 150));
  await tick();
};

describe('delivery failure notices', () => {
  it("'first': at the first failure, signed like a delivery, to every target; then at most one per endpoint per hour", async () => {
    const o = await org({ delivery_failure: 'first' });
    const ep = await o.endpoint({ count: 7, interval: 'progressive' });
    await o.send(ep.consumer);
    await eventually(async () => {
      await tick();
      expect(noticesOf(o)).toHaveLength(1);
    });
    const notice = noticesOf(o)[0]!;
    const body = verifyWebhook(o.secret, notice) as any;
    expect(body).toMatchObject({
      type: 'alert.delivery_failure',
      timestamp: expect.any(Number),
      data: {
        environments: ['live'],
        endpoints: [
          {
            id: ep.id,
            url: failing.url(`/${ep.consumer}`),
            environment: 'live',
            consumer: { external_id: ep.consumer },
            failing_since: expect.any(Number),
            last_error: 'http_status: 500',
            last_status: 500,
          },
        ],
        summary: expect.stringContaining('Deliveries to an endpoint are failing'),
      },
    });
    await eventually(() => expect(chat.receiver.requests.filter((r) => r.path === `/chat/${o.t.orgId}`)).toHaveLength(1));
    expect(JSON.parse(chat.receiver.requests.find((r) => r.path === `/chat/${o.t.orgId}`)!.body)).toMatchObject({
      text: expect.stringContaining(ep.consumer),
      blocks: [expect.objectContaining({ type: 'section' })],
    });

    // More failures within the hour (the streak goes on): nothing more.
    await o.send(ep.consumer);
    await settle();
    expect(noticesOf(o)).toHaveLength(1);
  });

  it("'5m': not before the failure has lasted 5 minutes; then once for that streak", async () => {
    const o = await org({ delivery_failure: '5m' });
    const ep = await o.endpoint({ count: 7, interval: 'progressive' });
    await o.send(ep.consumer);
    wh.clock.advance(4 * MIN);
    await settle();
    expect(noticesOf(o)).toHaveLength(0);
    wh.clock.advance(MIN);
    await eventually(async () => {
      await tick();
      expect(noticesOf(o)).toHaveLength(1);
    });
    wh.clock.advance(2 * HOUR);
    await settle();
    expect(noticesOf(o)).toHaveLength(1); // the same streak: not again
  });

  it('exhausted retries always notify; a second endpoint failing in the same hour waits, combined with the others at its end', async () => {
    const o = await org({ delivery_failure: '60m' });
    const a = await o.endpoint();
    await o.send(a.consumer); // retry count 0: exhausted at once
    await eventually(async () => {
      await tick();
      expect(noticesOf(o)).toHaveLength(1);
    });
    const b = await o.endpoint();
    const c = await o.endpoint();
    await o.send(b.consumer);
    await o.send(c.consumer);
    await settle();
    expect(noticesOf(o)).toHaveLength(1); // the organization's hour is running
    wh.clock.advance(HOUR);
    await eventually(async () => {
      await tick();
      expect(noticesOf(o)).toHaveLength(2);
    });
    const combined = verifyWebhook(o.secret, noticesOf(o)[1]!) as any;
    expect(combined.data.endpoints.map((e: { id: string }) => e.id).sort()).toEqual([b.id, c.id].sort());
    expect(combined.data.summary).toContain('Deliveries to 2 endpoints are failing');
  });
});

describe('automatic stop', () => {
  it('notifies when an endpoint is disabled after 5 days of failures (when chosen), and not when not chosen', async () => {
    for (const chosen of [true, false]) {
      hooks.receiver.clear();
      const o = await org({ delivery_failure: '60m', automatic_stop: chosen });
      const ep = await o.endpoint({ count: 0, interval: '1m' });
      await o.send(ep.consumer);
      wh.clock.advance(5 * 24 * HOUR + MIN);
      await o.send(ep.consumer);
      await eventually(async () => expect((await o.t.api.get(`/v1/endpoints/${ep.id}`)).body.status).toBe('disabled'));
      await settle();
      await settle();
      const disabled = noticesOf(o).filter((r) => (JSON.parse(r.body) as { type: string }).type === 'alert.endpoint_disabled');
      expect(disabled, `automatic_stop ${chosen}`).toHaveLength(chosen ? 1 : 0);
    }
  });
});

describe('notice delivery', () => {
  it('a target that fails is tried again later; every try is shown on the target', async () => {
    const o = await org({ delivery_failure: 'first' });
    hooks.receiver.respondWith({ status: 503 });
    const ep = await o.endpoint();
    await o.send(ep.consumer);
    await eventually(async () => {
      await tick();
      expect(noticesOf(o)).toHaveLength(1);
    });
    hooks.receiver.respondWith({});
    wh.clock.advance(10_000);
    await eventually(async () => {
      await tick();
      expect(noticesOf(o)).toHaveLength(2);
    });
    expect(noticesOf(o)[0]!.headers['webhook-id']).toBe(noticesOf(o)[1]!.headers['webhook-id']); // the same notice
    const targets = (await o.t.api.get('/v1/alert-targets')).body.items;
    const hook = targets.find((x: { type: string }) => x.type === 'webhook');
    const detail = (await o.t.api.get(`/v1/alert-targets/${hook.id}`)).body;
    expect(detail.recent.map((a: { response_status: number }) => a.response_status)).toEqual([200, 503]);
  });
});

describe('test notices (POST /v1/alert-targets/{id}/test)', () => {
  /** Posts the test and ticks the engine until it answers (the test's notice waits for a tick). */
  async function testTarget(t: TestTenant, id: string) {
    const answer = t.api.post(`/v1/alert-targets/${id}/test`, {});
    let done = false;
    void answer.finally(() => (done = true));
    while (!done) {
      await tick();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return answer;
  }

  it('sends a sample notice now, signed like any, without an endpoint failing, and answers its first try', async () => {
    const o = await org({ delivery_failure: '60m' });
    const hook = (await o.t.api.get('/v1/alert-targets')).body.items.find((x: { type: string }) => x.type === 'webhook');
    const res = await testTarget(o.t, hook.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ notice_id: expect.stringMatching(/^ntc_/), attempt: { response_status: 200, error: null, type: 'alert.test' } });
    const sent = noticesOf(o);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers['webhook-id']).toBe(res.body.notice_id);
    expect(verifyWebhook(o.secret, sent[0]!) as object).toMatchObject({ type: 'alert.test', data: { environments: ['live'] } });
  });

  it('a target that refuses shows it in the answer; an unknown or other environment’s target is 404', async () => {
    const o = await org({ delivery_failure: '60m' });
    hooks.receiver.respondWith({ status: 410 });
    const hook = (await o.t.api.get('/v1/alert-targets')).body.items.find((x: { type: string }) => x.type === 'webhook');
    const res = await testTarget(o.t, hook.id);
    expect(res.body.attempt).toMatchObject({ response_status: 410 });
    expect((await o.t.api.post('/v1/alert-targets/atg_00000000000000000000000000/test', {})).status).toBe(404);
    const other = await wh.tenant();
    expect((await other.api.post(`/v1/alert-targets/${hook.id}/test`, {})).status).toBe(404);
  });

  it('at most 5 tests a minute per target (429 after), tried once: a failed test is not retried', async () => {
    const o = await org({ delivery_failure: '60m' });
    hooks.receiver.respondWith({ status: 503 });
    const hook = (await o.t.api.get('/v1/alert-targets')).body.items.find((x: { type: string }) => x.type === 'webhook');
    for (let i = 0; i < 5; i++) expect((await testTarget(o.t, hook.id)).status).toBe(200);
    const refused = await o.t.api.post(`/v1/alert-targets/${hook.id}/test`, {});
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/at most 5 test notices a minute per target/);
    wh.clock.advance(10 * 60_000); // past every retry delay of a real notice
    await settle();
    expect(noticesOf(o)).toHaveLength(5);
  });
});

describe('pending retries and usage', () => {
  it('pending retries: when the environment’s total exceeds the chosen number (100: none, 101: one), once a UTC day', async () => {
    const o = await org({ pending_retries: 100 });
    const ep = await o.endpoint({ count: 7, interval: 'progressive' });
    await Promise.all(Array.from({ length: 100 }, () => o.t.api.post('/v1/messages', { consumer: ep.consumer, event_type: 'a.b', payload: {} })));
    await eventually(async () => expect((await o.t.api.get(`/v1/endpoints/${ep.id}`)).body.retrying_count).toBe(100), 30_000);
    const pendingNotices = () => noticesOf(o).filter((r) => r.body.includes('alert.pending_retries'));
    wh.clock.advance(61_000);
    await settle();
    await wh.embedded.alertingWorker.idle();
    expect(pendingNotices()).toHaveLength(0); // 100 does not exceed 100
    await o.send(ep.consumer);
    await eventually(async () => expect((await o.t.api.get(`/v1/endpoints/${ep.id}`)).body.retrying_count).toBe(101), 30_000);
    wh.clock.advance(61_000);
    await eventually(async () => {
      await tick();
      expect(pendingNotices()).toHaveLength(1);
    });
    expect((verifyWebhook(o.secret, pendingNotices()[0]!) as any).data).toMatchObject({ environments: ['live'], retrying: 101, threshold: 100 });
    wh.clock.advance(61_000);
    await settle();
    expect(pendingNotices()).toHaveLength(1); // once that day
  }, 60_000);

  it('usage: the chosen share of the plan once a month', async () => {
    const o = await org({ usage: 50 });
    // 5,000 live messages of the Free plan's 10,000, written straight to the store (the counter intake keeps).
    const free = await wh.tenant({ plan: 'free' });
    await free.api.put('/v1/alert-conditions', { usage: 50 });
    await free.api.post('/v1/alert-targets', { type: 'webhook', url: hooks.url(`/alerts/${free.orgId}`) });
    await fillLiveUsage(wh, free.orgId, 5_000);
    wh.clock.advance(61_000);
    const usageNotices = () => hooks.receiver.requests.filter((r) => r.path === `/alerts/${free.orgId}` && r.body.includes('alert.usage'));
    await eventually(async () => {
      await tick();
      expect(usageNotices()).toHaveLength(1);
    });
    expect(JSON.parse(usageNotices()[0]!.body).data).toMatchObject({ used: 5_000, limit: 10_000, percent: 50, threshold: 50 });
    wh.clock.advance(61_000);
    await settle();
    expect(usageNotices()).toHaveLength(1); // once this month
    expect(noticesOf(o).filter((r) => r.body.includes('alert.usage'))).toHaveLength(0); // not the other organization
  }, 60_000);
});

describe('restarts and replicas', () => {
  it('a worker restarted mid-hour, racing another: the waiting endpoints go in exactly one notice', async () => {
    const o = await org({ delivery_failure: '60m' });
    const a = await o.endpoint();
    await o.send(a.consumer);
    await eventually(async () => {
      await tick();
      expect(noticesOf(o)).toHaveLength(1);
    });
    const b = await o.endpoint();
    await o.send(b.consumer);
    await settle(); // b waits in the hour, in the store
    // The process dies; two new ones (a restart, and a second replica) take over.
    await wh.embedded.alertingWorker.stop();
    const key = (await import('node:fs')).readFileSync(`${process.env['XDG_CONFIG_HOME']}/wirehook/secret.key`, 'utf8');
    const make = () =>
      createAlerting(
        { DELIVERY_ALLOW_HOSTS: TEST_ALLOW_HOSTS, DELIVERY_RESOLVE: '' },
        { store: wh.store, clock: wh.clock, logger: silentLogger(), secretBox: SecretBox.fromBase64(key), lookup: testLookup, ca: caPem },
      ).worker;
    const [one, two] = [make(), make()];
    wh.clock.advance(HOUR);
    await Promise.all([one.tick(), two.tick(), one.tick(), two.tick()]);
    await eventually(async () => {
      await Promise.all([one.tick(), two.tick()]);
      expect(noticesOf(o)).toHaveLength(2);
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await Promise.all([one.tick(), two.tick()]);
    expect(noticesOf(o)).toHaveLength(2);
    expect((verifyWebhook(o.secret, noticesOf(o)[1]!) as any).data.endpoints.map((e: { id: string }) => e.id)).toEqual([b.id]);
  });
});
