// Test notices end to end (embedded mode): POST /v1/alert-targets/{id}/test sends a sample
// notice to a real HTTPS receiver at once, answers its first try, and is limited per target.
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '@wirehook/testkit';
import type { TestTenant } from '../support/harness.ts';
import { hooks, noticesOf, org, settle, tick, useAlertingWirehook, wh } from '../support/alerting-fixture.ts';

useAlertingWirehook();

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
