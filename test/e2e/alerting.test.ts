// Failure notices end to end (embedded mode): a real receiver failing, real HTTPS receivers
// as the organization's webhook and chat targets, the clock moved, not slept. Each condition
// fires when it should and not before; the per-endpoint hour and the per-organization grouping
// hold; exhausted retries always notify; automatic stops notify; failed notices are retried
// and their tries shown on the target; a restarted worker racing a replica sends one notice.
// Test notices are in alerting-test-notices.test.ts, pending retries and usage in
// alerting-thresholds.test.ts; the set-up they share in alerting-fixture.ts.
import { describe, expect, it } from 'vitest';
import { eventually, verifyWebhook } from '@wirehook/testkit';
import { createAlerting } from '@wirehook/alerting';
import { silentLogger } from '@wirehook/platform';
import { SecretBox } from '@wirehook/core';
import { TEST_ALLOW_HOSTS, testLookup } from '../support/receivers.ts';
import { caPem, chat, failing, hooks, noticesOf, org, settle, tick, useAlertingWirehook, wh } from '../support/alerting-fixture.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
useAlertingWirehook();

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
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), // ISO 8601, as a delivery's
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
    // Received is not yet recorded: the retry is set 10 s after the record, so the clock moves only after it.
    await wh.embedded.alertingWorker.idle();
    hooks.receiver.respondWith({});
    wh.clock.advance(10_000);
    await eventually(async () => {
      await tick();
      expect(noticesOf(o)).toHaveLength(2);
    });
    expect(noticesOf(o)[0]!.headers['webhook-id']).toBe(noticesOf(o)[1]!.headers['webhook-id']); // the same notice
    const targets = (await o.t.api.get('/v1/alert-targets')).body.items;
    const hook = targets.find((x: { type: string }) => x.type === 'webhook');
    // The second try was received, and is recorded only after the target's answer.
    await eventually(async () => {
      const detail = (await o.t.api.get(`/v1/alert-targets/${hook.id}`)).body;
      expect(detail.recent.map((a: { response_status: number }) => a.response_status)).toEqual([200, 503]);
    });
  });
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
    // Every send either worker started is recorded, and one more round each finds nothing more to send.
    for (let round = 0; round < 2; round++) {
      await Promise.all([one.tick(), two.tick()]);
      await Promise.all([one.idle(), two.idle()]);
    }
    expect(noticesOf(o)).toHaveLength(2);
    expect((verifyWebhook(o.secret, noticesOf(o)[1]!) as any).data.endpoints.map((e: { id: string }) => e.id)).toEqual([b.id]);
  });
});
