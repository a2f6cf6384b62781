import { claimRef, MAX_CLAIM_BATCH } from '../../src/ports/delivery-port.ts';
import { newId, type DeliveryId, type Endpoint, type Tenant } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import type { Fixtures } from './fixtures.ts';
import { HOUR, LEASE_MS, MessageFixtures, SECOND } from './message-fixtures.ts';

/** Contract of DeliveryRepo: due, claim and leases, complete, and message status upkeep. */
export function describeDeliveryContract(f: Fixtures): void {
  const m = new MessageFixtures(f);
  const status = async (t: Tenant, id: DeliveryId) => (await m.delivery(t, id)).status;

  describe('deliveries: due and claim', () => {
    it('a new delivery is due from its creation time on', async () => {
      const { deliveryId, sent } = await m.sceneWithDelivery();
      const created = sent.message.createdAt;
      expect(await m.dueOf(created - 1, [deliveryId])).toEqual([]);
      expect(await m.dueOf(created, [deliveryId])).toEqual([deliveryId]);
      expect(await f.store.deliveries.claim(deliveryId, created - 1, created + LEASE_MS)).toBeNull();
    });

    it('lists the oldest due first and at most limit', async () => {
      const { t } = await m.scene();
      const made: DeliveryId[] = [];
      for (let i = 0; i < 3; i++) made.push(m.only(await m.send(t)));
      const [d1, d2, d3] = made as [DeliveryId, DeliveryId, DeliveryId];
      const now = f.clock.now();
      await f.store.deliveries.release(claimRef(await m.claim(d1, now)), now + 1);
      expect(await m.dueOf(now, made)).toEqual([d2, d3]);
      expect(await m.dueOf(now + 1, made)).toEqual([d2, d3, d1]);
      expect(await f.store.deliveries.due(now, 1, 10)).toHaveLength(1);
      expect(await f.store.deliveries.due(now, 0, 10)).toEqual([]);
    });

    it('claim returns the job: tenant, delivery, message, endpoint and the secrets valid now, newest first', async () => {
      const { t, endpoint, sent, deliveryId } = await m.sceneWithDelivery();
      const later = m.only(await m.send(t));
      const rotatedAt = f.clock.now();
      const fresh = { sealed: 'v1.fresh', createdAt: rotatedAt, expiresAt: null };
      await f.store.endpoints.rotateSecret(t, endpoint.id, fresh, rotatedAt, rotatedAt + HOUR, 3);
      const before = await m.delivery(t, deliveryId);

      const job = await m.claim(deliveryId, rotatedAt);
      expect(job).toEqual({
        tenant: t,
        delivery: before,
        message: {
          id: sent.message.id,
          eventType: sent.message.eventType,
          payload: sent.message.payload,
          createdAt: sent.message.createdAt,
        },
        endpoint: await f.store.endpoints.get(t, endpoint.id),
        secrets: [fresh, { sealed: 'v1.first', createdAt: expect.any(Number), expiresAt: rotatedAt + HOUR }],
        leaseToken: expect.any(Number),
      });
      expect((await m.claim(later, rotatedAt + HOUR)).secrets).toEqual([fresh]);
    });

    it(`claimMany claims each as claim would, in order: a job, or null (leased, not due, unknown, twice); at most ${MAX_CLAIM_BATCH} ids`, async (ctx) => {
      // Optional: a store without it (MongoDB) claims one at a time, and this is skipped there.
      if (f.store.deliveries.claimMany === undefined) ctx.skip();
      const { t, endpoint } = await m.scene();
      const [leased, due, late] = [m.only(await m.send(t)), m.only(await m.send(t)), m.only(await m.send(t))];
      const now = f.clock.now();
      await m.claim(leased, now);
      const before = await m.delivery(t, due);
      const unknown = newId('delivery', f.clock);
      // `late` is due from now: claimed as of a moment before, it is not; as of now, it is.
      expect(await f.store.deliveries.claimMany!([late], now - 1, now + LEASE_MS)).toEqual([null]);
      const jobs = await f.store.deliveries.claimMany!([leased, due, unknown, late, due], now, now + LEASE_MS);
      expect(jobs.map((job) => (job !== null && 'delivery' in job ? job.delivery.id : job))).toEqual([null, due, null, late, null]);
      expect(jobs[1]).toEqual({
        tenant: t,
        delivery: before,
        message: expect.objectContaining({ payload: expect.any(String) }),
        endpoint: await f.store.endpoints.get(t, endpoint.id),
        secrets: [{ sealed: 'v1.first', createdAt: expect.any(Number), expiresAt: null }],
        leaseToken: expect.any(Number),
      });
      // Leased for the lease's length, as a claim.
      expect(await m.dueOf(now + LEASE_MS - 1, [due, late])).toEqual([]);
      expect(await m.dueOf(now + LEASE_MS, [due, late])).toEqual([due, late]);
      // Listed twice with a lease that ends at once (claimable again as of `now`): still claimed once.
      const [once, twice] = await f.store.deliveries.claimMany!([leased, leased], now + 2 * LEASE_MS, now + 2 * LEASE_MS);
      expect([once && 'delivery' in once ? once.delivery.id : once, twice]).toEqual([leased, null]);
      const tooMany = Array.from({ length: MAX_CLAIM_BATCH + 1 }, () => newId('delivery', f.clock));
      await expect(f.store.deliveries.claimMany!(tooMany, now, now + LEASE_MS)).rejects.toThrow(RangeError);
      expect(await f.store.deliveries.claimMany!(tooMany.slice(1), now, now + LEASE_MS)).toEqual(Array(MAX_CLAIM_BATCH).fill(null));
    });

    it('claim lists two secrets made in the same millisecond the later added first', async () => {
      const { t, endpoint, deliveryId } = await m.sceneWithDelivery();
      const first = await f.store.endpoints.secrets(t, endpoint.id, f.clock.now());
      expect(first.map((s) => s.sealed)).toEqual(['v1.first']);
      const sameMs = first[0]!.createdAt;
      const second = { sealed: 'v1.same-ms', createdAt: sameMs, expiresAt: null };
      await f.store.endpoints.rotateSecret(t, endpoint.id, second, sameMs, sameMs + HOUR, 3);
      expect((await m.claim(deliveryId)).secrets.map((s) => s.sealed)).toEqual(['v1.same-ms', 'v1.first']);
    });

    it('create with a claim: each due delivery is claimed (leased, a job like a claim’s) or left due; the held one neither', async () => {
      const { t, consumer } = await m.scene();
      await m.hook(t, consumer);
      await m.hook(t, consumer);
      const paused = await m.hook(t, consumer, { status: 'paused' });
      const now = f.clock.now() + SECOND;
      const sent = await m.send(t, { createdAt: now, claim: { max: 2, leaseUntil: now + LEASE_MS } });
      expect(sent.deliveryIds).toHaveLength(4);
      const claimed = sent.claimed ?? [];
      // An adapter may claim nothing (intake then wakes the dispatchers); never more than asked.
      expect(claimed.length).toBeLessThanOrEqual(2);
      const claimedIds = claimed.map((job) => job.delivery.id);
      const heldId = (await Promise.all(sent.deliveryIds.map((id) => m.delivery(t, id)))).find((d) => d.endpointId === paused.id)!.id;
      expect(claimedIds).not.toContain(heldId);
      expect([...claimedIds, ...sent.dueDeliveryIds].sort()).toEqual(sent.deliveryIds.filter((id) => id !== heldId).sort());
      expect(await m.dueOf(now, sent.deliveryIds)).toEqual(sent.deliveryIds.filter((id) => id !== heldId && !claimedIds.includes(id)));
      for (const job of claimed) {
        expect(job).toEqual({ ...(await m.claim(job.delivery.id, now + LEASE_MS)), leaseToken: job.leaseToken });
        // A new claim (the lease ran out) fences the hand-off's: its completion no longer applies.
        expect((await f.store.deliveries.complete(claimRef(job), m.succeeded(job, now + LEASE_MS))).applied).toBe(false);
      }
    });

    it('a delivery claimed at create is not claimable until its lease ends, and completes with the job’s claim', async () => {
      const { t } = await m.scene();
      const now = f.clock.now() + SECOND;
      const sent = await m.send(t, { createdAt: now, claim: { max: 1, leaseUntil: now + LEASE_MS } });
      const job = sent.claimed?.[0] ?? (await m.claim(m.only(sent), now));
      expect(await f.store.deliveries.claim(job.delivery.id, now + LEASE_MS - 1, now + 2 * LEASE_MS)).toBeNull();
      expect(await f.store.deliveries.complete(claimRef(job), m.succeeded(job, now + 1))).toMatchObject({ applied: true });
      expect(await m.delivery(t, job.delivery.id)).toMatchObject({ status: 'success', attemptCount: 1 });
    });

    it('a delivery claimed at create and released is due again, as after any claim', async () => {
      const { t } = await m.scene();
      const now = f.clock.now() + SECOND;
      const sent = await m.send(t, { createdAt: now, claim: { max: 1, leaseUntil: now + LEASE_MS } });
      const job = sent.claimed?.[0] ?? (await m.claim(m.only(sent), now));
      await f.store.deliveries.release(claimRef(job), now);
      expect(await m.dueOf(now, [job.delivery.id])).toEqual([job.delivery.id]);
      expect((await m.claim(job.delivery.id, now)).leaseToken).toBeGreaterThan(job.leaseToken);
    });

    it('an idempotent replay claims nothing', async () => {
      const { t } = await m.scene();
      const now = f.clock.now() + SECOND;
      const first = await m.send(t, { createdAt: now, idempotencyKey: 'k-claim' });
      const replay = await m.send(t, { idempotencyKey: 'k-claim', claim: { max: 5, leaseUntil: now + LEASE_MS } });
      expect(replay.created).toBe(false);
      expect(replay.claimed).toBeUndefined();
      expect(replay.dueDeliveryIds).toEqual([]);
      expect(await m.dueOf(f.clock.now(), first.deliveryIds)).toEqual(first.deliveryIds);
    });

    it('a claimed delivery is neither due nor claimable until its lease ends', async () => {
      const { deliveryId } = await m.sceneWithDelivery();
      const now = f.clock.now();
      await m.claim(deliveryId, now);
      expect(await m.dueOf(now, [deliveryId])).toEqual([]);
      expect(await f.store.deliveries.claim(deliveryId, now, now + LEASE_MS)).toBeNull();
      expect(await f.store.deliveries.claim(deliveryId, now + LEASE_MS - 1, now + 2 * LEASE_MS)).toBeNull();
      expect(await m.dueOf(now + LEASE_MS, [deliveryId])).toEqual([deliveryId]);
      await m.claim(deliveryId, now + LEASE_MS);
      expect(await f.store.deliveries.claim(deliveryId, now + LEASE_MS, now + 2 * LEASE_MS)).toBeNull();
    });

    it('release frees the lease and makes the delivery due at the given time, without an attempt', async () => {
      const { t, deliveryId } = await m.sceneWithDelivery();
      const now = f.clock.now();
      const job = await m.claim(deliveryId, now);
      await f.store.deliveries.release(claimRef(job), now + 5 * SECOND);
      expect(await m.dueOf(now + 5 * SECOND - 1, [deliveryId])).toEqual([]);
      expect(await m.delivery(t, deliveryId)).toMatchObject({ status: 'pending', nextAttemptAt: now + 5 * SECOND, attemptCount: 0 });
      await m.claim(deliveryId, now + 5 * SECOND);
    });

    it('releaseAll frees every lease', async () => {
      const { t } = await m.scene();
      const made = [m.only(await m.send(t)), m.only(await m.send(t))];
      const now = f.clock.now();
      for (const id of made) await m.claim(id, now);
      expect(await m.dueOf(now, made)).toEqual([]);
      expect(await f.store.deliveries.releaseAll(f.clock.now())).toBeGreaterThanOrEqual(2);
      expect(await m.dueOf(now, made)).toEqual(made);
      for (const id of made) await m.claim(id, now);
    });

    const holds: Array<[string, (t: Tenant, endpoint: Endpoint) => Promise<unknown>, string]> = [
      ['paused', (t, e) => f.store.endpoints.update(t, e.id, { status: 'paused' }), 'pending'],
      ['disabled', (t, e) => f.store.endpoints.update(t, e.id, { status: 'disabled' }), 'pending'],
      // Deleting fails the endpoint's open deliveries in the same transaction.
      ['deleted', (t, e) => f.store.endpoints.delete(t, e.id), 'failed'],
    ];
    it.each(holds)('an endpoint that is %s holds its deliveries: not due, not claimable', async (_label, hold, after) => {
      const { t, endpoint, deliveryId } = await m.sceneWithDelivery();
      await hold(t, endpoint);
      const now = f.clock.now();
      expect(await m.dueOf(now, [deliveryId])).toEqual([]);
      expect(await f.store.deliveries.claim(deliveryId, now, now + LEASE_MS)).toBeNull();
      expect(await status(t, deliveryId)).toBe(after);
    });

    it('a paused endpoint’s delivery is due again once the endpoint is active', async () => {
      const { t, endpoint, deliveryId } = await m.sceneWithDelivery();
      await f.store.endpoints.update(t, endpoint.id, { status: 'paused' });
      await f.store.endpoints.update(t, endpoint.id, { status: 'active' });
      // Held until released (the API's resume releases them in the same request).
      expect(await m.dueOf(f.clock.now(), [deliveryId])).toEqual([]);
      expect(await f.store.deliveries.releaseHeld(t, endpoint.id, 0, f.clock.now())).toBe(1);
      expect(await m.dueOf(f.clock.now(), [deliveryId])).toEqual([deliveryId]);
    });

    it('an unknown delivery cannot be claimed', async () => {
      const now = f.clock.now();
      expect(await f.store.deliveries.claim(newId('delivery', f.clock), now, now + LEASE_MS)).toBeNull();
    });
  });

  describe('deliveries: complete', () => {
    it('success: records the attempt, ends the delivery, succeeds the message and clears the failure streak', async () => {
      const { t, endpoint, sent, deliveryId } = await m.sceneWithDelivery();
      await f.store.endpoints.update(t, endpoint.id, { failingSince: f.clock.now() - HOUR });
      const now = f.clock.now();
      const job = await m.claim(deliveryId, now);
      const outcome = m.succeeded(job, now + 120);
      expect(await f.store.deliveries.complete(claimRef(job), outcome)).toEqual({ applied: true, endpointDisabled: false });

      expect(await m.delivery(t, deliveryId)).toMatchObject({
        status: 'success',
        nextAttemptAt: null,
        attemptCount: 1,
        policyAttempts: 1,
        manual: false,
      });
      const detail = await f.store.messages.get(t, sent.message.id);
      expect(detail?.message.status).toBe('success');
      expect(detail?.deliveries[0]?.attempts).toEqual([outcome.attempt]);
      expect((await f.store.endpoints.get(t, endpoint.id))?.failingSince).toBeNull();
      expect(await m.dueOf(now + LEASE_MS, [deliveryId])).toEqual([]);
      expect(await f.store.deliveries.claim(deliveryId, now + LEASE_MS, now + 2 * LEASE_MS)).toBeNull();
    });

    it('retrying: frees the lease, schedules the next attempt and starts the failure streak once', async () => {
      const { t, endpoint, sent, deliveryId } = await m.sceneWithDelivery();
      const t0 = f.clock.now();
      const job = await m.claim(deliveryId, t0);
      await f.store.deliveries.complete(claimRef(job), m.failed(job, t0, t0 + 5 * SECOND));
      expect(await m.delivery(t, deliveryId)).toMatchObject({
        status: 'retrying',
        nextAttemptAt: t0 + 5 * SECOND,
        attemptCount: 1,
        policyAttempts: 1,
      });
      expect((await f.store.messages.get(t, sent.message.id))?.message.status).toBe('retrying');
      expect((await f.store.endpoints.get(t, endpoint.id))?.failingSince).toBe(t0);
      expect(await m.dueOf(t0 + 5 * SECOND - 1, [deliveryId])).toEqual([]);

      const again = await m.claim(deliveryId, t0 + 5 * SECOND);
      await f.store.deliveries.complete(claimRef(again), m.failed(again, t0 + 6 * SECOND, t0 + HOUR));
      expect(await m.delivery(t, deliveryId)).toMatchObject({ attemptCount: 2, policyAttempts: 2, nextAttemptAt: t0 + HOUR });
      expect((await f.store.endpoints.get(t, endpoint.id))?.failingSince).toBe(t0);
    });

    it('failed: ends the delivery and fails the message', async () => {
      const { t, sent, deliveryId } = await m.sceneWithDelivery();
      const job = await m.claim(deliveryId);
      await f.store.deliveries.complete(claimRef(job), m.failed(job, f.clock.now()));
      expect(await m.delivery(t, deliveryId)).toMatchObject({ status: 'failed', nextAttemptAt: null, attemptCount: 1 });
      expect((await f.store.messages.get(t, sent.message.id))?.message.status).toBe('failed');
      expect(await m.dueOf(f.clock.now() + HOUR, [deliveryId])).toEqual([]);
    });

    it('manual: retryNow schedules a re-send now that does not count toward the policy', async () => {
      const { t, sent, deliveryId } = await m.sceneWithDelivery();
      const job = await m.claim(deliveryId);
      await f.store.deliveries.complete(claimRef(job), m.failed(job, f.clock.now()));
      f.clock.advance(HOUR);
      const now = f.clock.now();

      const scheduled = await f.store.deliveries.retryNow(t, deliveryId, now);
      expect(scheduled).toEqual({ ...(await m.delivery(t, deliveryId)), status: 'retrying', manual: true, nextAttemptAt: now });
      expect(scheduled).toMatchObject({ attemptCount: 1, policyAttempts: 1 });
      expect((await f.store.messages.get(t, sent.message.id))?.message.status).toBe('retrying');
      expect(await m.dueOf(now, [deliveryId])).toEqual([deliveryId]);

      const manual = await m.claim(deliveryId, now);
      expect(manual.delivery.manual).toBe(true);
      await f.store.deliveries.complete(claimRef(manual), m.succeeded(manual, now));
      expect(await m.delivery(t, deliveryId)).toMatchObject({
        status: 'success',
        manual: false,
        attemptCount: 2,
        policyAttempts: 1,
        nextAttemptAt: null,
      });
      expect((await f.store.messages.get(t, sent.message.id))?.message.status).toBe('success');
    });

    it('retryNow of an unknown delivery is null', async () => {
      const { t } = await m.sceneWithDelivery();
      expect(await f.store.deliveries.retryNow(t, newId('delivery', f.clock), f.clock.now())).toBeNull();
    });

    it('keeps the message status derived from all its deliveries', async () => {
      const { t, consumer } = await m.scene();
      await m.hook(t, consumer);
      const sent = await m.send(t);
      const [a, b] = sent.deliveryIds as [DeliveryId, DeliveryId];
      const messageStatus = async () => (await f.store.messages.get(t, sent.message.id))?.message.status;
      const now = f.clock.now();
      expect(await messageStatus()).toBe('pending');

      const jobA = await m.claim(a, now);
      await f.store.deliveries.complete(claimRef(jobA), m.succeeded(jobA, now));
      expect(await messageStatus()).toBe('pending');
      const jobB = await m.claim(b, now);
      await f.store.deliveries.complete(claimRef(jobB), m.failed(jobB, now, now + SECOND));
      expect(await messageStatus()).toBe('retrying');
      const lastB = await m.claim(b, now + SECOND);
      await f.store.deliveries.complete(claimRef(lastB), m.failed(lastB, now + SECOND));
      expect(await messageStatus()).toBe('failed');
      await f.store.deliveries.retryNow(t, b, now + HOUR);
      expect(await messageStatus()).toBe('retrying');
      const manualB = await m.claim(b, now + HOUR);
      await f.store.deliveries.complete(claimRef(manualB), m.succeeded(manualB, now + HOUR));
      expect(await messageStatus()).toBe('success');
      expect((await f.store.messages.list(t, { limit: 1 })).rows[0]?.message.status).toBe('success');
    });
  });
}
