import { ConflictError, newEventType, type EventType, type EventTypeSummary } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import type { Fixtures } from './fixtures.ts';

/** A list's view of `e`: no schema or examples, whether it has a schema. */
function summary(e: EventType): EventTypeSummary {
  const { schema, examples: _examples, ...rest } = e;
  return { ...rest, hasSchema: schema !== null };
}

const SCHEMA = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };

/** Contract of EventTypeRepo. */
export function describeEventTypeContract(f: Fixtures): void {
  describe('event types', () => {
    /** An update of the event type as it is now (its current revision). */
    const update = async (
      t: Parameters<typeof f.store.eventTypes.update>[0],
      name: string,
      patch: Parameters<typeof f.store.eventTypes.update>[2],
      at: number,
    ) => f.store.eventTypes.update(t, name, patch, at, (await f.store.eventTypes.get(t, name))?.rev ?? 0);
    const eventType = (name: string, overrides: Partial<EventType> = {}): EventType =>
      newEventType({ name, description: `${name} happened`, createdAt: f.clock.now(), ...overrides });

    it('creates event types and lists them by name, without schemas and examples', async () => {
      const t = await f.tenant();
      const paid = eventType('invoice.paid', { schema: SCHEMA, examples: [{ id: 'in_1' }], validation: 'enforce' });
      const archived = eventType('user.created', { description: null, archivedAt: f.clock.now() + 1, deprecated: true });
      const shipped = eventType('order.shipped');
      for (const e of [archived, paid, shipped]) expect(await f.store.eventTypes.create(t, e, 1_000)).toEqual(e);
      expect(await f.store.eventTypes.list(t)).toEqual([summary(paid), summary(shipped), summary(archived)]);
      expect(await f.store.eventTypes.get(t, 'invoice.paid')).toEqual(paid);
      expect(await f.store.eventTypes.get(t, 'no.such')).toBeNull();
    });

    it('rejects a duplicate name with ConflictError', async () => {
      const t = await f.tenant();
      const first = eventType('user.deleted');
      await f.store.eventTypes.create(t, first, 1_000);
      await expect(f.store.eventTypes.create(t, eventType('user.deleted', { description: 'again' }), 1_000)).rejects.toBeInstanceOf(ConflictError);
      expect(await f.store.eventTypes.list(t)).toEqual([summary(first)]);
    });

    it('refuses a create past the environment’s cap (InvalidError), and takes one below it', async () => {
      const t = await f.tenant();
      await f.store.eventTypes.create(t, eventType('cap.one'), 2);
      await f.store.eventTypes.create(t, eventType('cap.two'), 2);
      await expect(f.store.eventTypes.create(t, eventType('cap.three'), 2)).rejects.toThrow('this environment already has 2 event types; the limit is 2');
      expect((await f.store.eventTypes.list(t)).map((e) => e.name)).toEqual(['cap.one', 'cap.two']);
    });

    it('lists nothing for a tenant without event types', async () => {
      expect(await f.store.eventTypes.list(await f.tenant())).toEqual([]);
    });

    it('a PATCH that changes the schema makes a new version and keeps the old one; other changes keep the version', async () => {
      const t = await f.tenant();
      const created = await f.store.eventTypes.create(t, eventType('order.paid', { schema: SCHEMA }), 1_000);
      const t1 = created.createdAt + 1_000;
      const described = await update(t, 'order.paid', { description: 'paid', deprecated: true, validation: 'enforce' }, t1);
      expect(described).toEqual({ ...created, description: 'paid', deprecated: true, validation: 'enforce', updatedAt: t1, rev: 1 });
      // The same schema again is no change of version.
      expect((await update(t, 'order.paid', { schema: { ...SCHEMA } }, t1 + 1))?.version).toBe(1);
      expect(await f.store.eventTypes.versions(t, 'order.paid')).toEqual([]);
      const v2 = { ...SCHEMA, required: ['id', 'amount'] };
      const second = await update(t, 'order.paid', { schema: v2, examples: [{ id: 'o', amount: 1 }] }, t1 + 2);
      expect(second).toMatchObject({ schema: v2, examples: [{ id: 'o', amount: 1 }], version: 2, updatedAt: t1 + 2, description: 'paid' });
      await update(t, 'order.paid', { schema: null }, t1 + 3);
      expect((await f.store.eventTypes.get(t, 'order.paid'))?.version).toBe(3);
      // Each version from when it became current (not when the event type last changed) until it was replaced.
      expect(await f.store.eventTypes.versions(t, 'order.paid')).toEqual([
        { version: 2, schema: v2, createdAt: t1 + 2, retiredAt: t1 + 3 },
        { version: 1, schema: SCHEMA, createdAt: created.createdAt, retiredAt: t1 + 2 },
      ]);
      // A PATCH checked against a state another PATCH has since changed is refused, not applied to the new state.
      const stale = (await f.store.eventTypes.get(t, 'order.paid'))!.rev - 1;
      await expect(f.store.eventTypes.update(t, 'order.paid', { validation: 'none' }, t1 + 4, stale)).rejects.toBeInstanceOf(ConflictError);
      expect((await f.store.eventTypes.get(t, 'order.paid'))?.validation).toBe('enforce');
      expect(await f.store.eventTypes.update(t, 'no.such', { description: 'x' }, t1, 0)).toBeNull();
      // Another tenant's event type of the same name has none of it.
      const other = await f.tenant();
      await f.store.eventTypes.create(other, eventType('order.paid'), 1_000);
      expect(await f.store.eventTypes.versions(other, 'order.paid')).toEqual([]);
    });

    it('keeps the newest 100 earlier versions: the 102nd schema change removes version 1, then 2; the current one is never among them', async () => {
      const t = await f.tenant();
      await f.store.eventTypes.create(t, eventType('order.churn', { schema: SCHEMA }), 1_000);
      let at = 2_000;
      const change = (n: number) => update(t, 'order.churn', { schema: { ...SCHEMA, description: `v${n}` } }, at++);
      for (let n = 2; n <= 101; n++) await change(n);
      // Version 101 is current; 1…100 are kept: exactly the cap.
      const full = await f.store.eventTypes.versions(t, 'order.churn');
      expect(full.map((v) => v.version)).toEqual(Array.from({ length: 100 }, (_, i) => 100 - i));
      await change(102);
      expect((await f.store.eventTypes.versions(t, 'order.churn')).map((v) => v.version)).toEqual(Array.from({ length: 100 }, (_, i) => 101 - i));
      await change(103);
      const kept = await f.store.eventTypes.versions(t, 'order.churn');
      expect([kept[0]?.version, kept.at(-1)?.version, kept.length]).toEqual([102, 3, 100]);
      expect(kept[0]?.schema).toEqual({ ...SCHEMA, description: 'v102' });
    });

    it('lists the tenant’s enforcing event types (name and version) by name, no other', async () => {
      const t = await f.tenant();
      await f.store.eventTypes.create(t, eventType('b.enforced', { schema: SCHEMA, validation: 'enforce' }), 1_000);
      await f.store.eventTypes.create(t, eventType('a.enforced', { schema: SCHEMA, validation: 'enforce' }), 1_000);
      await f.store.eventTypes.create(t, eventType('c.loose', { schema: SCHEMA }), 1_000);
      const other = await f.tenant();
      await f.store.eventTypes.create(other, eventType('d.enforced', { schema: SCHEMA, validation: 'enforce' }), 1_000);
      await update(t, 'b.enforced', { schema: { type: 'object' } }, f.clock.now() + 1);
      expect(await f.store.eventTypes.enforcing(t)).toEqual([
        { name: 'a.enforced', version: 1 },
        { name: 'b.enforced', version: 2 },
      ]);
      await update(t, 'a.enforced', { validation: 'none' }, f.clock.now() + 2);
      expect(await f.store.eventTypes.enforcing(t)).toEqual([{ name: 'b.enforced', version: 2 }]);
    });

    it('pages the event types with their schemas by name after a cursor (the catalog export)', async () => {
      const t = await f.tenant();
      const made = [];
      for (const name of ['c.one', 'a.one', 'b.one']) made.push(await f.store.eventTypes.create(t, eventType(name, { schema: SCHEMA }), 1_000));
      const first = await f.store.eventTypes.page(t, null, 2);
      expect(first.map((e) => e.name)).toEqual(['a.one', 'b.one']);
      expect(first[0]?.schema).toEqual(SCHEMA);
      expect((await f.store.eventTypes.page(t, 'b.one', 2)).map((e) => e.name)).toEqual(['c.one']);
      expect(await f.store.eventTypes.page(t, 'c.one', 2)).toEqual([]);
    });
  });
}
