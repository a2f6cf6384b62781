import { ENDPOINT_WALK_BATCH, type DeliveryId, type EndpointId, type Tenant } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { claimRef } from '../../src/ports/delivery-port.ts';
import { START_SKEW_MS } from '../../src/ports/recovery-port.ts';
import type { Fixtures } from './fixtures.ts';
import { HOUR, MessageFixtures } from './message-fixtures.ts';

/**
 * Bounded work per call (issue 26): a pause, resume or delete changes at most the adapter's
 * request batch (`f.requestWalkBatch`: SQLite's ENDPOINT_WALK_BATCH, 1,000; MongoDB's 100) of
 * the endpoint's deliveries in the call; `walkEndpoints` does the rest in batches of
 * ENDPOINT_WALK_BATCH. Each case has 5 past one walk batch (1,005), checks the call did one
 * request batch, the walk the remainder (5, or 905), and that nothing was sendable that should
 * not be meanwhile.
 */
export function describeEndpointWalkContract(f: Fixtures): void {
  const m = new MessageFixtures(f);
  const N = ENDPOINT_WALK_BATCH + 5;
  /** What the call leaves to the walk (read when the tests run: the fixtures are set by then). */
  const left = () => N - f.requestWalkBatch;

  /** An endpoint with N messages (N open deliveries, due now), every other walk finished. */
  async function backlog(): Promise<{ t: Tenant; endpointId: EndpointId; ids: DeliveryId[] }> {
    const { t, endpoint } = await m.scene();
    const ids: DeliveryId[] = [];
    for (let i = 0; i < N; i++) ids.push(...(await m.send(t)).deliveryIds);
    await drain();
    return { t, endpointId: endpoint.id, ids };
  }

  async function drain(): Promise<void> {
    while ((await f.store.deliveries.walkEndpoints(f.clock.now(), ENDPOINT_WALK_BATCH, 16)).pending);
  }

  describe('endpoint walks: pause, resume and delete in bounded batches', () => {
    it('a pause holds one batch in the call and the rest in the walk; nothing of it is due meanwhile', async () => {
      const { t, endpointId, ids } = await backlog();
      await f.store.endpoints.update(t, endpointId, { status: 'paused' });
      const now = f.clock.now();
      expect(await m.dueOf(now, ids)).toEqual([]);
      expect(await f.store.deliveries.walkEndpoints(now, ENDPOINT_WALK_BATCH, 16)).toEqual({ changed: left(), pending: false });
      expect(await f.store.deliveries.walkEndpoints(now, ENDPOINT_WALK_BATCH, 16)).toEqual({ changed: 0, pending: false });
    });

    it('a resume releases one batch in the call (due at once) and the rest in the walk', async () => {
      const { t, endpointId, ids } = await backlog();
      await f.store.endpoints.update(t, endpointId, { status: 'paused' });
      await drain();
      await f.store.endpoints.update(t, endpointId, { status: 'active' });
      const now = f.clock.now();
      expect(await m.dueOf(now, ids)).toEqual([]); // held until released
      expect(await f.store.deliveries.releaseHeld(t, endpointId, 0, now)).toBe(f.requestWalkBatch);
      expect(await m.dueOf(now, ids)).toHaveLength(f.requestWalkBatch);
      expect(await f.store.deliveries.walkEndpoints(now, ENDPOINT_WALK_BATCH, 16)).toEqual({ changed: left(), pending: false });
      expect((await m.dueOf(now, ids)).sort()).toEqual([...ids].sort());
    });

    it('a resume fails the held deliveries older than heldSince, batch by batch, with their messages', async () => {
      const { t, endpointId, ids } = await backlog();
      await f.store.endpoints.update(t, endpointId, { status: 'paused' });
      await drain();
      await f.store.endpoints.update(t, endpointId, { status: 'active' });
      const now = f.clock.now();
      // Every delivery was made before `now + 1`: all are too old to release.
      expect(await f.store.deliveries.releaseHeld(t, endpointId, now + 1, now)).toBe(0);
      await drain();
      expect(await m.dueOf(now, ids)).toEqual([]);
      for (const id of [ids[0]!, ids[N - 1]!]) expect((await m.delivery(t, id)).status).toBe('failed');
    });

    it('a delete fails one batch in the call and the rest in the walk; none is claimable meanwhile', async () => {
      const { t, endpointId, ids } = await backlog();
      expect(await f.store.endpoints.delete(t, endpointId)).toBe(true);
      const now = f.clock.now();
      expect(await m.dueOf(now, ids)).toEqual([]);
      const open = async () => (await Promise.all(ids.map((id) => m.delivery(t, id)))).filter((d) => d.status !== 'failed').length;
      expect(await open()).toBe(left());
      expect(await f.store.deliveries.walkEndpoints(now, ENDPOINT_WALK_BATCH, 16)).toEqual({ changed: left(), pending: false });
      expect(await open()).toBe(0);
    });

    it('a resume recorded with the status change is finished by the walk even if releaseHeld never runs (a crash between the two)', async () => {
      const { t, endpointId, ids } = await backlog();
      await f.store.endpoints.update(t, endpointId, { status: 'paused' });
      await drain();
      const now = f.clock.now();
      await f.store.endpoints.update(t, endpointId, { status: 'active', changedAt: now, releaseHeldSince: 0 });
      await drain();
      expect(await m.dueOf(f.clock.now(), ids)).toHaveLength(N);
    });

    it('a pause after a resume turns the walk around; a resume with nothing held changes nothing', async () => {
      const { t, endpointId, ids } = await backlog();
      await f.store.endpoints.update(t, endpointId, { status: 'paused' });
      await drain();
      await f.store.endpoints.update(t, endpointId, { status: 'active' });
      await f.store.deliveries.releaseHeld(t, endpointId, 0, f.clock.now());
      await f.store.endpoints.update(t, endpointId, { status: 'paused' }); // the rest still held, a request batch held again
      await drain();
      expect(await m.dueOf(f.clock.now(), ids)).toEqual([]);
      await f.store.endpoints.update(t, endpointId, { status: 'active' });
      expect(await f.store.deliveries.releaseHeld(t, endpointId, 0, f.clock.now())).toBe(f.requestWalkBatch);
      await drain();
      expect(await m.dueOf(f.clock.now(), ids)).toHaveLength(N);
      expect(await f.store.deliveries.releaseHeld(t, endpointId, 0, f.clock.now())).toBe(0);
    });

    it('an automatic disabling fails one batch in the completion and the rest in the walk', async () => {
      const { t, endpointId, ids } = await backlog();
      const now = f.clock.now();
      const job = await m.claim(ids[0]!, now);
      const outcome = m.failed(job, now, now + HOUR, { disableIfFailingSince: now, disabledReason: 'failing' });
      expect(await f.store.deliveries.complete(claimRef(job), outcome)).toEqual({ applied: true, endpointDisabled: true });
      const open = async () => (await Promise.all(ids.map((id) => m.delivery(t, id)))).filter((d) => d.status !== 'failed').length;
      // The completed delivery is failed too: in the batch (SQLite), or by its completion apart from it (MongoDB).
      const leftOpen = await open();
      expect(leftOpen).toBe(f.completedFailedApart ? left() - 1 : left());
      expect(await f.store.deliveries.walkEndpoints(now, ENDPOINT_WALK_BATCH, 16)).toEqual({ changed: leftOpen, pending: false });
      expect(await open()).toBe(0);
      expect((await f.store.endpoints.get(t, endpointId))?.status).toBe('disabled');
    });

    it("leaving disabled ends the disabling's walk there: a delivery made after it is new work, not failed", async () => {
      const { t, endpointId, ids } = await backlog();
      const disabledAt = f.clock.now();
      const job = await m.claim(ids[0]!, disabledAt);
      await f.store.deliveries.complete(
        claimRef(job),
        m.failed(job, disabledAt, disabledAt + HOUR, { disableIfFailingSince: disabledAt, disabledReason: 'x' }),
      );
      // Re-enabled past the start skew, before the walk has finished; then a new message.
      f.clock.advance(START_SKEW_MS + 1_000);
      await f.store.endpoints.update(t, endpointId, { status: 'active', changedAt: f.clock.now() });
      const fresh = m.only(await m.send(t));
      await drain();
      // The first past the completion's batch (and the completed one, which MongoDB fails apart from it), and the last: the walk's.
      const firstOfWalk = f.requestWalkBatch + (f.completedFailedApart ? 1 : 0);
      for (const id of [ids[firstOfWalk]!, ids[N - 1]!]) expect((await m.delivery(t, id)).status).toBe('failed');
      expect(await m.delivery(t, fresh)).toMatchObject({ status: 'pending' });
      expect(await m.dueOf(f.clock.now(), [fresh])).toEqual([fresh]);
    });
  });
}
