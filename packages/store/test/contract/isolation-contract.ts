import { newEventType, NotFoundError, type Tenant } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import type { Fixtures } from './fixtures.ts';

/** Tenant isolation: another org, or the other environment of the same org, sees nothing. */
export function describeIsolationContract(f: Fixtures): void {
  describe('tenant isolation', () => {
    const others: Array<[string, (home: Tenant) => Promise<Tenant>]> = [
      ['the same org in the other environment', async (home) => ({ orgId: home.orgId, env: 'test' })],
      ['another org in the same environment', async () => f.tenant('live')],
      ['another org in the other environment', async () => f.tenant('test')],
    ];

    it.each(others)('%s cannot see, change or use the records', async (_label, otherOf) => {
      const home = await f.tenant('live');
      const other = await otherOf(home);
      const consumer = await f.consumer(home, 'shared-ext');
      const endpoint = await f.createEndpoint(home, consumer.id, {}, 'v1.home');
      await f.store.eventTypes.create(home, newEventType({ name: 'invoice.paid', description: null, archivedAt: null, createdAt: 1 }), 1_000);
      const now = f.clock.now();
      const { consumers, endpoints, eventTypes } = f.store;

      expect(await consumers.get(other, consumer.id)).toBeNull();
      expect(await consumers.getByExternalId(other, 'shared-ext')).toBeNull();
      expect(await consumers.list(other, { limit: 10 })).toEqual([]);
      expect(await endpoints.get(other, endpoint.id)).toBeNull();
      expect(await endpoints.list(other, {})).toEqual([]);
      expect(await endpoints.list(other, { consumerId: consumer.id })).toEqual([]);
      expect(await endpoints.secrets(other, endpoint.id, now)).toEqual([]);
      expect(await eventTypes.list(other)).toEqual([]);

      expect(await endpoints.update(other, endpoint.id, { url: 'https://evil.example/' })).toBeNull();
      expect(await endpoints.rotateSecret(other, endpoint.id, f.secret('v1.evil'), now, now, 3)).toBe(false);
      expect(await endpoints.delete(other, endpoint.id)).toBe(false);
      await expect(endpoints.create(other, f.endpoint(consumer.id), f.secret('v1.evil'), 20)).rejects.toBeInstanceOf(NotFoundError);

      expect(await endpoints.get(home, endpoint.id)).toEqual(endpoint);
      expect((await endpoints.secrets(home, endpoint.id, now + 86_400_000)).map((s) => s.sealed)).toEqual(['v1.home']);
      expect((await consumers.get(home, consumer.id))?.endpointCount).toBe(1);
    });

    it('allows the same external id and event type name in every tenant', async () => {
      const live = await f.tenant('live');
      const tenants: Tenant[] = [live, { orgId: live.orgId, env: 'test' }, await f.tenant('live')];
      const made = [];
      for (const t of tenants) {
        made.push(await f.consumer(t, 'same-ext'));
        await f.store.eventTypes.create(t, newEventType({ name: 'same.name', description: null, archivedAt: null, createdAt: 1 }), 1_000);
      }
      for (const [i, t] of tenants.entries()) {
        expect(await f.store.consumers.getByExternalId(t, 'same-ext')).toEqual(made[i]);
        expect((await f.store.eventTypes.list(t)).map((e) => e.name)).toEqual(['same.name']);
      }
      expect(new Set(made.map((c) => c.id)).size).toBe(3);
    });
  });
}
