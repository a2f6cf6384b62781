import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';
import { SCOPES, type Scope } from '@wirehook/core';

let gw: Harness;
let owner: TestTenant;

beforeAll(async () => {
  gw = await startWirehook();
  owner = await gw.tenant();
});
afterAll(() => gw.close());

const expectUnauthorized = (res: { status: number; body: any }) => {
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ error: 'unauthorized', message: expect.any(String) });
};

describe('authentication', () => {
  it('refuses a missing key', async () => {
    expectUnauthorized(await gw.anonymous.get('/v1/consumers'));
  });

  it('refuses a malformed header, a foreign prefix and an unknown key', async () => {
    expectUnauthorized(await gw.anonymous.request('GET', '/v1/consumers', undefined, { authorization: owner.key }));
    expectUnauthorized(await gw.anonymous.request('GET', '/v1/consumers', undefined, { authorization: `Basic ${owner.key}` }));
    expectUnauthorized(await gw.anonymous.as('pk_live_abc').get('/v1/consumers'));
    expectUnauthorized(await gw.anonymous.as(`${owner.key}x`).get('/v1/consumers'));
    expectUnauthorized(await gw.anonymous.as('sk_live_').get('/v1/event-types'));
  });

  it('refuses a revoked key at once, and only that key', async () => {
    const other = await gw.key(owner.orgId);
    expect((await other.api.get('/v1/consumers')).status).toBe(200);
    const revoked = await gw.admin('key', 'revoke', '--id', other.keyId);
    expect(revoked).toEqual({ id: other.keyId, revoked_at: expect.any(Number) });
    expectUnauthorized(await other.api.get('/v1/consumers'));
    expect((await owner.api.get('/v1/consumers')).status).toBe(200);
  });

  it('refuses an expired key', async () => {
    const expiring = await gw.key(owner.orgId, { expiresInDays: 1 });
    expect((await expiring.api.get('/v1/event-types')).status).toBe(200);
    gw.clock.advance(24 * 60 * 60 * 1000);
    try {
      expectUnauthorized(await expiring.api.get('/v1/event-types'));
    } finally {
      gw.clock.advance(-24 * 60 * 60 * 1000);
    }
  });

  it('never stores the key in clear', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const { join } = await import('node:path');
    const bytes = readdirSync(gw.dataDir)
      .map((f) => readFileSync(join(gw.dataDir, f)).toString('latin1'))
      .join('');
    expect(bytes.length).toBeGreaterThan(0);
    expect(bytes).not.toContain(owner.key);
    expect(bytes).not.toContain(owner.key.slice(8));
  });
});

describe('scopes: the spec’s endpoint table, every route against each of the five scopes', () => {
  let n = 0;
  /** A consumer with one active endpoint, and a message delivered (or not) to it. */
  const scene = async () => {
    const externalId = `scopes-${++n}`;
    const consumer = (await owner.api.post('/v1/consumers', { external_id: externalId })).body.id as string;
    const endpoint = (await owner.api.post('/v1/endpoints', { consumer_id: consumer, url: `https://localhost:8443/scopes-${n}` })).body.id as string;
    const sent = await owner.api.post('/v1/messages', { consumer: externalId, event_type: 'scopes.test', payload: { n } });
    const message = sent.body.id as string;
    const delivery = (await owner.api.get(`/v1/messages/${message}`)).body.deliveries[0].id as string;
    return { externalId, consumer, endpoint, message, delivery };
  };
  type Scene = Awaited<ReturnType<typeof scene>>;
  const recoveryOf = async (s: Scene) => (await owner.api.post(`/v1/endpoints/${s.endpoint}/recover`, { since: gw.clock.now() - 60_000 })).body.id as string;

  // The spec's table, in its order: method, path, scope (null: any key of the environment), the
  // 2xx of a key holding it. Each call gets a fresh scene, so a delete or a rotation never
  // meets what another call left.
  const table: { method: string; path: (s: Scene) => string | Promise<string>; scope: Scope | null; ok: number; body?: (s: Scene) => unknown }[] = [
    { method: 'POST', path: () => '/v1/messages', scope: 'messages:send', ok: 202, body: (s) => ({ consumer: s.externalId, event_type: 'a.b', payload: {} }) },
    { method: 'GET', path: () => '/v1/messages', scope: 'logs:read', ok: 200 },
    { method: 'GET', path: (s) => `/v1/messages/${s.message}`, scope: 'logs:read', ok: 200 },
    { method: 'POST', path: (s) => `/v1/deliveries/${s.delivery}/retry`, scope: 'messages:retry', ok: 202 },
    { method: 'GET', path: () => '/v1/consumers', scope: 'logs:read', ok: 200 },
    { method: 'POST', path: () => '/v1/consumers', scope: 'consumers:write', ok: 201, body: () => ({ external_id: `scopes-new-${++n}` }) },
    { method: 'POST', path: (s) => `/v1/consumers/${s.consumer}/portal`, scope: 'endpoints:write', ok: 201, body: () => ({}) },
    { method: 'GET', path: () => '/v1/endpoints', scope: 'logs:read', ok: 200 },
    {
      method: 'POST',
      path: () => '/v1/endpoints',
      scope: 'endpoints:write',
      ok: 201,
      body: (s) => ({ consumer_id: s.consumer, url: 'https://localhost:8443/more' }),
    },
    { method: 'GET', path: (s) => `/v1/endpoints/${s.endpoint}`, scope: 'logs:read', ok: 200 },
    { method: 'PATCH', path: (s) => `/v1/endpoints/${s.endpoint}`, scope: 'endpoints:write', ok: 200, body: () => ({ description: 'scoped' }) },
    { method: 'DELETE', path: (s) => `/v1/endpoints/${s.endpoint}`, scope: 'endpoints:write', ok: 204 },
    { method: 'POST', path: (s) => `/v1/endpoints/${s.endpoint}/rotate-secret`, scope: 'endpoints:write', ok: 200 },
    { method: 'POST', path: (s) => `/v1/endpoints/${s.endpoint}/recover`, scope: 'messages:retry', ok: 202, body: () => ({ since: gw.clock.now() - 60_000 }) },
    { method: 'GET', path: async (s) => `/v1/endpoints/${s.endpoint}/recoveries/${await recoveryOf(s)}`, scope: 'logs:read', ok: 200 },
    { method: 'GET', path: () => '/v1/event-types', scope: null, ok: 200 },
    { method: 'POST', path: () => '/v1/event-types', scope: 'endpoints:write', ok: 201, body: () => ({ name: `scopes.type-${++n}` }) },
  ];
  const keys = new Map<Scope, TestTenant>();
  beforeAll(async () => {
    for (const scope of SCOPES) keys.set(scope, await gw.key(owner.orgId, { scopes: [scope] }));
  });

  it('the table is the spec’s 17 routes and the five scopes', () => {
    expect(table).toHaveLength(17);
    expect([...SCOPES].sort()).toEqual(['consumers:write', 'endpoints:write', 'logs:read', 'messages:retry', 'messages:send']);
  });

  const ROUTES = [
    '/v1/messages',
    '/v1/messages',
    '/v1/messages/{id}',
    '/v1/deliveries/{id}/retry',
    '/v1/consumers',
    '/v1/consumers',
    '/v1/consumers/{id}/portal',
    '/v1/endpoints',
    '/v1/endpoints',
    '/v1/endpoints/{id}',
    '/v1/endpoints/{id}',
    '/v1/endpoints/{id}',
    '/v1/endpoints/{id}/rotate-secret',
    '/v1/endpoints/{id}/recover',
    '/v1/endpoints/{id}/recoveries/{recovery_id}',
    '/v1/event-types',
    '/v1/event-types',
  ];
  const cases = table.map((row, i) => ({ ...row, route: ROUTES[i], needs: row.scope ?? 'no scope' }));
  it.each(cases)('$method $route needs $needs: 2xx with it, 403 forbidden with each other scope', async (row) => {
    for (const scope of SCOPES) {
      const s = await scene();
      const path = await row.path(s);
      const res = await keys.get(scope)!.api.request(row.method, path, row.body?.(s));
      if (row.scope === null || scope === row.scope) {
        expect(res.status, `${row.method} ${path} with ${scope}`).toBe(row.ok);
      } else {
        expect(res.status, `${row.method} ${path} with ${scope}`).toBe(403);
        expect(res.body).toEqual({ error: 'forbidden', message: `this API key lacks the scope ${row.scope}` });
      }
    }
  });
});

describe('isolation', () => {
  it('a key sees only its own org and environment; anything else is 404', async () => {
    const consumer = (await owner.api.post('/v1/consumers', { external_id: 'iso-1' })).body;
    const endpoint = (await owner.api.post('/v1/endpoints', { consumer_id: consumer.id, url: 'https://localhost:8443/iso' })).body;
    expect(endpoint.id).toMatch(/^ep_/);
    await owner.api.post('/v1/event-types', { name: 'iso.created' });

    const testEnv = await gw.key(owner.orgId, { env: 'test' });
    const otherOrg = await gw.tenant();
    for (const outsider of [testEnv, otherOrg]) {
      expect((await outsider.api.get(`/v1/endpoints/${endpoint.id}`)).status).toBe(404);
      expect((await outsider.api.patch(`/v1/endpoints/${endpoint.id}`, { description: 'mine' })).status).toBe(404);
      expect((await outsider.api.post(`/v1/endpoints/${endpoint.id}/rotate-secret`)).status).toBe(404);
      expect((await outsider.api.delete(`/v1/endpoints/${endpoint.id}`)).status).toBe(404);
      expect((await outsider.api.post(`/v1/consumers/${consumer.id}/portal`, {})).status).toBe(404);
      const created = await outsider.api.post('/v1/endpoints', { consumer_id: consumer.id, url: 'https://localhost/x' });
      expect(created.status).toBe(404);
      expect((await outsider.api.get('/v1/consumers')).body.items).toEqual([]);
      expect((await outsider.api.get('/v1/endpoints')).body.items).toEqual([]);
      expect((await outsider.api.get(`/v1/endpoints?consumer_id=${consumer.id}`)).body.items).toEqual([]);
      expect((await outsider.api.get('/v1/event-types')).body.items).toEqual([]);
      // The same external id and event type name are free in another tenant.
      expect((await outsider.api.post('/v1/consumers', { external_id: 'iso-1' })).status).toBe(201);
      expect((await outsider.api.post('/v1/event-types', { name: 'iso.created' })).status).toBe(201);
    }
    expect((await owner.api.get(`/v1/endpoints/${endpoint.id}`)).body.description).toBeNull();
  });
});
