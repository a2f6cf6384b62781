// The portal API's credential: a link's token (`Bearer pt_…`), valid for its 15 minutes,
// scoped to its consumer, with the portal's scopes and its own rate-limit budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PortalScene } from '../testing/portal-scene.ts';

let scene: PortalScene;
beforeAll(async () => {
  scene = await PortalScene.start();
});
afterAll(() => scene.close());

const NOT_VALID = { error: 'unauthorized', message: 'this portal link is not valid; ask for a new link' };
const EXPIRED = { error: 'unauthorized', message: 'this portal link has expired; ask for a new link' };

describe('the link token', () => {
  it('is required: none, another scheme, an API key, a malformed or unknown token all get the same 401', async () => {
    const { t } = await scene.tenant();
    const { token } = await scene.link(t, await scene.consumer(t));
    expect(await scene.api(null, 'GET', '/session')).toMatchObject({ status: 401, body: NOT_VALID });
    for (const raw of [`Basic ${token}`, 'Bearer sk_live_abcdefghijklmnop', `Bearer ${token}!`, `Bearer pt_${'a'.repeat(101)}`, 'Bearer pt_unknown']) {
      expect(await scene.api({ raw }, 'GET', '/session'), raw).toMatchObject({ status: 401, body: NOT_VALID });
    }
    expect((await scene.api(token, 'GET', '/session')).status).toBe(200);
  });

  it('opens for 15 minutes: 1 ms before expiry it works, at expiry it gets 401 saying so', async () => {
    const { t } = await scene.tenant();
    const { token, expiresAt } = await scene.link(t, await scene.consumer(t));
    expect(expiresAt - scene.clock.now()).toBe(15 * 60 * 1000);
    scene.clock.set(expiresAt - 1);
    expect((await scene.api(token, 'GET', '/endpoints')).status).toBe(200);
    scene.clock.set(expiresAt);
    expect(await scene.api(token, 'GET', '/endpoints')).toMatchObject({ status: 401, body: EXPIRED });
  });

  it('of an organization that is gone answers 404', async () => {
    const { t } = await scene.tenant();
    const consumer = await scene.consumer(t);
    const { token } = await scene.link({ ...t, orgId: 'org_gone' as typeof t.orgId }, consumer);
    expect(await scene.api(token, 'GET', '/session')).toMatchObject({
      status: 404,
      body: { error: 'not_found', message: 'the organization of this link is gone' },
    });
  });

  it('gives the portal scopes only: endpoints and deliveries, not event types or sends', async () => {
    const { t } = await scene.tenant();
    const { token } = await scene.link(t, await scene.consumer(t));
    expect((await scene.api(token, 'GET', '/event-types')).status).toBe(200);
    const forbidden = { error: 'forbidden', message: 'a portal link cannot do this' };
    expect(await scene.api(token, 'POST', '/event-types', { name: 'a.b' })).toMatchObject({ status: 403, body: forbidden });
    expect(await scene.api(token, 'POST', '/messages', { consumer: 'x', event_type: 'a.b', payload: {} })).toMatchObject({ status: 403, body: forbidden });
  });

  it("sees only its consumer's endpoints", async () => {
    const { t } = await scene.tenant();
    const mine = await scene.consumer(t);
    const theirs = await scene.consumer(t);
    const { token } = await scene.link(t, mine);
    const { token: theirToken } = await scene.link(t, theirs);
    const own = await scene.endpoint(token, mine);
    const other = await scene.endpoint(theirToken, theirs);
    expect((await scene.api(token, 'GET', '/endpoints')).body.items.map((e: { id: string }) => e.id)).toEqual([own.id]);
    expect((await scene.api(token, 'GET', `/endpoints/${other.id}`)).status).toBe(404);
    expect((await scene.api(token, 'POST', '/endpoints', { consumer_id: theirs, url: 'https://hooks.example.com/x' })).status).toBe(404);
  });
});

describe("a link's rate limit", () => {
  it("is 300 requests a minute for the link's consumer, apart from other consumers and the environment", async () => {
    const { t } = await scene.tenant();
    const { token } = await scene.link(t, await scene.consumer(t));
    const { token: neighbour } = await scene.link(t, await scene.consumer(t));
    // At the next minute's start: the 301 requests fall in one window.
    scene.clock.set(Math.ceil((scene.clock.now() + 1) / 60_000) * 60_000);
    for (let i = 1; i <= 299; i++) expect((await scene.api(token, 'GET', '/session')).status).toBe(200);
    const last = await scene.api(token, 'GET', '/session');
    expect(last.status).toBe(200);
    expect(last.headers.get('x-ratelimit-limit')).toBe('300');
    expect(last.headers.get('x-ratelimit-remaining')).toBe('0');
    const refused = await scene.api(token, 'GET', '/session');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect((await scene.api(neighbour, 'GET', '/session')).status).toBe(200);
    scene.clock.advance(60_000);
    expect((await scene.api(token, 'GET', '/session')).status).toBe(200);
  });
});
