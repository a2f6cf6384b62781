// The portal's token API end to end, through the portal's port: the /v1 routes scoped to the
// link's consumer, and trial sends (to the one endpoint, not billed, 1,000 per environment and
// 100 per customer per UTC day). Set-up in portal-link-fixture.ts.
import { describe, expect, it } from 'vitest';
import type { TestTenant } from '../support/harness.ts';
import { link, portalApi, t, usePortalWirehook, wh } from '../support/portal-link-fixture.ts';

usePortalWirehook();

describe('the token API: the /v1 routes, scoped to the link’s consumer', () => {
  it('sees and changes only its consumer’s endpoints, messages and deliveries', async () => {
    const mine = (await t.api.post('/v1/consumers', { external_id: 'scope-mine' })).body.id;
    const other = (await t.api.post('/v1/consumers', { external_id: 'scope-other' })).body.id;
    await t.api.post('/v1/event-types', { name: 'order.created', description: 'An order was placed' });
    const theirs = (await t.api.post('/v1/endpoints', { consumer_id: other, url: 'https://localhost:8443/theirs' })).body.id;
    const { token } = await link(mine, { locale: 'en' });

    expect((await portalApi(token, 'GET', '/session')).body).toMatchObject({
      consumer: { id: mine, external_id: 'scope-mine' },
      environment: 'live',
      locale: 'en',
      features: { recovery: true },
    });
    expect((await portalApi(token, 'GET', '/event-types')).body.items).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'order.created' })]));
    expect((await portalApi(token, 'POST', '/event-types', { name: 'x.y' })).status).toBe(403);

    const created = await portalApi(token, 'POST', '/endpoints', { consumer_id: mine, url: 'https://localhost:8443/mine', event_types: ['order.created'] });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    const id = created.body.id;
    expect((await portalApi(token, 'POST', '/endpoints', { consumer_id: other, url: 'https://localhost:8443/x' })).status).toBe(404);
    expect((await portalApi(token, 'POST', '/endpoints', { consumer_id: mine, url: 'http://localhost/x' })).body).toMatchObject({
      error: 'invalid',
      message: expect.stringMatching(/^url: /),
    });

    expect((await portalApi(token, 'GET', '/endpoints')).body.items.map((e: { id: string }) => e.id)).toEqual([id]);
    expect((await portalApi(token, 'GET', `/endpoints?consumer_id=${other}`)).body.items).toEqual([]);
    for (const [method, path] of [
      ['GET', `/endpoints/${theirs}`],
      ['PATCH', `/endpoints/${theirs}`],
      ['DELETE', `/endpoints/${theirs}`],
      ['GET', `/endpoints/${theirs}/secret`],
      ['POST', `/endpoints/${theirs}/rotate-secret`],
      ['POST', `/endpoints/${theirs}/recover`],
    ] as const) {
      expect(
        (await portalApi(token, method, path, method === 'GET' || method === 'DELETE' ? undefined : { status: 'paused', since: wh.clock.now() - 1000 })).status,
        `${method} ${path}`,
      ).toBe(404);
    }
    expect((await t.api.get(`/v1/endpoints/${theirs}`)).body.status).toBe('active'); // untouched

    expect((await portalApi(token, 'GET', `/endpoints/${id}/secret`)).body).toEqual({ secret: created.body.secret });
    const rotated = await portalApi(token, 'POST', `/endpoints/${id}/rotate-secret`);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect((await portalApi(token, 'GET', `/endpoints/${id}/secret`)).body).toEqual({ secret: rotated.body.secret });
    expect((await portalApi(token, 'PATCH', `/endpoints/${id}`, { status: 'paused' })).body.status).toBe('paused');

    const m1 = (await t.api.post('/v1/messages', { consumer: 'scope-mine', event_type: 'order.created', payload: { a: 1 } })).body.id;
    const m2 = (await t.api.post('/v1/messages', { consumer: 'scope-other', event_type: 'order.created', payload: { a: 2 } })).body.id;
    expect((await portalApi(token, 'GET', '/messages')).body.items.map((m: { id: string }) => m.id)).toEqual([m1]);
    expect((await portalApi(token, 'GET', `/messages/${m2}`)).status).toBe(404);
    const theirDelivery = (await t.api.get(`/v1/messages/${m2}`)).body.deliveries[0].id;
    expect((await portalApi(token, 'POST', `/deliveries/${theirDelivery}/retry`)).status).toBe(404);
    // The attempts the page pages through ("Show older attempts"): its consumer's delivery, not another's.
    const myDelivery = (await t.api.get(`/v1/messages/${m1}`)).body.deliveries[0].id;
    expect((await portalApi(token, 'GET', `/deliveries/${myDelivery}/attempts`)).body).toEqual({ items: [], next_cursor: null });
    expect((await portalApi(token, 'GET', `/deliveries/${theirDelivery}/attempts`)).status).toBe(404);
    expect((await portalApi(token, 'POST', '/messages', { consumer: 'scope-mine', event_type: 'order.created', payload: {} })).status).toBe(403);

    expect((await portalApi(token, 'DELETE', `/endpoints/${id}`)).status).toBe(204);
    expect((await portalApi('pt_forged', 'GET', '/endpoints')).body).toEqual({
      error: 'unauthorized',
      message: 'this portal link is not valid; ask for a new link',
    });
    expect((await portalApi('sk_live_x', 'GET', '/endpoints')).status).toBe(401); // API keys do not open the portal API
  });
});

describe('trial sends from the portal', () => {
  const DAY = 24 * 3_600_000;
  /** Moves the clock to noon UTC of the next day: the minutes moved below stay in one UTC day. */
  const nextNoon = () => wh.clock.advance(Math.floor(wh.clock.now() / DAY) * DAY + DAY + DAY / 2 - wh.clock.now());
  const trial = (token: string, endpointId: string) => portalApi(token, 'POST', `/endpoints/${endpointId}/test`, { event_type: 'a.b', payload: {} });
  /** `n` trial sends through `token`, all 202. */
  const trials = async (token: string, endpointId: string, n: number) => {
    for (let done = 0; done < n; done += 50) {
      for (const r of await Promise.all(Array.from({ length: Math.min(50, n - done) }, () => trial(token, endpointId)))) expect(r.status).toBe(202);
    }
  };
  /** A consumer of `tenant` with one endpoint, and a link to it. */
  const linked = async (tenant: TestTenant, externalId: string) => {
    const c = (await tenant.api.post('/v1/consumers', { external_id: externalId })).body.id;
    const endpoint = (await tenant.api.post('/v1/endpoints', { consumer_id: c, url: 'https://localhost:8443/trial' })).body.id;
    const made = await tenant.api.post(`/v1/consumers/${c}/portal`, {});
    expect(made.status).toBe(201);
    return { consumer: c as string, endpoint, token: (made.body.url as string).split('/l/')[1]! };
  };
  const newLink = async (tenant: TestTenant, consumerId: string) =>
    ((await tenant.api.post(`/v1/consumers/${consumerId}/portal`, {})).body.url as string).split('/l/')[1]!;

  it('go to the one endpoint (whatever types it takes), are not billed, and stop at 1,000 per environment per UTC day', async () => {
    nextNoon();
    const c = (await t.api.post('/v1/consumers', { external_id: 'trial-1' })).body.id;
    const other = (await t.api.post('/v1/consumers', { external_id: 'trial-2' })).body.id;
    const target = (await t.api.post('/v1/endpoints', { consumer_id: c, url: 'https://localhost:8443/a', event_types: ['order.created'] })).body.id;
    await t.api.post('/v1/endpoints', { consumer_id: c, url: 'https://localhost:8443/b' }); // takes everything: not a trial's target
    const theirs = (await t.api.post('/v1/endpoints', { consumer_id: other, url: 'https://localhost:8443/c' })).body.id;
    const { token } = await link(c);

    const sent = await portalApi(token, 'POST', `/endpoints/${target}/test`, { event_type: 'invoice.paid', payload: { hello: 'world' } });
    expect(sent).toEqual({ status: 202, body: { id: expect.stringMatching(/^msg_/), deliveries: 1 } });
    const detail = (await t.api.get(`/v1/messages/${sent.body.id}`)).body;
    expect(detail.deliveries.map((d: { endpoint_id: string }) => d.endpoint_id)).toEqual([target]);
    expect(detail).toMatchObject({ event_type: 'invoice.paid', payload: { hello: 'world' } });

    expect((await portalApi(token, 'POST', `/endpoints/${theirs}/test`, { event_type: 'a.b', payload: {} })).status).toBe(404);
    expect((await portalApi(token, 'POST', `/endpoints/${target}/test`, { event_type: 'a b', payload: {} })).body).toMatchObject({
      error: 'invalid',
      message: expect.stringMatching(/^event_type: /),
    });

    // Not billed: the month's live count is what the sends made, not the trials.
    const usage = Number((await t.api.post('/v1/messages', { consumer: 'trial-1', event_type: 'order.created', payload: {} })).headers.get('x-usage-month'));
    // 1,000 in all: this link's 100 (with the one above), then nine other customers' 100 each.
    await trials(token, target, 99);
    for (let i = 0; i < 9; i++) {
      const { endpoint, token: theirToken } = await linked(t, `trial-many-${i}`);
      await trials(theirToken, endpoint, 100);
    }
    const { endpoint: last, token: lastToken } = await linked(t, 'trial-many-last');
    expect(await trial(lastToken, last)).toEqual({
      status: 402,
      body: { error: 'plan_limit', message: 'test and trial sends are limited to 1,000 per environment per UTC day' },
    });
    const after = Number((await t.api.post('/v1/messages', { consumer: 'trial-1', event_type: 'order.created', payload: {} })).headers.get('x-usage-month'));
    expect(usage).toBeGreaterThan(0);
    expect(after).toBe(usage + 1);
  }, 60_000);

  it('a customer’s links send at most 100 trials a UTC day (sparing the sender’s test sends); other links, the test key go on; a new day resets', async () => {
    nextNoon();
    const testKey = await wh.key(t.orgId, { env: 'test' });
    const first = await linked(testKey, 'trial-cap-1');
    await trials(first.token, first.endpoint, 100);
    const capped = { status: 402, body: { error: 'plan_limit', message: 'trial sends are limited to 100 per customer per UTC day' } };
    expect(await trial(first.token, first.endpoint)).toEqual(capped);
    // Another link of the same customer shares the cap.
    expect(await trial(await newLink(testKey, first.consumer), first.endpoint)).toEqual(capped);

    const second = await linked(testKey, 'trial-cap-2');
    expect((await trial(second.token, second.endpoint)).status).toBe(202);
    expect((await testKey.api.post('/v1/messages', { consumer: 'trial-cap-1', event_type: 'a.b', payload: {} })).status).toBe(202);

    // The UTC day's last millisecond is still that day (a link lasts 15 minutes: a new one); its end starts the next.
    wh.clock.advance(Math.floor(wh.clock.now() / DAY) * DAY + DAY - 1 - wh.clock.now());
    const late = await newLink(testKey, first.consumer);
    expect(await trial(late, first.endpoint)).toEqual(capped);
    wh.clock.advance(1);
    expect((await trial(late, first.endpoint)).status).toBe(202);
  }, 60_000);
});
