import { ConflictError, newId, NotFoundError, type DeliveryId, type Tenant } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { claimRef } from '../../src/ports/delivery-port.ts';
import type { RecoveryLease } from '../../src/ports/recovery-port.ts';
import type { Fixtures } from './fixtures.ts';
import { LEASE_MS, MessageFixtures, SECOND, type Scene } from './message-fixtures.ts';

/** Contract of RecoveryRepo: the snapshot at start, one running per endpoint, fenced steps. */
export function describeRecoveryContract(f: Fixtures): void {
  const m = new MessageFixtures(f);

  /** `n` messages to the scene's endpoint whose delivery ended failed; their delivery ids, oldest first. */
  const failedDeliveries = async (scene: Scene, n: number): Promise<DeliveryId[]> => {
    const ids: DeliveryId[] = [];
    for (let i = 0; i < n; i++) {
      const id = m.only(await m.send(scene.t));
      const job = await m.claim(id);
      await f.store.deliveries.complete(claimRef(job), m.failed(job, f.clock.now()));
      ids.push(id);
    }
    return ids;
  };
  const start = (t: Tenant, endpointId: Scene['endpoint']['id'], since: number) =>
    f.store.recoveries.start(t, { id: newId('recovery', f.clock), endpointId, since, createdAt: f.clock.now() });
  /** Claims the scene's recovery (the store may hold other tests' running ones: take until ours). */
  const claimOwn = async (id: string): Promise<RecoveryLease> => {
    const taken: RecoveryLease[] = [];
    try {
      for (;;) {
        const lease = await f.store.recoveries.claim(f.clock.now(), f.clock.now() + LEASE_MS);
        if (lease === null) throw new Error(`recovery ${id} was not claimable`);
        if (lease.recovery.id === id) return lease;
        taken.push(lease);
      }
    } finally {
      for (const other of taken) await f.store.recoveries.release(other);
    }
  };

  describe('recoveries', () => {
    it('start snapshots the endpoint’s failed deliveries of messages created at or after since', async () => {
      const scene = await m.scene();
      const before = await failedDeliveries(scene, 2);
      const since = f.clock.now() + 1;
      const targeted = await failedDeliveries(scene, 3);
      await m.send(scene.t); // pending: not targeted
      const other = await m.hook(scene.t, scene.consumer, { url: 'https://other.example/hook' });
      expect(before).toHaveLength(2);

      const recovery = await start(scene.t, scene.endpoint.id, since);
      expect(recovery).toMatchObject({ endpointId: scene.endpoint.id, since, status: 'running', total: 3, queued: 0, finishedAt: null });
      expect(await f.store.recoveries.get(scene.t, scene.endpoint.id, recovery.id)).toEqual(recovery);
      expect(await f.store.recoveries.latest(scene.t, scene.endpoint.id)).toEqual(recovery);
      expect(await f.store.recoveries.get(scene.t, other.id, recovery.id)).toBeNull();
      expect(await f.store.recoveries.latest(scene.t, other.id)).toBeNull();
      expect(targeted).toHaveLength(3);
    });

    it('nothing to re-send: done at once; unknown endpoint 404; endpoint not active 409; one running per endpoint, even when two start at once', async () => {
      const scene = await m.scene();
      const empty = await start(scene.t, scene.endpoint.id, 0);
      expect(empty).toMatchObject({ status: 'done', total: 0, finishedAt: empty.createdAt });

      await expect(start(scene.t, 'ep_01KAAAAAAAAAAAAAAAAAAAAAAA' as never, 0)).rejects.toBeInstanceOf(NotFoundError);
      await failedDeliveries(scene, 1);
      const results = await Promise.allSettled([start(scene.t, scene.endpoint.id, 0), start(scene.t, scene.endpoint.id, 0)]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(results.find((r) => r.status === 'rejected')?.reason).toBeInstanceOf(ConflictError);

      const paused = await m.hook(scene.t, scene.consumer, { status: 'paused' });
      await expect(start(scene.t, paused.id, 0)).rejects.toBeInstanceOf(ConflictError);
    });

    it('steps queue batches under a fenced lease: failed targets due now with their policy counted afresh, others skipped, done after the last', async () => {
      const scene = await m.scene();
      const ids = await failedDeliveries(scene, 5);
      const recovery = await start(scene.t, scene.endpoint.id, 0);
      // Re-sent by hand meanwhile: no longer failed, so never met (the end counts it as gone through).
      await f.store.deliveries.retryNow(scene.t, ids[1]!, f.clock.now());
      const lease = await claimOwn(recovery.id);
      expect(lease).toMatchObject({ tenant: scene.t, lastBatchAt: null });

      const now = f.clock.now();
      const first = await f.store.recoveries.step(lease, now, 3, 100, now + LEASE_MS);
      expect(first).toMatchObject({ applied: true, recovery: { status: 'running', queued: 3 } });
      expect(first.queuedIds).toEqual([ids[0], ids[2], ids[3]]);
      for (const id of first.queuedIds) {
        expect(await m.delivery(scene.t, id)).toMatchObject({ status: 'retrying', nextAttemptAt: now, policyAttempts: 0, manual: false });
      }
      expect((await f.store.messages.get(scene.t, (await m.delivery(scene.t, ids[0]!)).messageId))?.message.status).toBe('retrying');
      expect(await m.dueOf(now, ids)).toEqual(expect.arrayContaining([ids[0], ids[1], ids[2]]));

      // Another worker took it (the lease ran out): this one's step writes nothing.
      f.clock.advance(LEASE_MS + SECOND);
      const theirs = await claimOwn(recovery.id);
      const stale = await f.store.recoveries.step(lease, f.clock.now(), 3, 100, f.clock.now() + LEASE_MS);
      expect(stale).toMatchObject({ applied: false, queuedIds: [] });
      expect((await f.store.recoveries.get(scene.t, scene.endpoint.id, recovery.id))?.queued).toBe(3);

      const last = await f.store.recoveries.step(theirs, f.clock.now(), 3, 100, f.clock.now() + LEASE_MS);
      expect(last.queuedIds).toEqual([ids[4]]);
      expect(last.recovery).toMatchObject({ status: 'done', queued: 5, total: 5, finishedAt: f.clock.now() });
      // Done: nothing to claim for it.
      await f.store.recoveries.release(theirs);
      expect(
        await f.store.recoveries.start(scene.t, { id: newId('recovery', f.clock), endpointId: scene.endpoint.id, since: 0, createdAt: f.clock.now() }),
      ).toMatchObject({ total: 0 });
    });

    it('a target re-sent by hand after the start and failed again is skipped: not re-queued, its policy not restarted (spec, recover rule 4)', async () => {
      const scene = await m.scene();
      const ids = await failedDeliveries(scene, 3);
      const recovery = await start(scene.t, scene.endpoint.id, 0);
      f.clock.advance(SECOND);
      // ids[1]: retried by hand during the recovery, sent, failed again (its policy spent).
      await f.store.deliveries.retryNow(scene.t, ids[1]!, f.clock.now());
      const job = await m.claim(ids[1]!);
      await f.store.deliveries.complete(claimRef(job), m.failed(job, f.clock.now()));
      const handSent = await m.delivery(scene.t, ids[1]!);
      expect(handSent.status).toBe('failed');

      const lease = await claimOwn(recovery.id);
      const step = await f.store.recoveries.step(lease, f.clock.now(), 50, 100, f.clock.now() + LEASE_MS);
      expect(step.queuedIds).toEqual([ids[0], ids[2]]);
      expect(step.recovery).toMatchObject({ status: 'done', queued: 3, total: 3 });
      expect(await m.delivery(scene.t, ids[1]!)).toEqual(handSent);
    });

    it('a step waits while the endpoint has its slots’ worth of deliveries due or being sent', async () => {
      const scene = await m.scene();
      await failedDeliveries(scene, 2);
      const recovery = await start(scene.t, scene.endpoint.id, 0);
      await m.send(scene.t);
      await m.send(scene.t); // two due now
      const lease = await claimOwn(recovery.id);
      const waiting = await f.store.recoveries.step(lease, f.clock.now(), 50, 2, f.clock.now() + LEASE_MS);
      expect(waiting).toMatchObject({ applied: true, queuedIds: [], recovery: { status: 'running', queued: 0 } });
      const going = await f.store.recoveries.step(lease, f.clock.now(), 50, 5, f.clock.now() + LEASE_MS);
      expect(going.queuedIds).toHaveLength(2);
    });

    it('a paused endpoint stops it at the next step; stop() stops it at once, once', async () => {
      const scene = await m.scene();
      await failedDeliveries(scene, 2);
      const recovery = await start(scene.t, scene.endpoint.id, 0);
      const lease = await claimOwn(recovery.id);
      await f.store.endpoints.update(scene.t, scene.endpoint.id, { status: 'paused' });
      const stopped = await f.store.recoveries.step(lease, f.clock.now(), 50, 100, f.clock.now() + LEASE_MS);
      expect(stopped).toMatchObject({ applied: true, queuedIds: [], recovery: { status: 'stopped', queued: 0, finishedAt: f.clock.now() } });

      await f.store.endpoints.update(scene.t, scene.endpoint.id, { status: 'active' });
      const again = await start(scene.t, scene.endpoint.id, 0);
      expect(await f.store.recoveries.stop(scene.t, scene.endpoint.id, f.clock.now())).toBe(true);
      expect(await f.store.recoveries.stop(scene.t, scene.endpoint.id, f.clock.now())).toBe(false);
      expect((await f.store.recoveries.get(scene.t, scene.endpoint.id, again.id))?.status).toBe('stopped');
    });
  });
}
