import { InvalidError } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { claimRef, type DeliveryJob } from '../../src/ports/delivery-port.ts';
import type { Fixtures } from './fixtures.ts';
import { HOUR, LEASE_MS, MessageFixtures } from './message-fixtures.ts';

/**
 * Races every adapter must win: many calls at once, each of which reads and then writes.
 * SQLite serialises writers; MongoDB needs its transactions to conflict (a write both make),
 * so these are the tests that show it does. The SQLite suite also races separate processes
 * on one file (sqlite-store.test.ts).
 */
export function describeRaceContract(f: Fixtures): void {
  const m = new MessageFixtures(f);

  describe('races', () => {
    it('50 concurrent sends with one Idempotency-Key make one message', async () => {
      const { t } = await m.scene();
      const template = m.newMessage({ idempotencyKey: 'race-key' });
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          f.store.messages.create(t, { ...m.newMessage({ idempotencyKey: 'race-key' }), createdAt: template.createdAt + i }),
        ),
      );
      const ids = new Set(results.map((r) => r.message.id));
      expect(ids.size).toBe(1);
      expect(results.filter((r) => r.created)).toHaveLength(1);
      const [id] = [...ids];
      expect((await f.store.messages.list(t, { limit: 100, q: 'race-key' })).rows.map((row) => row.message.id)).toEqual([id]);
    });

    it('two deliveries of one message completing at once leave the message succeeded, not pending', async () => {
      const { t, consumer } = await m.scene();
      await m.hook(t, consumer);
      for (let round = 0; round < 5; round++) {
        const sent = await m.send(t);
        expect(sent.deliveryIds).toHaveLength(2);
        const now = f.clock.now();
        const jobs: DeliveryJob[] = await Promise.all(sent.deliveryIds.map((id) => m.claim(id, now)));
        await Promise.all(jobs.map((job) => f.store.deliveries.complete(claimRef(job), m.succeeded(job, now))));
        expect((await f.store.messages.get(t, sent.message.id))?.message.status).toBe('success');
      }
    });

    it('a success and a retry of one message at once leave it retrying', async () => {
      const { t, consumer } = await m.scene();
      await m.hook(t, consumer);
      const sent = await m.send(t);
      const now = f.clock.now();
      const [a, b] = await Promise.all(sent.deliveryIds.map((id) => m.claim(id, now)));
      await Promise.all([
        f.store.deliveries.complete(claimRef(a!), m.succeeded(a!, now)),
        f.store.deliveries.complete(claimRef(b!), m.failed(b!, now, now + HOUR)),
      ]);
      expect((await f.store.messages.get(t, sent.message.id))?.message.status).toBe('retrying');
    });

    it('20 concurrent claims of one delivery: exactly one wins', async () => {
      const { deliveryId } = await m.sceneWithDelivery();
      const now = f.clock.now();
      const claims = await Promise.all(Array.from({ length: 20 }, () => f.store.deliveries.claim(deliveryId, now, now + LEASE_MS)));
      expect(claims.filter((c) => c !== null)).toHaveLength(1);
    });

    it('30 concurrent endpoint creates for one consumer: exactly 20 are kept', async () => {
      const t = await f.tenant();
      const consumer = await f.consumer(t);
      const results = await Promise.allSettled(Array.from({ length: 30 }, () => f.store.endpoints.create(t, f.endpoint(consumer.id), f.secret('v1.race'), 20)));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(20);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(InvalidError);
      expect(await f.store.endpoints.list(t, { consumerId: consumer.id })).toHaveLength(20);
      expect((await f.store.consumers.get(t, consumer.id))?.endpointCount).toBe(20);
    });
  });
}
