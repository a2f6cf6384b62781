import { ConflictError, type DeliveryId } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { claimRef } from '../../src/ports/delivery-port.ts';
import type { Fixtures } from './fixtures.ts';
import { HOUR, MessageFixtures, SECOND } from './message-fixtures.ts';

/**
 * Contract of what ends a Retry-After hold and re-spaces a rate limit's put-off deliveries
 *, and of manual retry's endpoint check made in the same step as the reopening.
 */
export function describeEndpointHoldContract(f: Fixtures): void {
  const m = new MessageFixtures(f);

  /**
   * An endpoint held for an hour with three deliveries: `putOff` went back to the store until
   * the hold's end (as the dispatcher does), `backoff` waits ten minutes for its retry policy,
   * `failed` ran out of retries.
   */
  async function heldScene() {
    const scene = await m.scene();
    const { t, endpoint } = scene;
    const [putOff, backoff, failed] = [m.only(await m.send(t)), m.only(await m.send(t)), m.only(await m.send(t))] as [DeliveryId, DeliveryId, DeliveryId];
    const now = f.clock.now();
    const heldUntil = now + HOUR;
    await f.store.endpoints.hold(t, endpoint.id, heldUntil);
    await f.store.deliveries.release(claimRef(await m.claim(putOff, now)), heldUntil);
    const retried = await m.claim(backoff, now);
    await f.store.deliveries.complete(claimRef(retried), m.failed(retried, now, now + 10 * 60 * SECOND));
    const ended = await m.claim(failed, now);
    await f.store.deliveries.complete(claimRef(ended), m.failed(ended, now));
    return { ...scene, putOff, backoff, failed, now, heldUntil };
  }

  describe('endpoints: ending a hold and re-spacing', () => {
    it('update with endHoldAt: heldUntil becomes null and what the hold put off is due then; a retry policy’s wait is kept', async () => {
      const { t, endpoint, putOff, backoff, now } = await heldScene();
      const at = now + SECOND;
      const updated = await f.store.endpoints.update(t, endpoint.id, { url: 'https://new.acme.example/hook', endHoldAt: at });
      expect(updated).toMatchObject({ url: 'https://new.acme.example/hook', heldUntil: null });
      expect((await f.store.endpoints.get(t, endpoint.id))?.heldUntil).toBeNull();
      expect(await m.delivery(t, putOff)).toMatchObject({ status: 'pending', nextAttemptAt: at });
      expect(await m.dueOf(at, [putOff, backoff])).toEqual([putOff]);
      // Alone too (a resume that changes nothing else still ends it).
      await f.store.endpoints.hold(t, endpoint.id, at + HOUR);
      expect(await f.store.endpoints.update(t, endpoint.id, { endHoldAt: at })).toMatchObject({ heldUntil: null });
    });

    /**
     * 1,002 deliveries put off by an hour's hold (past the request batch the ending transaction
     * makes due: SQLite's 1,000, MongoDB's 100), then the hold ended at `at`: the batch due then,
     * the rest (2, or 902) left to the endpoint's walk, whose batch of 1,000 takes them all.
     */
    async function endedWithRestLeft(scene?: Pick<Awaited<ReturnType<typeof m.scene>>, 't' | 'endpoint'>) {
      const { t, endpoint } = scene ?? (await m.scene());
      const heldUntil = f.clock.now() + HOUR;
      await f.store.endpoints.hold(t, endpoint.id, heldUntil);
      const putOff: DeliveryId[] = [];
      for (let i = 0; i < 1_002; i++) {
        const id = m.only(await m.send(t));
        await f.store.deliveries.release(claimRef(await m.claim(id)), heldUntil);
        putOff.push(id);
      }
      const at = f.clock.now() + SECOND; // a send moves the fixtures' clock: still within the hour
      await f.store.endpoints.update(t, endpoint.id, { endHoldAt: at });
      const times = async () => (await Promise.all(putOff.map((id) => m.delivery(t, id)))).map((d) => d.nextAttemptAt);
      return { t, endpoint, heldUntil, putOff, at, times };
    }

    /** What the ending transaction leaves to the walk (read when the tests run: the fixtures are set by then). */
    const left = () => 1_002 - f.requestWalkBatch;

    it('ending a hold that put off 1,002: a request batch due at once, the endpoint’s walk makes the rest due', async () => {
      const { putOff, at, times } = await endedWithRestLeft();
      expect(await m.dueOf(at, putOff)).toHaveLength(f.requestWalkBatch);
      const walkedAt = at + SECOND;
      expect((await f.store.deliveries.walkEndpoints(walkedAt, 1_000, 100)).changed).toBeGreaterThanOrEqual(2);
      expect(await m.dueOf(walkedAt, putOff)).toHaveLength(1_002);
      // The rest were made due by the walk, at its time; nothing is left at the hold's old end.
      expect((await times()).filter((x) => x !== at)).toEqual(Array(left()).fill(walkedAt));
    });

    it('ending a hold that put off 1,002 while a later new hold comes: the walk moves the rest to the new hold’s end, not its old one', async () => {
      const { t, endpoint, at, times } = await endedWithRestLeft();
      const later = at + 2 * HOUR;
      await f.store.endpoints.hold(t, endpoint.id, later); // a second 429 before the walk runs
      await f.store.deliveries.walkEndpoints(at + SECOND, 1_000, 100);
      expect((await times()).filter((x) => x !== at)).toEqual(Array(left()).fill(later));
    });

    it('a 429 storm: a hold ended, a later one made before the walk ran, then ended too — both rests due, none left at an old end', async () => {
      const first = await endedWithRestLeft();
      const { t, endpoint } = first;
      const second = first.at + 2 * HOUR; // the 429 answering the retry that ended the first hold
      await f.store.endpoints.hold(t, endpoint.id, second);
      await f.store.deliveries.walkEndpoints(first.at + SECOND, 1_000, 100);
      // While the second hold is in force the walk moves the first's rest to its end (not due now, into the storm).
      expect((await first.times()).filter((x) => x !== first.at)).toEqual(Array(left()).fill(second));
      const endedAt = first.at + 2 * SECOND; // another manual retry ends the second hold
      await f.store.endpoints.update(t, endpoint.id, { endHoldAt: endedAt });
      for (let round = 0; round < 3; round++) await f.store.deliveries.walkEndpoints(endedAt + SECOND, 1_000, 100);
      expect(await m.dueOf(endedAt + SECOND, first.putOff)).toHaveLength(1_002);
      expect((await first.times()).filter((x) => x === first.heldUntil || x === second)).toEqual([]);
    });

    it('ending a hold that put off 1,002 while a shorter new hold comes: the walk moves the rest to the new hold’s end', async () => {
      const { t, endpoint, at, times } = await endedWithRestLeft();
      const sooner = at + 10 * SECOND;
      await f.store.endpoints.hold(t, endpoint.id, sooner); // a second 429, Retry-After: 10, before the walk runs
      await f.store.deliveries.walkEndpoints(at + SECOND, 1_000, 100);
      expect((await times()).filter((x) => x !== at)).toEqual(Array(left()).fill(sooner));
    });

    it('two holds ended, each putting off 1,002, before the walk ran: the walk makes both rests due, neither left at its old end', async () => {
      const first = await endedWithRestLeft();
      const second = await endedWithRestLeft(first); // a second 429 and a manual retry, the same endpoint
      expect(second.heldUntil).toBeGreaterThan(first.heldUntil);
      const walkedAt = second.at + SECOND;
      // Two rests of 2 (SQLite) or 902 (MongoDB): one batch of 1,000, or two.
      for (let round = 0; round < 3; round++) await f.store.deliveries.walkEndpoints(walkedAt, 1_000, 100);
      expect(await m.dueOf(walkedAt, [...first.putOff, ...second.putOff])).toHaveLength(2_004);
      const times = [...(await first.times()), ...(await second.times())];
      expect(times.filter((x) => x === first.heldUntil || x === second.heldUntil)).toEqual([]);
      expect(times.filter((x) => x === walkedAt)).toHaveLength(2 * left());
    });

    it('ending a hold already over rewrites nothing: what it put off is due by now, its times kept', async () => {
      const { t, endpoint, putOff, heldUntil } = await heldScene();
      const after = heldUntil + SECOND;
      expect(await f.store.endpoints.update(t, endpoint.id, { url: 'https://new.acme.example/hook', endHoldAt: after })).toMatchObject({ heldUntil: null });
      expect(await m.delivery(t, putOff)).toMatchObject({ nextAttemptAt: heldUntil });
      expect(await m.dueOf(after, [putOff])).toEqual([putOff]);
    });

    it('update without endHoldAt leaves the hold and what it put off as they are', async () => {
      const { t, endpoint, putOff, heldUntil } = await heldScene();
      expect(await f.store.endpoints.update(t, endpoint.id, { description: 'x' })).toMatchObject({ heldUntil });
      expect(await m.delivery(t, putOff)).toMatchObject({ nextAttemptAt: heldUntil });
    });

    it('update with rateLimit and respaceAt: the pending deliveries the old limit spaced out are due then; retrying ones keep their time', async () => {
      const { t, endpoint } = await m.scene();
      const spaced: DeliveryId[] = [];
      for (let i = 0; i < 5; i++) spaced.push(m.only(await m.send(t)));
      const backoff = m.only(await m.send(t));
      const now = f.clock.now();
      for (const [i, id] of spaced.entries()) await f.store.deliveries.release(claimRef(await m.claim(id, now)), now + (i + 1) * SECOND);
      const job = await m.claim(backoff, now);
      await f.store.deliveries.complete(claimRef(job), m.failed(job, now, now + 10 * 60 * SECOND));
      await f.store.endpoints.update(t, endpoint.id, { rateLimit: null, respaceAt: now });
      expect(await m.dueOf(now, [...spaced, backoff])).toEqual(spaced);
      expect(await m.delivery(t, backoff)).toMatchObject({ nextAttemptAt: now + 10 * 60 * SECOND });
    });

    it('retryNow ends the endpoint’s hold: the retried delivery and what the hold put off are due now', async () => {
      const { t, endpoint, putOff, backoff, failed, now } = await heldScene();
      const at = now + SECOND;
      expect(await f.store.deliveries.retryNow(t, failed, at)).toMatchObject({ status: 'retrying', nextAttemptAt: at });
      expect((await f.store.endpoints.get(t, endpoint.id))?.heldUntil).toBeNull();
      expect(await m.dueOf(at, [putOff, backoff, failed])).toEqual(expect.arrayContaining([putOff, failed]));
      expect(await m.dueOf(at, [backoff])).toEqual([]);
      const job = await m.claim(failed, at);
      expect(job.endpoint.heldUntil).toBeNull();
    });
  });

  describe('deliveries: retryNow checks the endpoint in the same step', () => {
    it('a deleted endpoint’s delivery: ConflictError, and it stays failed (not retrying, held, for good)', async () => {
      const { t, endpoint, deliveryId } = await m.sceneWithDelivery();
      expect(await f.store.endpoints.delete(t, endpoint.id)).toBe(true);
      await expect(f.store.deliveries.retryNow(t, deliveryId, f.clock.now())).rejects.toBeInstanceOf(ConflictError);
      await expect(f.store.deliveries.retryNow(t, deliveryId, f.clock.now())).rejects.toThrow(`the endpoint of delivery ${deliveryId} was deleted`);
      expect(await m.delivery(t, deliveryId)).toMatchObject({ status: 'failed', manual: false });
    });

    it('a paused endpoint’s delivery: ConflictError naming the status; nothing changes', async () => {
      const { t, endpoint, deliveryId } = await m.sceneWithDelivery();
      const job = await m.claim(deliveryId);
      await f.store.deliveries.complete(claimRef(job), m.failed(job, f.clock.now()));
      await f.store.endpoints.update(t, endpoint.id, { status: 'paused', changedAt: f.clock.now() });
      const before = await m.delivery(t, deliveryId);
      await expect(f.store.deliveries.retryNow(t, deliveryId, f.clock.now())).rejects.toThrow(
        `the endpoint of delivery ${deliveryId} is paused; resume it first`,
      );
      expect(await m.delivery(t, deliveryId)).toEqual(before);
    });
  });
}
