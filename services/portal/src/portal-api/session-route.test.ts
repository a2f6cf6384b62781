import { afterAll, beforeAll, expect, it } from 'vitest';
import { PortalScene } from '../testing/portal-scene.ts';

let scene: PortalScene;
beforeAll(async () => {
  scene = await PortalScene.start();
});
afterAll(() => scene.close());

it("GET /session: the link's consumer, environment, language and expiry, and what the page offers", async () => {
  const { t } = await scene.tenant('starter', 'test');
  const consumer = await scene.consumer(t, 'acme-42');
  const { token, expiresAt } = await scene.link(t, consumer, { locale: 'ja' });
  const session = await scene.api(token, 'GET', '/session');
  expect(session.status).toBe(200);
  expect(session.body).toEqual({
    consumer: expect.objectContaining({ id: consumer, external_id: 'acme-42', name: 'Customer' }),
    environment: 'test',
    locale: 'ja',
    expires_at: expiresAt,
    features: { recovery: true },
  });
  const { token: plain } = await scene.link(t, consumer);
  expect((await scene.api(plain, 'GET', '/session')).body.locale).toBeNull();
});
