import { ConflictError, InvalidError, newId, type AttemptId, type Delivery, type DeliveryId, type Tenant } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { claimRef } from '../../src/ports/delivery-port.ts';
import type { Fixtures } from './fixtures.ts';
import { MessageFixtures } from './message-fixtures.ts';

/**
 * Contract of a delivery's bounded history: reads show its newest 20 attempts and page
 * the rest; a manual retry is refused once it has 100 attempts. The numbers are the spec's
 * decisions written out (docs/semantics.md), not the constants.
 */
export function describeAttemptHistoryContract(f: Fixtures): void {
  const m = new MessageFixtures(f);

  /** A delivery with `n` attempts recorded one second apart (by completions of a claim no longer current: recorded, not applied). */
  async function withAttempts(n: number): Promise<{ t: Tenant; id: DeliveryId; delivery: Delivery; start: number }> {
    const { t, deliveryId } = await m.sceneWithDelivery();
    const job = await m.claim(deliveryId);
    const delivery = job.delivery;
    const start = f.clock.now();
    const stale = { ...claimRef(job), leaseToken: -1 };
    for (let i = 0; i < n; i++) await f.store.deliveries.complete(stale, m.failed(job, start + i * 1000, start + 3_600_000));
    await f.store.deliveries.release(claimRef(job), start);
    return { t, id: deliveryId, delivery, start };
  }

  describe('attempt history', () => {
    it('shows the newest 20 attempts, oldest of them first, in a message and a delivery, and says there are older ones', async () => {
      const { t, id, delivery, start } = await withAttempts(25);
      const detail = await f.store.messages.get(t, delivery.messageId);
      const entry = detail?.deliveries.find((d) => d.delivery.id === id);
      expect(entry?.attempts.map((a) => a.at)).toEqual(Array.from({ length: 20 }, (_, i) => start + (i + 5) * 1000));
      expect(entry?.olderAttempts).toBe(true);
      const view = await f.store.deliveries.show(t, id);
      expect(view?.attempts).toEqual(entry?.attempts);
      expect(view?.olderAttempts).toBe(true);
      expect(view?.delivery.attemptCount).toBe(25);
      expect(view?.consumerId).toBe(detail?.consumer.id);
    });

    it('has no older attempts at exactly 20', async () => {
      const { t, id, delivery } = await withAttempts(20);
      expect((await f.store.deliveries.show(t, id))?.attempts).toHaveLength(20);
      expect((await f.store.deliveries.show(t, id))?.olderAttempts).toBe(false);
      expect((await f.store.messages.get(t, delivery.messageId))?.deliveries[0]?.olderAttempts).toBe(false);
    });

    it('pages every attempt newest first, each once, from a cursor of the same delivery only', async () => {
      const { t, id, start } = await withAttempts(25);
      const first = await f.store.deliveries.attempts(t, id, { limit: 10 });
      expect(first?.attempts.map((a) => a.at)).toEqual(Array.from({ length: 10 }, (_, i) => start + (24 - i) * 1000));
      const second = await f.store.deliveries.attempts(t, id, { beforeId: first?.attempts.at(-1)?.id as AttemptId, limit: 20 });
      expect(second?.attempts.map((a) => a.at)).toEqual(Array.from({ length: 15 }, (_, i) => start + (14 - i) * 1000));
      const other = await withAttempts(1);
      await expect(
        f.store.deliveries.attempts(t, id, { beforeId: (await f.store.deliveries.show(other.t, other.id))?.attempts[0]?.id as AttemptId, limit: 5 }),
      ).rejects.toThrow(InvalidError);
      await expect(f.store.deliveries.attempts(t, id, { beforeId: newId('attempt', f.clock), limit: 5 })).rejects.toThrow(InvalidError);
      expect(await f.store.deliveries.attempts(other.t, id, { limit: 5 })).toBeNull();
      expect(await f.store.deliveries.show(other.t, id)).toBeNull();
    });

    it('accepts a manual retry at 99 attempts and refuses one at 100 with 409 conflict, changing nothing', async () => {
      const at99 = await withAttempts(99);
      expect((await f.store.deliveries.retryNow(at99.t, at99.id, f.clock.now()))?.status).toBe('retrying');
      const at100 = await withAttempts(100);
      const before = await m.delivery(at100.t, at100.id);
      const refused = f.store.deliveries.retryNow(at100.t, at100.id, f.clock.now());
      await expect(refused).rejects.toThrow(ConflictError);
      await expect(refused).rejects.toThrow(`delivery ${at100.id} has 100 attempts`);
      expect(await m.delivery(at100.t, at100.id)).toEqual(before);
    });

    it('counts a send in flight: at 99 attempts and leased, a manual retry is refused', async () => {
      const { t, id } = await withAttempts(99);
      await m.claim(id);
      await expect(f.store.deliveries.retryNow(t, id, f.clock.now())).rejects.toThrow(`delivery ${id} has 100 attempts`);
    });
  });
}
