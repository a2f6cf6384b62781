// The portal's token API lists the egress addresses (GET /v1/egress-ips as it is), so the page
// can show a fixed_ip endpoint's customer what to allow; and it serves an endpoint's stats.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PortalScene } from '../testing/portal-scene.ts';

let scene: PortalScene;
beforeAll(async () => {
  scene = await PortalScene.start();
});
afterAll(() => scene.close());

describe('GET /egress-ips through a link', () => {
  it('lists the pool and a retiring address, as /v1 does; without a token 401', async () => {
    const { t } = await scene.tenant();
    const { token } = await scene.link(t, await scene.consumer(t));
    const now = scene.clock.now();
    await scene.store.egressIps.sync(
      [
        { ip: '203.0.113.7', family: 4 },
        { ip: '203.0.113.8', family: 4 },
      ],
      now,
      30 * 86_400_000,
    );
    await scene.store.egressIps.sync([{ ip: '203.0.113.7', family: 4 }], now, 30 * 86_400_000);
    expect(await scene.api(token, 'GET', '/egress-ips')).toMatchObject({
      status: 200,
      body: {
        items: [
          { ip: '203.0.113.7', family: 4, retiring_at: null },
          { ip: '203.0.113.8', family: 4, retiring_at: now + 30 * 86_400_000 },
        ],
      },
    });
    expect((await scene.api(null, 'GET', '/egress-ips')).status).toBe(401);
  });
});

describe('GET /endpoints/{id}/stats through a link', () => {
  it("answers for the consumer's endpoint, 404 for another's", async () => {
    const { t } = await scene.tenant();
    const mine = await scene.consumer(t);
    const theirs = await scene.consumer(t);
    const { token } = await scene.link(t, mine);
    const { token: other } = await scene.link(t, theirs);
    const endpoint = await scene.endpoint(token, mine);
    const stats = await scene.api(token, 'GET', `/endpoints/${endpoint.id}/stats?window=1h`);
    expect(stats).toMatchObject({ status: 200, body: { endpoint_id: endpoint.id, window: '1h', attempts: 0, pending: 0 } });
    expect(stats.body.series).toHaveLength(12);
    expect((await scene.api(other, 'GET', `/endpoints/${endpoint.id}/stats`)).status).toBe(404);
  });
});
