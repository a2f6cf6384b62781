// What only the page does with an endpoint: reveal its current signing secret, and send it
// a test message (handed to message-intake as a trial of that one endpoint).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PortalScene } from '../testing/portal-scene.ts';

let scene: PortalScene;
beforeAll(async () => {
  scene = await PortalScene.start();
});
afterAll(() => scene.close());

async function linkWithEndpoint() {
  const { t, org } = await scene.tenant();
  const consumer = await scene.consumer(t, `customer-${org.id}`);
  const { token } = await scene.link(t, consumer);
  return { t, org, consumer, token, endpoint: await scene.endpoint(token, consumer) };
}

describe('GET /endpoints/{id}/secret', () => {
  it('shows the current secret, the rotated one after a rotation', async () => {
    const { token, endpoint } = await linkWithEndpoint();
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect(await scene.api(token, 'GET', `/endpoints/${endpoint.id}/secret`)).toMatchObject({ status: 200, body: { secret: endpoint.secret } });
    const rotated = await scene.api(token, 'POST', `/endpoints/${endpoint.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect((await scene.api(token, 'GET', `/endpoints/${endpoint.id}/secret`)).body).toEqual({ secret: rotated.body.secret });
  });

  it("answers 404 for another consumer's endpoint and for an unknown id", async () => {
    const mine = await linkWithEndpoint();
    const theirs = await linkWithEndpoint();
    expect(await scene.api(mine.token, 'GET', `/endpoints/${theirs.endpoint.id}/secret`)).toMatchObject({
      status: 404,
      body: { error: 'not_found', message: `endpoint ${theirs.endpoint.id} not found` },
    });
    expect((await scene.api(mine.token, 'GET', '/endpoints/ep_nope/secret')).status).toBe(404);
  });
});

describe('POST /endpoints/{id}/test', () => {
  it('hands intake a trial of that one endpoint, for its consumer, without a key; answers 202 with the message', async () => {
    const { t, org, token, endpoint } = await linkWithEndpoint();
    const sent = await scene.api(token, 'POST', `/endpoints/${endpoint.id}/test`, { event_type: 'invoice.paid', payload: { hello: 'world' } });
    expect(sent.status).toBe(202);
    const handed = scene.intake.sent.at(-1)!;
    expect(sent.body).toEqual({ id: `msg_recorded_${scene.intake.sent.length}`, deliveries: 1 });
    expect(handed).toEqual({
      tenant: t,
      org,
      body: { consumer: `customer-${org.id}`, event_type: 'invoice.paid', payload: { hello: 'world' } },
      idempotencyKey: null,
      trialEndpointId: endpoint.id,
    });
  });

  it('refuses a disabled endpoint (409), bad input (422), and what is not its own (404), sending nothing', async () => {
    const { t, token, endpoint } = await linkWithEndpoint();
    const theirs = await linkWithEndpoint();
    const before = scene.intake.sent.length;
    expect(await scene.api(token, 'POST', `/endpoints/${endpoint.id}/test`, { event_type: 'a b', payload: {} })).toMatchObject({
      status: 422,
      body: { error: 'invalid' },
    });
    expect((await scene.api(token, 'POST', `/endpoints/${theirs.endpoint.id}/test`, { event_type: 'a.b', payload: {} })).status).toBe(404);
    await scene.store.endpoints.update(t, endpoint.id, { status: 'disabled', disabledReason: 'failing for 5 days', changedAt: scene.clock.now() });
    expect(await scene.api(token, 'POST', `/endpoints/${endpoint.id}/test`, { event_type: 'a.b', payload: {} })).toMatchObject({
      status: 409,
      body: { error: 'conflict', message: `endpoint ${endpoint.id} is disabled; resume it first` },
    });
    expect(scene.intake.sent.length).toBe(before);
  });
});
