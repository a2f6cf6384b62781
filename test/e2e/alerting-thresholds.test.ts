// Pending-retries and usage notices end to end (embedded mode): each fires when the chosen
// threshold is exceeded (just inside, just outside), once a day or once a month.
import { describe, expect, it } from 'vitest';
import { eventually, verifyWebhook } from '@wirehook/testkit';
import { fillLiveUsage } from '../support/harness.ts';
import { hooks, noticesOf, org, settle, tick, useAlertingWirehook, wh } from '../support/alerting-fixture.ts';

useAlertingWirehook();

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
