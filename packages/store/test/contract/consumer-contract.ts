import { ConflictError, newId, type Consumer, type ConsumerId } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import type { Fixtures } from './fixtures.ts';

/** Contract of ConsumerRepo. */
export function describeConsumerContract(f: Fixtures): void {
  describe('consumers', () => {
    it('creates a consumer with no endpoints and finds it by id and by external id', async () => {
      const t = await f.tenant();
      const created = await f.consumer(t, 'cust-42', 'Forty-two');
      expect(created).toMatchObject({ externalId: 'cust-42', name: 'Forty-two', endpointCount: 0 });
      expect(await f.store.consumers.get(t, created.id)).toEqual(created);
      expect(await f.store.consumers.getByExternalId(t, 'cust-42')).toEqual(created);
    });

    it('keeps a null name', async () => {
      const t = await f.tenant();
      const created = await f.consumer(t, 'nameless', null);
      expect((await f.store.consumers.get(t, created.id))?.name).toBeNull();
    });

    it('returns null for an unknown id or external id', async () => {
      const t = await f.tenant();
      await f.consumer(t, 'known');
      expect(await f.store.consumers.get(t, newId('consumer', f.clock))).toBeNull();
      expect(await f.store.consumers.getByExternalId(t, 'unknown')).toBeNull();
    });

    it('rejects a second consumer with the same external id with ConflictError', async () => {
      const t = await f.tenant();
      const first = await f.consumer(t, 'dup');
      const second = f.consumer(t, 'dup', 'Another');
      await expect(second).rejects.toBeInstanceOf(ConflictError);
      await expect(second).rejects.toThrow('a consumer with external_id "dup" already exists');
      expect(await f.store.consumers.getByExternalId(t, 'dup')).toEqual(first);
      expect(await f.store.consumers.list(t, { limit: 10 })).toEqual([first]);
    });

    it('counts endpoints in get, getByExternalId and list', async () => {
      const t = await f.tenant();
      const counted = await f.consumer(t, 'counted');
      const other = await f.consumer(t, 'other');
      const first = await f.createEndpoint(t, counted.id);
      await f.createEndpoint(t, counted.id);
      expect((await f.store.consumers.get(t, counted.id))?.endpointCount).toBe(2);
      expect((await f.store.consumers.getByExternalId(t, 'counted'))?.endpointCount).toBe(2);
      const listed = await f.store.consumers.list(t, { limit: 10 });
      expect(listed.map((c) => [c.id, c.endpointCount])).toEqual([
        [other.id, 0],
        [counted.id, 2],
      ]);
      await f.store.endpoints.delete(t, first.id);
      expect((await f.store.consumers.get(t, counted.id))?.endpointCount).toBe(1);
    });

    describe('list', () => {
      const fiveConsumers = async () => {
        const t = await f.tenant();
        const made: Consumer[] = [];
        for (let i = 1; i <= 5; i++) made.push(await f.consumer(t, `c${i}`));
        return { t, newestFirst: made.reverse() };
      };
      const ids = (items: Consumer[]): ConsumerId[] => items.map((c) => c.id);

      it('lists newest first', async () => {
        const { t, newestFirst } = await fiveConsumers();
        const listed = await f.store.consumers.list(t, { limit: 10 });
        expect(listed).toEqual(newestFirst);
        expect(ids(listed)).toEqual(ids(listed).toSorted().reverse());
      });

      it('returns at most limit items and pages on with afterId', async () => {
        const { t, newestFirst } = await fiveConsumers();
        const page1 = await f.store.consumers.list(t, { limit: 2 });
        const page2 = await f.store.consumers.list(t, { limit: 2, afterId: page1.at(-1)?.id });
        const page3 = await f.store.consumers.list(t, { limit: 2, afterId: page2.at(-1)?.id });
        const page4 = await f.store.consumers.list(t, { limit: 2, afterId: page3.at(-1)?.id });
        expect(ids(page1)).toEqual(ids(newestFirst.slice(0, 2)));
        expect(ids(page2)).toEqual(ids(newestFirst.slice(2, 4)));
        expect(ids(page3)).toEqual(ids(newestFirst.slice(4)));
        expect(page4).toEqual([]);
      });

      it('treats afterId as a position, not as a record that must exist', async () => {
        const { t, newestFirst } = await fiveConsumers();
        const later = newId('consumer', f.clock);
        expect(ids(await f.store.consumers.list(t, { limit: 10, afterId: later }))).toEqual(ids(newestFirst));
        const middle = newestFirst[2]?.id;
        expect(ids(await f.store.consumers.list(t, { limit: 10, afterId: middle }))).toEqual(ids(newestFirst.slice(3)));
      });
    });
  });
}
