import { newId, type DeliveryId, type Tenant } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { claimRef } from '../../src/ports/delivery-port.ts';
import type { Fixtures } from './fixtures.ts';
import { HOUR, LEASE_MS, MessageFixtures, SECOND, type Scene } from './message-fixtures.ts';

/**
 * Contract of ordered delivery per key: an endpoint with `ordering: key` numbers the
 * deliveries of each ordering key, and only a lane's head is due and claimable, so every
 * dispatcher and the recovery worker keep the order with no coordination of their own.
 */
export function describeOrderedLaneContract(f: Fixtures): void {
  const m = new MessageFixtures(f);

  const orderedScene = async (): Promise<Scene> => {
    const t = await f.tenant();
    const consumer = await f.consumer(t, 'customer-1');
    return { t, consumer, endpoint: await m.hook(t, consumer, { ordering: 'key', retry: { count: 3, interval: '5m' } }) };
  };
  /** Sends `keys` in order (null: no key); the ids of the scene endpoint's deliveries. */
  const sendAll = async (t: Tenant, keys: (string | null)[]): Promise<DeliveryId[]> => {
    const ids: DeliveryId[] = [];
    for (const key of keys) ids.push(m.only(await m.send(t, { orderingKey: key })));
    return ids;
  };
  const succeed = async (id: DeliveryId) => {
    const job = await m.claim(id);
    return f.store.deliveries.complete(claimRef(job), m.succeeded(job, f.clock.now()));
  };

  describe('ordered lanes', () => {
    it('numbers each key of an ordered endpoint from 1; no key, or an unordered endpoint, has no sequence', async () => {
      const scene = await orderedScene();
      const plain = await m.hook(scene.t, scene.consumer, { url: 'https://plain.example/hook' });
      expect(scene.endpoint.ordering).toBe('key');
      expect(plain.ordering).toBe('none');
      const sent = [];
      for (const key of ['a', 'b', 'a', null, 'a']) sent.push(await m.send(scene.t, { orderingKey: key }));
      const lanes = [];
      for (const s of sent) {
        const detail = await f.store.messages.get(scene.t, s.message.id);
        const byEndpoint = new Map(detail?.deliveries.map((d) => [d.delivery.endpointId, d.delivery]));
        lanes.push([byEndpoint.get(scene.endpoint.id)?.sequence, byEndpoint.get(plain.id)?.sequence, detail?.message.orderingKey]);
        expect(byEndpoint.get(plain.id)?.orderingKey).toBeNull();
      }
      expect(lanes).toEqual([
        [1, null, 'a'],
        [1, null, 'b'],
        [2, null, 'a'],
        [null, null, null],
        [3, null, 'a'],
      ]);
    });

    it('only the head of a lane is due and claimable; its success hands over to the next, named as laneNext', async () => {
      const { t } = await orderedScene();
      const [a1, b1, a2, a3, none] = await sendAll(t, ['a', 'b', 'a', 'a', null]);
      const now = f.clock.now();
      expect(await m.dueOf(now, [a1!, b1!, a2!, a3!, none!])).toEqual([a1, b1, none]);
      expect(await f.store.deliveries.claim(a2!, now, now + LEASE_MS)).toBeNull();
      expect(await succeed(a1!)).toEqual({ applied: true, endpointDisabled: false, laneNext: a2 });
      expect(await m.dueOf(f.clock.now(), [a2!, a3!])).toEqual([a2]);
      expect(await m.delivery(t, a3!)).toMatchObject({ status: 'pending', sequence: 3, orderingKey: 'a' });
    });

    it('a head waiting for a retry holds only its own lane; a head that fails for good lets the next go', async () => {
      const { t } = await orderedScene();
      const [a1, a2, b1, b2] = await sendAll(t, ['a', 'a', 'b', 'b']);
      const job = await m.claim(a1!);
      const t0 = f.clock.now();
      expect(await f.store.deliveries.complete(claimRef(job), m.failed(job, t0, t0 + HOUR))).toEqual({ applied: true, endpointDisabled: false });
      expect(await m.dueOf(t0 + SECOND, [a1!, a2!, b1!, b2!])).toEqual([b1]);
      await succeed(b1!);
      expect(await m.dueOf(t0 + 2 * SECOND, [a1!, a2!, b2!])).toEqual([b2]);
      // The retry ends the head's policy: failed, and a2 goes.
      const retry = await m.claim(a1!, t0 + HOUR);
      expect(await f.store.deliveries.complete(claimRef(retry), m.failed(retry, t0 + HOUR))).toMatchObject({ applied: true, laneNext: a2 });
      expect(await m.dueOf(t0 + HOUR, [a1!, a2!])).toEqual([a2]);
    });

    it('a head whose lease ran out is claimed again; the next still waits until it has ended', async () => {
      const { t } = await orderedScene();
      const [a1, a2] = await sendAll(t, ['a', 'a']);
      const t0 = f.clock.now();
      await m.claim(a1!, t0);
      expect(await m.dueOf(t0 + LEASE_MS, [a1!, a2!])).toEqual([a1]);
      const again = await m.claim(a1!, t0 + LEASE_MS);
      expect(await f.store.deliveries.claim(a2!, t0 + LEASE_MS, t0 + 2 * LEASE_MS)).toBeNull();
      await f.store.deliveries.complete(claimRef(again), m.succeeded(again, t0 + LEASE_MS + SECOND));
      expect(await m.dueOf(t0 + LEASE_MS + SECOND, [a2!])).toEqual([a2]);
      expect(await m.delivery(t, a2!)).toMatchObject({ sequence: 2 });
    });

    it('a manual retry of a waiting delivery takes its lane’s head: sent at once with its sequence, the lane waits for it', async () => {
      const { t } = await orderedScene();
      const [a1, a2, a3] = await sendAll(t, ['a', 'a', 'a']);
      const now = f.clock.now();
      expect(await f.store.deliveries.retryNow(t, a2!, now)).toMatchObject({ sequence: 2, orderingKey: 'a' });
      // a2 goes now; the head it displaced (a1) waits, and a3 behind it.
      expect(await m.dueOf(now, [a1!, a2!, a3!])).toEqual([a2]);
      // a2's attempt fails and will retry: nothing else of the lane starts meanwhile.
      const job = await m.claim(a2!, now);
      await f.store.deliveries.complete(claimRef(job), m.failed(job, now, now + 60_000));
      expect(await m.dueOf(f.clock.now(), [a1!, a3!])).toEqual([]);
      // Once a2 ends, the lane goes on by sequence: a1, then a3.
      f.clock.advance(60_000);
      await succeed(a2!);
      expect(await m.dueOf(f.clock.now(), [a1!, a3!])).toEqual([a1]);
      await succeed(a1!);
      expect(await m.dueOf(f.clock.now(), [a3!])).toEqual([a3]);
    });

    it('pause holds the lane; resume goes on with the head', async () => {
      const { t, endpoint } = await orderedScene();
      const [a1, a2] = await sendAll(t, ['a', 'a']);
      await f.store.endpoints.update(t, endpoint.id, { status: 'paused', changedAt: f.clock.now() });
      const [a3] = await sendAll(t, ['a']);
      expect(await m.dueOf(f.clock.now(), [a1!, a2!, a3!])).toEqual([]);
      await f.store.endpoints.update(t, endpoint.id, { status: 'active', changedAt: f.clock.now(), releaseHeldSince: 0 });
      await f.store.deliveries.releaseHeld(t, endpoint.id, 0, f.clock.now());
      expect(await m.dueOf(f.clock.now(), [a1!, a2!, a3!])).toEqual([a1]);
      await succeed(a1!);
      await succeed(a2!);
      expect(await m.dueOf(f.clock.now(), [a3!])).toEqual([a3]);
    });

    it('switching to none releases the lanes; switching back orders what comes after', async () => {
      const { t, endpoint } = await orderedScene();
      const [a1, a2, a3] = await sendAll(t, ['a', 'a', 'a']);
      expect((await f.store.endpoints.update(t, endpoint.id, { ordering: 'none' }))?.ordering).toBe('none');
      expect(await m.dueOf(f.clock.now(), [a1!, a2!, a3!])).toEqual([a1, a2, a3]);
      const [n1] = await sendAll(t, ['a']);
      expect(await m.delivery(t, n1!)).toMatchObject({ sequence: null, orderingKey: null });
      await f.store.endpoints.update(t, endpoint.id, { ordering: 'key' });
      const [k1, k2] = await sendAll(t, ['a', 'a']);
      expect(await m.dueOf(f.clock.now(), [k1!, k2!])).toEqual([k1]);
      // The lane's numbering goes on from where it was.
      expect((await m.delivery(t, k1!)).sequence).toBe(4);
    });

    it('laneStats counts the lanes with an open head, those whose head waits for a retry, and the oldest head', async () => {
      const before = await f.store.deliveries.laneStats();
      const { t } = await orderedScene();
      const createdAt = f.clock.now();
      const [a1, , b1] = await sendAll(t, ['a', 'a', 'b']);
      const job = await m.claim(b1!);
      await f.store.deliveries.complete(claimRef(job), m.failed(job, f.clock.now(), f.clock.now() + HOUR));
      const during = await f.store.deliveries.laneStats();
      expect(during).toMatchObject({ open: before.open + 2, blocked: before.blocked + 1 });
      expect(during.oldestHeadAt).toBeLessThanOrEqual(createdAt);
      await succeed(a1!);
      expect(await f.store.deliveries.laneStats()).toMatchObject({ open: before.open + 2, blocked: before.blocked + 1 });
    });

    it('laneStats reads at most 1,000 lanes with a head: 999 are counted, a 1,001st is not (the gauge reads "at least")', async () => {
      const before = (await f.store.deliveries.laneStats()).open;
      const { t } = await orderedScene();
      const keys = (n: number, from: number) => Array.from({ length: n }, (_, i) => `lane-${from + i}`);
      if (before < 999) {
        await sendAll(t, keys(999 - before, 0));
        expect((await f.store.deliveries.laneStats()).open).toBe(999);
      }
      await sendAll(t, keys(2, 999));
      expect((await f.store.deliveries.laneStats()).open).toBe(1_000);
    });

    it('retention prunes lanes last used before the cutoff, not at it, nor one with an open head; a pruned key starts again at 1', async () => {
      const { t } = await orderedScene();
      const [a1, a2, c1] = await sendAll(t, ['a', 'a', 'c']);
      await succeed(a1!);
      await succeed(a2!);
      // The cutoff is the creation of b's message: b was used at it, a and c before it.
      const [b1] = await sendAll(t, ['b']);
      await succeed(b1!);
      const cutoff = (await m.delivery(t, b1!)).createdAt;
      await expect(f.store.deliveries.pruneLanes(cutoff, -1)).rejects.toThrow(RangeError);
      expect(await f.store.deliveries.pruneLanes(cutoff, 0)).toBe(0);
      // Bounded: one at a time (other tests' lanes may go first: the store is shared).
      expect(await f.store.deliveries.pruneLanes(cutoff, 1)).toBe(1);
      while ((await f.store.deliveries.pruneLanes(cutoff, 50)) > 0);
      const [a3, b2, c2] = await sendAll(t, ['a', 'b', 'c']);
      expect(await m.delivery(t, a3!)).toMatchObject({ sequence: 1, orderingKey: 'a' });
      expect(await m.delivery(t, b2!)).toMatchObject({ sequence: 2, orderingKey: 'b' });
      // c's head (c1) is open: its lane is kept, and c2 waits behind it.
      expect(await m.delivery(t, c2!)).toMatchObject({ sequence: 2, orderingKey: 'c' });
      expect(await m.dueOf(f.clock.now(), [a3!, b2!, c1!, c2!])).toEqual([c1, a3, b2]);
    });

    it('a recovery re-sends each lane one delivery at a time, in order', async () => {
      const { t, endpoint } = await orderedScene();
      const since = f.clock.now();
      const ids = await sendAll(t, ['a', 'a', 'b']);
      for (const id of ids) {
        for (;;) {
          const job = await m.claim(id);
          const done = await f.store.deliveries.complete(claimRef(job), m.failed(job, f.clock.now()));
          if ((await m.delivery(t, id)).status === 'failed') break;
          expect(done.applied).toBe(true);
          f.clock.advance(HOUR);
        }
      }
      const [a1, a2, b1] = ids;
      f.clock.advance(SECOND);
      const recovery = await f.store.recoveries.start(t, { id: newId('recovery', f.clock), endpointId: endpoint.id, since, createdAt: f.clock.now() });
      let lease = await f.store.recoveries.claim(f.clock.now(), f.clock.now() + LEASE_MS);
      while (lease !== null && lease.recovery.id !== recovery.id) lease = await f.store.recoveries.claim(f.clock.now(), f.clock.now() + LEASE_MS);
      expect(lease).not.toBeNull();
      f.clock.advance(SECOND);
      const step = await f.store.recoveries.step(lease!, f.clock.now(), 50, 50, f.clock.now() + LEASE_MS);
      expect(step.queuedIds).toEqual([a1, a2, b1]);
      expect(await m.dueOf(f.clock.now(), ids)).toEqual([a1, b1]);
      expect(await succeed(a1!)).toMatchObject({ laneNext: a2 });
      expect(await m.dueOf(f.clock.now(), [a2!])).toEqual([a2]);
    });
  });
}
