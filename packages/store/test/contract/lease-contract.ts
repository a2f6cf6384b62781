import type { DeliveryId } from '@wirehook/core';
import type { DueDelivery } from '../../src/ports/delivery-port.ts';
import { describe, expect, it } from 'vitest';
import { claimRef } from '../../src/ports/delivery-port.ts';
import type { Fixtures } from './fixtures.ts';
import { HOUR, LEASE_MS, MessageFixtures, SECOND } from './message-fixtures.ts';

/**
 * Contract of leases as fences, manual re-sends during a send, and the fair `due`: what
 * keeps a slow store, a stalled dispatcher or one tenant's backlog from corrupting or
 * starving anyone else's deliveries.
 */
export function describeLeaseContract(f: Fixtures): void {
  const m = new MessageFixtures(f);

  describe('deliveries: leases are fences', () => {
    it('a send that outlived its lease is recorded but does not overwrite the newer state', async () => {
      const { t, sent, deliveryId } = await m.sceneWithDelivery();
      const t0 = f.clock.now();
      const stale = await m.claim(deliveryId, t0);
      // The lease runs out while the first send hangs; another dispatcher claims and succeeds.
      const fresh = await m.claim(deliveryId, t0 + LEASE_MS);
      expect(fresh.leaseToken).toBeGreaterThan(stale.leaseToken);
      expect(await f.store.deliveries.complete(claimRef(fresh), m.succeeded(fresh, t0 + LEASE_MS + SECOND))).toEqual({
        applied: true,
        endpointDisabled: false,
      });
      // The first send ends with a 500: recorded, not applied.
      const late = m.failed(stale, t0 + LEASE_MS + 2 * SECOND, t0 + HOUR);
      expect(await f.store.deliveries.complete(claimRef(stale), late)).toEqual({ applied: false, endpointDisabled: false });
      expect(await m.delivery(t, deliveryId)).toMatchObject({ status: 'success', nextAttemptAt: null, attemptCount: 2, policyAttempts: 1 });
      expect((await f.store.messages.get(t, sent.message.id))?.message.status).toBe('success');
      expect(await m.dueOf(t0 + HOUR, [deliveryId])).toEqual([]);
      const detail = await f.store.messages.get(t, sent.message.id);
      expect(detail?.deliveries[0]?.attempts.map((a) => a.responseStatus)).toEqual([200, 500]);
    });

    it('a stale failure does not count toward the retry policy twice', async () => {
      const { t, deliveryId } = await m.sceneWithDelivery();
      const t0 = f.clock.now();
      const stale = await m.claim(deliveryId, t0);
      const fresh = await m.claim(deliveryId, t0 + LEASE_MS);
      await f.store.deliveries.complete(claimRef(fresh), m.failed(fresh, t0 + LEASE_MS, t0 + HOUR));
      await f.store.deliveries.complete(claimRef(stale), m.failed(stale, t0 + LEASE_MS + SECOND, t0 + 2 * HOUR));
      expect(await m.delivery(t, deliveryId)).toMatchObject({ status: 'retrying', nextAttemptAt: t0 + HOUR, policyAttempts: 1, attemptCount: 2 });
    });

    it('a release with an old claim does not free the newer lease', async () => {
      const { deliveryId } = await m.sceneWithDelivery();
      const t0 = f.clock.now();
      const stale = await m.claim(deliveryId, t0);
      await m.claim(deliveryId, t0 + LEASE_MS);
      await f.store.deliveries.release(claimRef(stale), t0 + LEASE_MS);
      expect(await m.dueOf(t0 + LEASE_MS + SECOND, [deliveryId])).toEqual([]);
      expect(await f.store.deliveries.claim(deliveryId, t0 + LEASE_MS + SECOND, t0 + 3 * LEASE_MS)).toBeNull();
    });
  });

  describe('deliveries: a manual re-send during a send', () => {
    it('is sent after that send, whatever its outcome, and does not count toward the policy', async () => {
      const { t, sent, deliveryId } = await m.sceneWithDelivery();
      const t0 = f.clock.now();
      const sending = await m.claim(deliveryId, t0);
      const asked = await f.store.deliveries.retryNow(t, deliveryId, t0 + SECOND);
      expect(asked).toMatchObject({ status: 'retrying', manual: true });
      // The send in flight succeeds: the delivery stays due, now, as a manual re-send.
      const done = m.succeeded(sending, t0 + 2 * SECOND);
      expect(await f.store.deliveries.complete(claimRef(sending), done)).toEqual({ applied: true, endpointDisabled: false });
      expect(await m.delivery(t, deliveryId)).toMatchObject({ status: 'retrying', manual: true, nextAttemptAt: t0 + 2 * SECOND, attemptCount: 1 });
      expect((await f.store.messages.get(t, sent.message.id))?.message.status).toBe('retrying');
      expect(await m.dueOf(t0 + 2 * SECOND, [deliveryId])).toEqual([deliveryId]);

      const resend = await m.claim(deliveryId, t0 + 3 * SECOND);
      expect(resend.delivery.manual).toBe(true);
      await f.store.deliveries.complete(claimRef(resend), m.succeeded(resend, t0 + 3 * SECOND));
      expect(await m.delivery(t, deliveryId)).toMatchObject({ status: 'success', manual: false, attemptCount: 2, policyAttempts: 1 });
    });

    it('a delivery that ended while its endpoint was paused can be re-sent once the endpoint is active', async () => {
      const { t, endpoint, deliveryId } = await m.sceneWithDelivery();
      const t0 = f.clock.now();
      const job = await m.claim(deliveryId, t0);
      await f.store.endpoints.update(t, endpoint.id, { status: 'paused' });
      await f.store.deliveries.complete(claimRef(job), m.succeeded(job, t0));
      await f.store.endpoints.update(t, endpoint.id, { status: 'active' });
      await f.store.deliveries.retryNow(t, deliveryId, t0 + SECOND);
      expect(await m.dueOf(t0 + SECOND, [deliveryId])).toEqual([deliveryId]);
    });

    it('asked for when no send is running, it is an ordinary manual re-send', async () => {
      const { t, deliveryId } = await m.sceneWithDelivery();
      const t0 = f.clock.now();
      const first = await m.claim(deliveryId, t0);
      await f.store.deliveries.complete(claimRef(first), m.succeeded(first, t0));
      await f.store.deliveries.retryNow(t, deliveryId, t0 + SECOND);
      const again = await m.claim(deliveryId, t0 + SECOND);
      await f.store.deliveries.complete(claimRef(again), m.succeeded(again, t0 + 2 * SECOND));
      expect(await m.delivery(t, deliveryId)).toMatchObject({ status: 'success', manual: false, attemptCount: 2, policyAttempts: 1 });
    });
  });

  describe('deliveries: due is fair between endpoints', () => {
    it('takes at most perEndpoint of one endpoint, so a backlog does not hide another endpoint’s due delivery; each names its tenant', async () => {
      const noisy = await m.scene();
      const backlog: DeliveryId[] = [];
      for (let i = 0; i < 12; i++) backlog.push(m.only(await m.send(noisy.t)));
      const healthy = await m.scene();
      const waiting = m.only(await m.send(healthy.t));
      // The backlog is the oldest due in the whole store (other tests' deliveries share it),
      // the healthy endpoint's delivery right behind it.
      const now = f.clock.now();
      for (const [i, id] of backlog.entries()) await f.store.deliveries.release(claimRef(await m.claim(id, now)), 1 + i);
      await f.store.deliveries.release(claimRef(await m.claim(waiting, now)), 100);

      // The oldest 10 are all the noisy endpoint's: capped at 3 (an adapter may share the page
      // out more evenly still), the page goes on to the others, oldest due first.
      const page = await f.store.deliveries.due(now, 10, 3);
      const mine = page.filter((d) => backlog.includes(d.id) || d.id === waiting);
      const noisyTaken = mine.filter((d) => d.endpointId === noisy.endpoint.id);
      expect(noisyTaken.length).toBeGreaterThanOrEqual(1);
      expect(noisyTaken.length).toBeLessThanOrEqual(3);
      expect(mine).toEqual([
        ...backlog.slice(0, noisyTaken.length).map((id) => ({ id, endpointId: noisy.endpoint.id, tenant: noisy.t })),
        { id: waiting, endpointId: healthy.endpoint.id, tenant: healthy.t },
      ]);
      expect(page.length).toBeLessThanOrEqual(10);
      // Without a backlog in the way, the plain order and the cap agree.
      expect((await f.store.deliveries.due(now, 100_000, 100_000)).filter((d) => d.endpointId === noisy.endpoint.id)).toHaveLength(12);
    });
  });

  describe('deliveries: due is fair between tenants', () => {
    it('takes at most perTenant of one tenant over all its endpoints, so its backlog over many endpoints does not hide another tenant’s', async () => {
      // The busy tenant: one due delivery on each of 6 endpoints, older than anything else in the store.
      const busy = await m.scene();
      for (let i = 1; i < 6; i++) await m.hook(busy.t, busy.consumer);
      const fanned = (await m.send(busy.t)).deliveryIds;
      expect(fanned).toHaveLength(6);
      const quiet = await m.scene();
      const waiting = m.only(await m.send(quiet.t));
      const now = f.clock.now();
      const ordered: DeliveryId[] = [];
      for (const id of fanned) {
        const job = await m.claim(id, now);
        ordered.push(id);
        await f.store.deliveries.release(claimRef(job), -100 + ordered.length);
      }
      // Due before anything other cases leave due (the case above's from 1 ms on).
      await f.store.deliveries.release(claimRef(await m.claim(waiting, now)), -50);
      const mine = (page: DueDelivery[]) => page.filter((d) => ordered.includes(d.id) || d.id === waiting).map((d) => d.id);

      // No share (unset): the oldest 4 are all the busy tenant's (one an endpoint).
      expect(mine(await f.store.deliveries.due(now, 4, 3))).toEqual(ordered.slice(0, 4));
      // A share of 2: its 2 oldest, then the quiet tenant's.
      expect(mine(await f.store.deliveries.due(now, 4, 3, 2))).toEqual([...ordered.slice(0, 2), waiting]);
      // The same call again gives the same answer (a read).
      expect(mine(await f.store.deliveries.due(now, 4, 3, 2))).toEqual([...ordered.slice(0, 2), waiting]);
      expect(await f.store.deliveries.due(now, 4, 3, 0)).toEqual([]);
      // The busy tenant skipped (the caller has no room for it): none of it, the quiet one's first.
      expect(mine(await f.store.deliveries.due(now, 4, 3, 2, [busy.t]))).toEqual([waiting]);
      expect(mine(await f.store.deliveries.due(now, 4, 3, 2, [busy.t, quiet.t]))).toEqual([]);
      await putAway([...ordered, waiting], now);
    });

    it('a tenant at its share, then one endpoint’s backlog: neither hides a third tenant’s delivery behind them', async () => {
      const a = await m.scene();
      for (let i = 1; i < 4; i++) await m.hook(a.t, a.consumer);
      const aIds = (await m.send(a.t)).deliveryIds;
      const b = await m.scene();
      const bIds: DeliveryId[] = [];
      for (let i = 0; i < 40; i++) bIds.push(m.only(await m.send(b.t)));
      const c = await m.scene();
      const waiting = m.only(await m.send(c.t));
      const now = f.clock.now();
      let at = -20_000; // before anything other cases leave due
      for (const id of [...aIds, ...bIds, waiting]) await f.store.deliveries.release(claimRef(await m.claim(id, now)), at++);
      const mine = new Set<DeliveryId>([...aIds, ...bIds, waiting]);
      const page = (await f.store.deliveries.due(now, 4, 1, 2)).filter((d) => mine.has(d.id)).map((d) => d.id);
      expect(page).toEqual([aIds[0], aIds[1], bIds[0], waiting]);
      await putAway([...mine], now);
    });

    it('one endpoint’s backlog cut the page and a tenant spans many endpoints: at most its share of their heads, then another tenant', async () => {
      const busy = await m.scene();
      for (let i = 1; i < 5; i++) await m.hook(busy.t, busy.consumer);
      const first = (await m.send(busy.t)).deliveryIds;
      const second = (await m.send(busy.t)).deliveryIds;
      const quiet = await m.scene();
      const waiting = m.only(await m.send(quiet.t));
      const now = f.clock.now();
      // The first endpoint's two oldest, then each other endpoint's first, then the rest; the quiet one's after those.
      const order = [first[0]!, second[0]!, ...first.slice(1), ...second.slice(1)];
      let at = -30_000;
      for (const id of order) await f.store.deliveries.release(claimRef(await m.claim(id, now)), at++);
      await f.store.deliveries.release(claimRef(await m.claim(waiting, now)), -29_900);
      const mine = new Set<DeliveryId>([...order, waiting]);
      const page = (await f.store.deliveries.due(now, 4, 1, 2)).filter((d) => mine.has(d.id)).map((d) => d.id);
      expect(page).toEqual([first[0], first[1], waiting]);
      await putAway([...mine], now);
    });
  });

  /** Leases `ids` and gives them back due in ten years: out of the way of the cases after (they share the store). */
  async function putAway(ids: readonly DeliveryId[], now: number): Promise<void> {
    for (const id of ids) await f.store.deliveries.release(claimRef(await m.claim(id, now)), now + 10 * 365 * 24 * 3_600_000);
  }
}
