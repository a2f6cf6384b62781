import { claimRef } from '../../src/ports/delivery-port.ts';
import { newId, RECENT_ATTEMPTS, type DeliveryId, type MessageId, type Tenant } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import type { Fixtures } from './fixtures.ts';
import { DAY, HOUR, MessageFixtures, SECOND } from './message-fixtures.ts';

/** Contract of the DeliveryRepo calls about one endpoint: failure streak, pause, delete, counts. */
export function describeDeliveryEndpointContract(f: Fixtures): void {
  const m = new MessageFixtures(f);
  const messageStatus = async (t: Tenant, id: MessageId) => (await f.store.messages.get(t, id))?.message.status;

  describe('deliveries: endpoint failure streak and automatic disabling', () => {
    // Endpoint `failing` takes everything; `healthy` only invoice.paid. m1 and m2 go to
    // `failing` alone, m3 to both.
    const failingEndpoint = async () => {
      const { t, consumer, endpoint: failing } = await m.scene();
      const healthy = await m.hook(t, consumer, { eventTypes: ['invoice.paid'] });
      const m1 = await m.send(t, { eventType: 'user.created' });
      const m2 = await m.send(t, { eventType: 'user.created' });
      const m3 = await m.send(t, { eventType: 'invoice.paid' });
      const [m3Failing, m3Healthy] = m3.deliveryIds as [DeliveryId, DeliveryId];
      return { t, failing, healthy, m1, m2, m3, d1: m.only(m1), d2: m.only(m2), m3Failing, m3Healthy };
    };

    it('disables the endpoint once the streak began at or before disableIfFailingSince, failing its open deliveries', async () => {
      const { t, failing, healthy, m1, m2, m3, d1, d2, m3Failing, m3Healthy } = await failingEndpoint();
      const t0 = f.clock.now();
      const first = await m.claim(d1, t0);
      await f.store.deliveries.complete(claimRef(first), m.failed(first, t0, t0 + HOUR));
      expect(await f.store.endpoints.get(t, failing.id)).toMatchObject({ status: 'active', failingSince: t0 });

      const later = t0 + 6 * DAY;
      const second = await m.claim(d2, later);
      const outcome = m.failed(second, later, later + HOUR, {
        disableIfFailingSince: later - 5 * DAY,
        disabledReason: 'failing for 5 days',
      });
      expect(await f.store.deliveries.complete(claimRef(second), outcome)).toEqual({ applied: true, endpointDisabled: true });

      expect(await f.store.endpoints.get(t, failing.id)).toMatchObject({
        status: 'disabled',
        disabledReason: 'failing for 5 days',
        failingSince: t0,
      });
      for (const id of [d1, d2, m3Failing]) {
        expect(await m.delivery(t, id)).toMatchObject({ status: 'failed', nextAttemptAt: null });
      }
      expect(await m.delivery(t, d2)).toMatchObject({ attemptCount: 1 });
      expect(await m.delivery(t, m3Healthy)).toMatchObject({ status: 'pending', nextAttemptAt: m3.message.createdAt });
      expect(await m.dueOf(later, [d1, d2, m3Failing, m3Healthy])).toEqual([m3Healthy]);
      expect(await messageStatus(t, m1.message.id)).toBe('failed');
      expect(await messageStatus(t, m2.message.id)).toBe('failed');
      expect(await messageStatus(t, m3.message.id)).toBe('pending');
      expect((await f.store.endpoints.get(t, healthy.id))?.status).toBe('active');
    });

    it('keeps the endpoint active while the streak is younger than disableIfFailingSince', async () => {
      const { t, failing, d1, d2 } = await failingEndpoint();
      const t0 = f.clock.now();
      const job = await m.claim(d1, t0);
      const outcome = m.failed(job, t0, t0 + HOUR, { disableIfFailingSince: t0 - 1, disabledReason: 'x' });
      expect(await f.store.deliveries.complete(claimRef(job), outcome)).toEqual({ applied: true, endpointDisabled: false });
      expect(await f.store.endpoints.get(t, failing.id)).toMatchObject({ status: 'active', failingSince: t0, disabledReason: null });
      expect(await m.delivery(t, d2)).toMatchObject({ status: 'pending' });
    });

    it('disables only an active endpoint, and reports the disabling once', async () => {
      const { t, failing, d1, d2, m3Failing } = await failingEndpoint();
      const t0 = f.clock.now();
      const [j1, j2, j3] = [await m.claim(d1, t0), await m.claim(d2, t0), await m.claim(m3Failing, t0)];
      const disabling = { disableIfFailingSince: t0, disabledReason: 'failing' };

      await f.store.endpoints.update(t, failing.id, { status: 'paused' });
      expect(await f.store.deliveries.complete(claimRef(j1), m.failed(j1, t0, t0 + HOUR, disabling))).toEqual({ applied: true, endpointDisabled: false });
      expect((await f.store.endpoints.get(t, failing.id))?.status).toBe('paused');

      await f.store.endpoints.update(t, failing.id, { status: 'active' });
      expect(await f.store.deliveries.complete(claimRef(j2), m.failed(j2, t0, t0 + HOUR, disabling))).toEqual({ applied: true, endpointDisabled: true });
      // The disabling failed j3's delivery while it was being sent: its completion is recorded, not applied.
      expect(await f.store.deliveries.complete(claimRef(j3), m.failed(j3, t0, t0 + HOUR, disabling))).toEqual({ applied: false, endpointDisabled: false });
      expect(await m.delivery(t, m3Failing)).toMatchObject({ status: 'failed', attemptCount: 1 });
      expect((await f.store.endpoints.get(t, failing.id))?.status).toBe('disabled');
    });
  });

  describe('deliveries: releaseHeld', () => {
    it('on resume makes held deliveries since heldSince due now and fails older ones', async () => {
      const { t, consumer, endpoint } = await m.scene();
      await f.store.endpoints.update(t, endpoint.id, { eventTypes: ['invoice.paid'] });
      const other = await m.hook(t, consumer, { eventTypes: ['other.event'] });
      const now = f.clock.now() + DAY;
      const heldSince = now - 40 * DAY;
      const old = await m.send(t, { createdAt: heldSince - 1 });
      const otherOld = await m.send(t, { createdAt: heldSince - 1, eventType: 'other.event' });
      const retrying = await m.send(t, { createdAt: heldSince });
      const done = await m.send(t, { createdAt: heldSince + DAY });
      const retryJob = await m.claim(m.only(retrying), heldSince);
      await f.store.deliveries.complete(claimRef(retryJob), m.failed(retryJob, heldSince, now + 10 * HOUR));
      const doneJob = await m.claim(m.only(done), heldSince + DAY);
      await f.store.deliveries.complete(claimRef(doneJob), m.succeeded(doneJob, heldSince + DAY));
      await f.store.endpoints.update(t, endpoint.id, { status: 'paused' });
      const held = await m.send(t, { createdAt: now - HOUR });
      await f.store.endpoints.update(t, endpoint.id, { status: 'active' });

      expect(await f.store.deliveries.releaseHeld(t, endpoint.id, heldSince, now)).toBe(2);

      expect(await m.delivery(t, m.only(retrying))).toMatchObject({ status: 'retrying', nextAttemptAt: now, attemptCount: 1 });
      expect(await m.delivery(t, m.only(held))).toMatchObject({ status: 'pending', nextAttemptAt: now });
      expect(await m.delivery(t, m.only(old))).toMatchObject({ status: 'failed', nextAttemptAt: null });
      expect(await m.delivery(t, m.only(done))).toMatchObject({ status: 'success', nextAttemptAt: null });
      expect(await m.delivery(t, m.only(otherOld))).toMatchObject({ status: 'pending', endpointId: other.id });
      expect(await messageStatus(t, old.message.id)).toBe('failed');
      expect(await messageStatus(t, retrying.message.id)).toBe('retrying');
      expect(await messageStatus(t, otherOld.message.id)).toBe('pending');
      const mine = [m.only(retrying), m.only(held), m.only(old), m.only(done)];
      expect((await m.dueOf(now, mine)).toSorted()).toEqual([m.only(retrying), m.only(held)].toSorted());
      expect(await m.dueOf(now - 1, [m.only(retrying), m.only(held)])).toEqual([]);
    });
  });

  describe('deliveries of a deleted endpoint, get, retryingCount, recentAttempts', () => {
    it('deleting an endpoint fails its open deliveries in the same step; they stay readable with no endpoint status', async () => {
      const { t, endpoint } = await m.scene();
      const pending = await m.send(t);
      const retrying = await m.send(t);
      const succeeded = await m.send(t);
      const now = f.clock.now();
      const r = await m.claim(m.only(retrying), now);
      const rOutcome = m.failed(r, now, now + HOUR);
      await f.store.deliveries.complete(claimRef(r), rOutcome);
      const s = await m.claim(m.only(succeeded), now);
      await f.store.deliveries.complete(claimRef(s), m.succeeded(s, now));
      expect(await f.store.deliveries.get(t, m.only(pending))).toMatchObject({ endpointStatus: 'active' });

      expect(await f.store.endpoints.delete(t, endpoint.id)).toBe(true);

      expect(await f.store.deliveries.get(t, m.only(pending))).toEqual({
        delivery: expect.objectContaining({ status: 'failed', nextAttemptAt: null, url: endpoint.url, endpointId: endpoint.id }),
        endpointStatus: null,
      });
      expect((await m.delivery(t, m.only(retrying))).status).toBe('failed');
      expect((await m.delivery(t, m.only(succeeded))).status).toBe('success');
      expect(await messageStatus(t, pending.message.id)).toBe('failed');
      expect(await messageStatus(t, retrying.message.id)).toBe('failed');
      expect(await messageStatus(t, succeeded.message.id)).toBe('success');
      // (Its page is gone with it, so no caller asks for its recent attempts: SQLite keeps none, schema step 39.)
      expect((await f.store.messages.get(t, retrying.message.id))?.deliveries[0]?.attempts).toEqual([rOutcome.attempt]);
    });

    it('get reports the endpoint status and null for an unknown delivery', async () => {
      const { t, endpoint, deliveryId } = await m.sceneWithDelivery();
      await f.store.endpoints.update(t, endpoint.id, { status: 'paused' });
      expect(await f.store.deliveries.get(t, deliveryId)).toEqual({ delivery: await m.delivery(t, deliveryId), endpointStatus: 'paused' });
      expect(await f.store.deliveries.get(t, newId('delivery', f.clock))).toBeNull();
    });

    it('retryingCount counts the endpoint’s retrying deliveries only', async () => {
      const { t, consumer, endpoint } = await m.scene();
      await f.store.endpoints.update(t, endpoint.id, { eventTypes: ['invoice.paid'] });
      const other = await m.hook(t, consumer, { eventTypes: ['other.event'] });
      const now = f.clock.now();
      const outcomes = [now + HOUR, now + HOUR, null, undefined];
      for (const next of outcomes) {
        const id = m.only(await m.send(t));
        if (next === undefined) continue;
        const job = await m.claim(id, f.clock.now());
        await f.store.deliveries.complete(claimRef(job), m.failed(job, now, next));
      }
      const toOther = m.only(await m.send(t, { eventType: 'other.event' }));
      const job = await m.claim(toOther, f.clock.now());
      await f.store.deliveries.complete(claimRef(job), m.failed(job, now, now + HOUR));
      expect(await f.store.deliveries.retryingCount(t, endpoint.id)).toBe(2);
      expect(await f.store.deliveries.retryingCount(t, other.id)).toBe(1);
      expect(await f.store.deliveries.retryingCount(t, newId('endpoint', f.clock))).toBe(0);
    });

    it('retryingCount follows deliveries out of retrying: a success, the endpoint deleted', async () => {
      const { t, endpoint } = await m.scene();
      const ids = [m.only(await m.send(t)), m.only(await m.send(t)), m.only(await m.send(t))];
      const now = f.clock.now();
      for (const id of ids) {
        const job = await m.claim(id, now);
        await f.store.deliveries.complete(claimRef(job), m.failed(job, now, now + HOUR));
      }
      expect(await f.store.deliveries.retryingCount(t, endpoint.id)).toBe(3);
      const again = await m.claim(ids[0]!, now + HOUR);
      await f.store.deliveries.complete(claimRef(again), m.succeeded(again, now + HOUR));
      expect(await f.store.deliveries.retryingCount(t, endpoint.id)).toBe(2);
      expect(await f.store.endpoints.delete(t, endpoint.id)).toBe(true);
      while ((await f.store.deliveries.walkEndpoints(f.clock.now(), 1_000, 16)).pending);
      expect(await f.store.deliveries.retryingCount(t, endpoint.id)).toBe(0);
    });

    it('recentAttempts lists the endpoint’s attempts newest first, at most limit', async () => {
      const { t, consumer, endpoint } = await m.scene();
      await m.hook(t, consumer);
      const sent = await m.send(t);
      const [mine, elsewhere] = sent.deliveryIds as [DeliveryId, DeliveryId];
      const t0 = f.clock.now();
      const made = [];
      for (const at of [t0, t0 + SECOND, t0 + 2 * SECOND]) {
        const job = await m.claim(mine, at);
        const outcome = m.failed(job, at, at + SECOND);
        await f.store.deliveries.complete(claimRef(job), outcome);
        made.push(outcome.attempt);
      }
      const foreign = await m.claim(elsewhere, t0);
      await f.store.deliveries.complete(claimRef(foreign), m.succeeded(foreign, t0 + 5 * SECOND));
      const [a1, a2, a3] = made;
      expect(await f.store.deliveries.recentAttempts(t, endpoint.id, 2)).toEqual([a3, a2]);
      expect(await f.store.deliveries.recentAttempts(t, endpoint.id, 10)).toEqual([a3, a2, a1]);
    });

    it('recentAttempts: limit 0 lists none; 20 (RECENT_ATTEMPTS, the most a store lists) is the most; 21, a fraction, a negative refused', async () => {
      expect(RECENT_ATTEMPTS).toBe(20);
      const { t, endpoint, deliveryId } = await m.sceneWithDelivery();
      const job = await m.claim(deliveryId);
      await f.store.deliveries.complete(claimRef(job), m.succeeded(job, f.clock.now()));
      expect(await f.store.deliveries.recentAttempts(t, endpoint.id, 0)).toEqual([]);
      expect(await f.store.deliveries.recentAttempts(t, endpoint.id, 20)).toHaveLength(1);
      for (const limit of [21, -1, 1.5]) {
        await expect(f.store.deliveries.recentAttempts(t, endpoint.id, limit)).rejects.toThrow(
          `limit must be an integer from 0 to 20 (what an endpoint's page lists), got ${limit}`,
        );
      }
    });
  });
}
