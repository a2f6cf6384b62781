import { claimRef } from '../../src/ports/delivery-port.ts';
import type { Tenant } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import type { Fixtures } from './fixtures.ts';
import { HOUR, MessageFixtures } from './message-fixtures.ts';

/** Tenant isolation of messages and deliveries: another org or environment sees and changes nothing. */
export function describeMessageIsolationContract(f: Fixtures): void {
  const m = new MessageFixtures(f);

  describe('tenant isolation: messages and deliveries', () => {
    const others: Array<[string, (home: Tenant) => Promise<Tenant>]> = [
      ['the same org in the other environment', async (home) => ({ orgId: home.orgId, env: 'test' })],
      ['another org in the same environment', async () => f.tenant('live')],
      ['another org in the other environment', async () => f.tenant('test')],
    ];

    it.each(others)('%s cannot see, change or reach them', async (_label, otherOf) => {
      const { t: home, endpoint } = await m.scene();
      const sent = await m.send(home, { idempotencyKey: 'shared-key' });
      const id = m.only(sent);
      const now = f.clock.now();
      const job = await m.claim(id, now);
      await f.store.deliveries.complete(claimRef(job), m.failed(job, now, now + HOUR));
      const before = await f.store.messages.get(home, sent.message.id);
      const other = await otherOf(home);
      const { messages, deliveries } = f.store;

      expect(await messages.get(other, sent.message.id)).toBeNull();
      expect((await messages.list(other, { limit: 50 })).rows).toEqual([]);
      expect((await messages.list(other, { limit: 50, q: sent.message.id })).rows).toEqual([]);
      expect(await deliveries.get(other, id)).toBeNull();
      expect(await deliveries.retryNow(other, id, now)).toBeNull();
      expect(await deliveries.releaseHeld(other, endpoint.id, 0, now)).toBe(0);
      expect(await deliveries.retryingCount(other, endpoint.id)).toBe(0);
      expect(await deliveries.recentAttempts(other, endpoint.id, 10)).toEqual([]);
      expect(await f.store.endpoints.delete(other, endpoint.id)).toBe(false);
      expect((await deliveries.get(home, id))?.delivery.status).not.toBe('failed');

      // Same consumer external id and key in the other tenant: a new consumer with no
      // endpoints and a new message, not the home ones.
      const theirs = await m.send(other, { idempotencyKey: 'shared-key' });
      expect(theirs.created).toBe(true);
      expect(theirs.deliveryIds).toEqual([]);
      expect(theirs.message.consumerId).not.toBe(sent.message.consumerId);

      expect(await messages.get(home, sent.message.id)).toEqual(before);
      expect((await messages.list(home, { limit: 50 })).rows.map((s) => s.message.id)).toEqual([sent.message.id]);
      expect(await deliveries.retryingCount(home, endpoint.id)).toBe(1);
      expect(await m.delivery(home, id)).toMatchObject({ status: 'retrying', manual: false, nextAttemptAt: now + HOUR });
    });
  });
}
