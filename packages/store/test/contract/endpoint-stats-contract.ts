import {
  CANCELLED_ATTEMPT_ERROR,
  LATENCY_BOUNDS_MS,
  type Attempt,
  type DeliveryId,
  type EndpointRollup,
  type RollupGrainMs,
  type Tenant,
} from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { claimRef, type AttemptOutcome } from '../../src/ports/delivery-port.ts';
import type { Fixtures } from './fixtures.ts';
import { DAY, HOUR, LEASE_MS, MessageFixtures, MINUTE, SECOND, type Scene } from './message-fixtures.ts';

// The grains and retention written out (the endpoint-health spec), not imported from the code under test.
const FIVE_MINUTES = 5 * MINUTE;
const GRAINS: RollupGrainMs[] = [300_000, 3_600_000];

/** Contract of EndpointStatsRepo: the rollups `deliveries.complete` keeps, their reads, open deliveries, pruning. */
export function describeEndpointStatsContract(f: Fixtures): void {
  const m = new MessageFixtures(f);
  const bucket = (ms: number) => LATENCY_BOUNDS_MS.findIndex((bound) => bound >= ms);

  /** Sends a message in `scene`, claims its delivery at `at` and completes it with an attempt made of `attempt`. */
  async function attemptAt(scene: Scene, at: number, attempt: Partial<Attempt>, status: AttemptOutcome['status'] = 'failed'): Promise<DeliveryId> {
    const id = m.only(await m.send(scene.t, { createdAt: at - SECOND }));
    const job = await m.claim(id, at);
    await f.store.deliveries.complete(claimRef(job), {
      attempt: m.attempt(job.delivery, at, attempt),
      status,
      nextAttemptAt: null,
      countsTowardPolicy: true,
      endpoint: { succeeded: status === 'success' },
    });
    return id;
  }

  const rollups = (t: Tenant, scene: Scene, grain: RollupGrainMs, from: number, to: number): Promise<EndpointRollup[]> =>
    f.store.endpointStats.rollups(t, scene.endpoint.id, grain, from, to);

  /** A time at the start of a fresh hour, after everything the clock has seen. */
  function freshHour(): number {
    f.clock.advance(2 * HOUR);
    const start = Math.floor(f.clock.now() / HOUR) * HOUR + HOUR;
    f.clock.set(start);
    return start;
  }

  describe('endpoint stats: rollups kept by complete', () => {
    it('adds every attempt to its 5-minute and hourly rows: counts by class and a latency histogram', async () => {
      const scene = await m.scene();
      const hour = freshHour();
      await attemptAt(scene, hour + MINUTE, { responseStatus: 200, responseHead: 'OK', durationMs: 40 }, 'success');
      await attemptAt(scene, hour + 2 * MINUTE, { responseStatus: 503, error: 'http_status: 503', durationMs: 90 });
      await attemptAt(scene, hour + 7 * MINUTE, { responseStatus: 404, error: 'http_status: 404', durationMs: 40 });
      await attemptAt(scene, hour + 8 * MINUTE, { responseStatus: null, error: 'timeout: no response within 15 s', durationMs: 15_000 });
      await attemptAt(scene, hour + 9 * MINUTE, { responseStatus: null, error: 'blocked: 10.0.0.1 is a private address', durationMs: 2 });
      await attemptAt(scene, hour + 9 * MINUTE, { responseStatus: null, error: 'auth: token endpoint answered 401: invalid_client', durationMs: 3 });
      // A cancel by the endpoint's transformation sent nothing: in no row, no class, no latency.
      await attemptAt(scene, hour + 9 * MINUTE, { responseStatus: null, error: CANCELLED_ATTEMPT_ERROR, durationMs: 1 }, 'success');
      f.clock.set(hour + 10 * MINUTE);

      const fine = await rollups(scene.t, scene, 300_000, hour, hour + HOUR);
      expect(fine.map((r) => [r.at, r.attempts, r.succeeded])).toEqual([
        [hour, 2, 1],
        [hour + FIVE_MINUTES, 4, 0],
      ]);
      expect(fine[0]?.errors).toEqual({
        http_4xx: 0,
        http_5xx: 1,
        timeout: 0,
        connection: 0,
        tls: 0,
        dns: 0,
        refused: 0,
        relay: 0,
        auth: 0,
        transformation: 0,
      });
      expect(fine[1]?.errors).toEqual({
        http_4xx: 1,
        http_5xx: 0,
        timeout: 1,
        connection: 0,
        tls: 0,
        dns: 0,
        refused: 1,
        relay: 0,
        auth: 1,
        transformation: 0,
      });

      const [hourly] = await rollups(scene.t, scene, 3_600_000, hour, hour + HOUR);
      expect(hourly).toMatchObject({ at: hour, attempts: 6, succeeded: 1 });
      const latency = LATENCY_BOUNDS_MS.map(() => 0);
      for (const ms of [40, 90, 40, 15_000, 2, 3]) latency[bucket(ms)]! += 1;
      expect(hourly?.latency).toEqual(latency);
      expect(latency[bucket(40)]).toBe(2);
    });

    it('counts an attempt whose claim was no longer current: it happened', async () => {
      const scene = await m.scene();
      const hour = freshHour();
      const id = m.only(await m.send(scene.t, { createdAt: hour }));
      const stale = await m.claim(id, hour);
      await m.claim(id, hour + LEASE_MS); // the lease ran out; claimed again
      const done = await f.store.deliveries.complete(claimRef(stale), m.failed(stale, hour + LEASE_MS + SECOND));
      expect(done.applied).toBe(false);
      expect(await rollups(scene.t, scene, 3_600_000, hour, hour + HOUR)).toMatchObject([{ attempts: 1, succeeded: 0, errors: { http_4xx: 0, http_5xx: 1 } }]);
    });

    it('counts each of 64 attempts completed at once (one group commit in SQLite) once, across two 5-minute rows', async () => {
      const scene = await m.scene();
      const hour = freshHour();
      const sent = [];
      for (let i = 0; i < 64; i++) sent.push(m.only(await m.send(scene.t, { createdAt: hour })));
      const jobs = await Promise.all(sent.map((id) => m.claim(id, hour)));
      // 40 in the first five minutes (30 successes, 10 500s), 24 in the next (all 500s).
      await Promise.all(
        jobs.map((job, i) => {
          const at = hour + (i < 40 ? MINUTE : 6 * MINUTE);
          return f.store.deliveries.complete(claimRef(job), i < 30 ? m.succeeded(job, at) : m.failed(job, at));
        }),
      );
      const fine = await rollups(scene.t, scene, 300_000, hour, hour + HOUR);
      expect(fine.map((r) => [r.at, r.attempts, r.succeeded, r.errors.http_5xx])).toEqual([
        [hour, 40, 30, 10],
        [hour + FIVE_MINUTES, 24, 0, 24],
      ]);
      expect((await rollups(scene.t, scene, 3_600_000, hour, hour + HOUR)).map((r) => [r.attempts, r.succeeded, r.errors.http_5xx])).toEqual([[64, 30, 34]]);
    });

    it('reads rows whose bucket starts in [from, to) only, oldest first, and only the tenant’s', async () => {
      const scene = await m.scene();
      const hour = freshHour();
      for (const at of [hour, hour + HOUR, hour + 2 * HOUR]) await attemptAt(scene, at + SECOND, { responseStatus: 200, error: null }, 'success');
      expect((await rollups(scene.t, scene, 3_600_000, hour, hour + 2 * HOUR)).map((r) => r.at)).toEqual([hour, hour + HOUR]);
      expect((await rollups(scene.t, scene, 3_600_000, hour + 1, hour + 3 * HOUR)).map((r) => r.at)).toEqual([hour + HOUR, hour + 2 * HOUR]);
      expect(await rollups(scene.t, scene, 3_600_000, hour + 3 * HOUR, hour + 4 * HOUR)).toEqual([]);
      const other = await f.tenant();
      expect(await rollups(other, scene, 3_600_000, hour, hour + 3 * HOUR)).toEqual([]);
      expect(await rollups({ orgId: scene.t.orgId, env: 'test' }, scene, 3_600_000, hour, hour + 3 * HOUR)).toEqual([]);
    });
  });

  describe('endpoint stats: pending', () => {
    it('counts the endpoint’s open deliveries (held ones too) and names the oldest’s creation; none: 0 and null', async () => {
      const scene = await m.scene();
      expect(await f.store.endpointStats.pending(scene.t, scene.endpoint.id)).toEqual({ count: 0, oldestAt: null });
      const first = await m.send(scene.t);
      const second = await m.send(scene.t);
      await m.send(scene.t);
      const now = f.clock.now();
      const job = await m.claim(m.only(first), now);
      await f.store.deliveries.complete(claimRef(job), m.succeeded(job, now));
      const retrying = await m.claim(m.only(second), now);
      await f.store.deliveries.complete(claimRef(retrying), m.failed(retrying, now, now + HOUR));
      await f.store.endpoints.update(scene.t, scene.endpoint.id, { status: 'paused' });
      expect(await f.store.endpointStats.pending(scene.t, scene.endpoint.id)).toEqual({ count: 2, oldestAt: second.message.createdAt });
      expect(await f.store.endpointStats.pending(await f.tenant(), scene.endpoint.id)).toEqual({ count: 0, oldestAt: null });
    });

    it('names the oldest open delivery’s creation however its deliveries wait: due at creation, put off, retrying due before a younger one', async () => {
      const base = f.clock.now();
      const oldestAt = async (scene: Scene) => (await f.store.endpointStats.pending(scene.t, scene.endpoint.id)).oldestAt;
      // Put off (a claim given back, due in an hour): older than a delivery due at its creation.
      const putOffScene = await m.scene();
      const putOff = await m.claim(m.only(await m.send(putOffScene.t, { createdAt: base - 3 * MINUTE })), base);
      await f.store.deliveries.release(claimRef(putOff), base + HOUR);
      await m.send(putOffScene.t, { createdAt: base - MINUTE });
      expect(await oldestAt(putOffScene)).toBe(base - 3 * MINUTE);
      // Due at its creation, older than one retrying (due in an hour).
      const freshScene = await m.scene();
      await m.send(freshScene.t, { createdAt: base - 3 * MINUTE });
      const retrying = await m.claim(m.only(await m.send(freshScene.t, { createdAt: base - 2 * MINUTE })), base);
      await f.store.deliveries.complete(claimRef(retrying), m.failed(retrying, base, base + HOUR));
      expect(await oldestAt(freshScene)).toBe(base - 3 * MINUTE);
      // Retrying since before a younger delivery was created, due again before that: still the oldest, by its creation.
      const retriedScene = await m.scene();
      const retried = await m.claim(m.only(await m.send(retriedScene.t, { createdAt: base - 3 * MINUTE })), base - 3 * MINUTE);
      await f.store.deliveries.complete(claimRef(retried), m.failed(retried, base - 3 * MINUTE, base - 2 * MINUTE));
      await m.send(retriedScene.t, { createdAt: base - MINUTE });
      expect(await oldestAt(retriedScene)).toBe(base - 3 * MINUTE);
      // Held (its endpoint paused), due at its creation, older than one retrying.
      const heldScene = await m.scene();
      await m.send(heldScene.t, { createdAt: base - 3 * MINUTE });
      const later = await m.claim(m.only(await m.send(heldScene.t, { createdAt: base - 2 * MINUTE })), base);
      await f.store.deliveries.complete(claimRef(later), m.failed(later, base, base + HOUR));
      await f.store.endpoints.update(heldScene.t, heldScene.endpoint.id, { status: 'paused' });
      expect(await oldestAt(heldScene)).toBe(base - 3 * MINUTE);
    });
  });

  describe('endpoint stats: prune', () => {
    it('removes a row once its retention after its bucket ends is over (5-minute rows: a day; hourly: 8 days), not a millisecond before', async () => {
      const scene = await m.scene();
      const hour = freshHour();
      await attemptAt(scene, hour + SECOND, { responseStatus: 200, error: null }, 'success');
      const mine = async () => Promise.all(GRAINS.map(async (g) => (await rollups(scene.t, scene, g, hour, hour + HOUR)).length));
      const pruneAll = async (now: number) => {
        while ((await f.store.endpointStats.prune(now, 1_000)) > 0);
      };
      expect(await mine()).toEqual([1, 1]);
      await pruneAll(hour + FIVE_MINUTES + DAY);
      expect(await mine()).toEqual([1, 1]);
      await pruneAll(hour + FIVE_MINUTES + DAY + 1);
      expect(await mine()).toEqual([0, 1]);
      await pruneAll(hour + HOUR + 8 * DAY);
      expect(await mine()).toEqual([0, 1]);
      await pruneAll(hour + HOUR + 8 * DAY + 1);
      expect(await mine()).toEqual([0, 0]);
    });

    it('removes at most batch rows a call', async () => {
      const scene = await m.scene();
      const hour = freshHour();
      for (let i = 0; i < 3; i++) await attemptAt(scene, hour + i * FIVE_MINUTES + SECOND, { responseStatus: 200, error: null }, 'success');
      const later = hour + 10 * DAY;
      expect(await f.store.endpointStats.prune(later, 2)).toBe(2);
      expect(await f.store.endpointStats.prune(later, 0)).toBe(0);
      let removed = 0;
      for (let n = await f.store.endpointStats.prune(later, 2); n > 0; n = await f.store.endpointStats.prune(later, 2)) {
        expect(n).toBeLessThanOrEqual(2);
        removed += n;
      }
      expect(removed).toBeGreaterThanOrEqual(2);
      expect(await rollups(scene.t, scene, 300_000, hour, hour + HOUR)).toEqual([]);
    });
  });
}
