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

describe('scopes', () => {
  const routes: { method: string; path: string; scope: Scope; body?: unknown }[] = [
    { method: 'GET', path: '/v1/consumers', scope: 'logs:read' },
    { method: 'POST', path: '/v1/consumers', scope: 'consumers:write', body: { external_id: 'x' } },
    { method: 'POST', path: '/v1/consumers/con_01KAAAAAAAAAAAAAAAAAAAAAAA/portal', scope: 'endpoints:write', body: {} },
    { method: 'GET', path: '/v1/endpoints', scope: 'logs:read' },
    { method: 'POST', path: '/v1/endpoints', scope: 'endpoints:write', body: {} },
    { method: 'GET', path: '/v1/endpoints/ep_x', scope: 'logs:read' },
    { method: 'PATCH', path: '/v1/endpoints/ep_x', scope: 'endpoints:write', body: {} },
    { method: 'DELETE', path: '/v1/endpoints/ep_x', scope: 'endpoints:write' },
    { method: 'POST', path: '/v1/endpoints/ep_x/rotate-secret', scope: 'endpoints:write' },
    { method: 'POST', path: '/v1/event-types', scope: 'endpoints:write', body: { name: 'a' } },
  ];

  it.each(routes)('$method $path needs $scope (403 without it)', async ({ method, path, scope, body }) => {
    const without = await gw.key(owner.orgId, { scopes: SCOPES.filter((s) => s !== scope) });
    const res = await without.api.request(method, path, body);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'forbidden', message: `this API key lacks the scope ${scope}` });
    const withIt = await gw.key(owner.orgId, { scopes: [scope] });
    expect((await withIt.api.request(method, path, body)).status).not.toBe(403);
  });

  it('GET /v1/event-types needs no scope', async () => {
    const readOnly = await gw.key(owner.orgId, { scopes: ['messages:send'] });
    const res = await readOnly.api.get('/v1/event-types');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: expect.any(Array) });
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
