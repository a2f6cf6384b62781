import { newId, type ApiKey, type Org } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import type { Fixtures } from './fixtures.ts';

/** Contract of OrgRepo and ApiKeyRepo. */
export function describeOrgAndKeyContract(f: Fixtures): void {
  describe('orgs', () => {
    it('creates an org and gets it back', async () => {
      const org: Org = { id: newId('org', f.clock), name: 'Globex', plan: 'starter', ownerEmail: null, createdAt: f.clock.now() };
      expect(await f.store.orgs.create(org)).toEqual(org);
      expect(await f.store.orgs.get(org.id)).toEqual(org);
    });

    it('returns null for an unknown org', async () => {
      expect(await f.store.orgs.get(newId('org', f.clock))).toBeNull();
    });

    it('setPlan changes only the plan, and it stays changed', async () => {
      const org = await f.org('free');
      expect(await f.store.orgs.setPlan(org.id, 'pro')).toEqual({ ...org, plan: 'pro' });
      expect(await f.store.orgs.get(org.id)).toEqual({ ...org, plan: 'pro' });
    });

    it('setPlan of an unknown org is null and creates nothing', async () => {
      const id = newId('org', f.clock);
      expect(await f.store.orgs.setPlan(id, 'pro')).toBeNull();
      expect(await f.store.orgs.get(id)).toBeNull();
    });
  });

  describe('api keys', () => {
    const makeKey = (org: Org, overrides: Partial<ApiKey> = {}): ApiKey => ({
      id: newId('key', f.clock),
      orgId: org.id,
      env: 'test',
      scopes: ['messages:send', 'logs:read'],
      createdAt: f.clock.now(),
      revokedAt: null,
      expiresAt: f.clock.now() + 86_400_000,
      ...overrides,
    });

    it('findByHash returns the key with its org', async () => {
      const org = await f.org('business');
      const key = makeKey(org);
      expect(await f.store.apiKeys.create(key, `hash-a-${key.id}`)).toEqual(key);
      expect(await f.store.apiKeys.findByHash(`hash-a-${key.id}`)).toEqual({ key, org });
    });

    it('findByHash tells keys apart by hash and returns null for an unknown one', async () => {
      const org = await f.org();
      const live = makeKey(org, { env: 'live', expiresAt: null, scopes: ['consumers:write'] });
      const test = makeKey(org);
      await f.store.apiKeys.create(live, `hash-live-${live.id}`);
      await f.store.apiKeys.create(test, `hash-test-${test.id}`);
      expect((await f.store.apiKeys.findByHash(`hash-live-${live.id}`))?.key).toEqual(live);
      expect((await f.store.apiKeys.findByHash(`hash-test-${test.id}`))?.key).toEqual(test);
      expect(await f.store.apiKeys.findByHash(`hash-unknown-${live.id}`)).toBeNull();
    });

    it('findByHash shows the org as it is now', async () => {
      const org = await f.org('free');
      const key = makeKey(org);
      await f.store.apiKeys.create(key, `hash-plan-${key.id}`);
      await f.store.orgs.setPlan(org.id, 'starter');
      expect((await f.store.apiKeys.findByHash(`hash-plan-${key.id}`))?.org.plan).toBe('starter');
    });

    it('revoke sets revokedAt and keeps the first revocation time', async () => {
      const org = await f.org();
      const key = makeKey(org);
      await f.store.apiKeys.create(key, `hash-revoke-${key.id}`);
      const first = f.clock.now() + 5_000;
      expect(await f.store.apiKeys.revoke(key.id, first)).toEqual({ ...key, revokedAt: first });
      expect(await f.store.apiKeys.revoke(key.id, first + 60_000)).toEqual({ ...key, revokedAt: first });
      expect((await f.store.apiKeys.findByHash(`hash-revoke-${key.id}`))?.key.revokedAt).toBe(first);
    });

    it('revoke of an unknown key is null', async () => {
      expect(await f.store.apiKeys.revoke(newId('key', f.clock), f.clock.now())).toBeNull();
    });
  });
}
