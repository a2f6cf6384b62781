import { ConflictError, type EventType } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import type { Fixtures } from './fixtures.ts';

/** Contract of EventTypeRepo. */
export function describeEventTypeContract(f: Fixtures): void {
  describe('event types', () => {
    const eventType = (name: string, overrides: Partial<EventType> = {}): EventType => ({
      name,
      description: `${name} happened`,
      archivedAt: null,
      createdAt: f.clock.now(),
      ...overrides,
    });

    it('creates event types and lists them by name', async () => {
      const t = await f.tenant();
      const paid = eventType('invoice.paid');
      const archived = eventType('user.created', { description: null, archivedAt: f.clock.now() + 1 });
      const shipped = eventType('order.shipped');
      for (const e of [archived, paid, shipped]) expect(await f.store.eventTypes.create(t, e)).toEqual(e);
      expect(await f.store.eventTypes.list(t)).toEqual([paid, shipped, archived]);
    });

    it('rejects a duplicate name with ConflictError', async () => {
      const t = await f.tenant();
      const first = eventType('user.deleted');
      await f.store.eventTypes.create(t, first);
      await expect(f.store.eventTypes.create(t, eventType('user.deleted', { description: 'again' }))).rejects.toBeInstanceOf(ConflictError);
      expect(await f.store.eventTypes.list(t)).toEqual([first]);
    });

    it('lists nothing for a tenant without event types', async () => {
      expect(await f.store.eventTypes.list(await f.tenant())).toEqual([]);
    });
  });
}
