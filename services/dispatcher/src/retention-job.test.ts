// Retention against a real (SQLite) store: one replica deletes at a time (a store lease), and
// hands over when the holder stops renewing it.
import { claimRef } from '@wirehook/store';
import { randomUUID } from 'node:crypto';
import { ManualClock, PORTAL_TOKEN_KEPT_AFTER_EXPIRY_MS } from '@wirehook/core';
import { createLogger, silentLogger } from '@wirehook/platform';
import { jsonLines } from '@wirehook/testkit';
import { openSqliteStore, type Store } from '@wirehook/store';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Fixtures } from '../../../packages/store/test/contract/fixtures.ts';
import { MessageFixtures } from '../../../packages/store/test/contract/message-fixtures.ts';
import { CLOCKS_APART_MS, CLOCKS_WARN_EVERY_MS, RETENTION_DUTY, RetentionJob, restAfter } from './retention-job.ts';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
let store: Store;
const clock = new ManualClock(Date.UTC(2026, 0, 15));
const f = new Fixtures(() => store, clock);
const m = new MessageFixtures(f);

beforeAll(() => {
  store = openSqliteStore({ path: ':memory:' });
});
afterAll(() => store.close());

it('one replica at a time: the other does nothing while the lease is held, and takes over once it lapses', async () => {
  const { t } = await m.scene();
  for (let i = 0; i < 3; i++) await m.send(t);
  clock.advance(5 * 31 * DAY); // past the 3-month window
  const job = (holder: string) => new RetentionJob({ store, clock, logger: silentLogger(), retentionMonths: 3, intervalMs: MINUTE, holder });
  const [a, b] = [job('a'), job('b')];
  expect(await b.runOnce()).toBe(3);
  await m.send(t); // now: kept
  const { t: t2 } = await m.scene();
  clock.set(clock.now() - 4 * 31 * DAY); // older messages of another tenant…
  await m.send(t2);
  clock.advance(4 * 31 * DAY); // …back to now: one message past the window again
  expect(await a.runOnce()).toBe(0); // b holds the lease (2 minutes)
  clock.advance(2 * MINUTE);
  expect(await a.runOnce()).toBe(1); // b stopped renewing: a takes over
});

it('a replica that stops gives the lease up: another takes over at once, not after it lapses', async () => {
  const { t } = await m.scene();
  clock.advance(3 * DAY); // past the earlier tests' leases (two days at most)
  const job = (holder: string) => new RetentionJob({ store, clock, logger: silentLogger(), retentionMonths: 3, intervalMs: MINUTE, holder });
  const [a, b] = [job('handing'), job('taking')];
  expect(await a.runOnce()).toBe(0); // a holds the lease (2 minutes)
  clock.set(clock.now() - 4 * 31 * DAY);
  await m.send(t); // past the window once the clock is back
  clock.advance(4 * 31 * DAY);
  expect(await b.runOnce()).toBe(0);
  await a.stop();
  expect(await a.runOnce()).toBe(0); // stopped: takes no lease again
  expect(await b.runOnce()).toBe(1);
});

it("deletes everything past the window in one run, resting three times each batch's time after it", async () => {
  const { t } = await m.scene();
  const batch = 2;
  clock.set(Date.UTC(2026, 0, 15));
  for (let i = 0; i < 7; i++) await m.send(t);
  clock.advance(5 * 31 * DAY);
  const rests: number[] = [];
  const job = new RetentionJob({
    store,
    clock,
    logger: silentLogger(),
    retentionMonths: 3,
    intervalMs: MINUTE,
    holder: 'paced',
    batch,
    rest: async (ms) => void rests.push(ms),
  });
  // 7 at 2 a batch: three full batches, each followed by a rest, then the last (1) catches up.
  expect(await job.runOnce()).toBe(7);
  expect(rests.filter((_, i) => i < 3)).toHaveLength(3);
  expect(rests.every((ms) => ms >= 0)).toBe(true);
  expect(await job.runOnce()).toBe(0);
});

it('rests three times what a batch took: deleting is RETENTION_DUTY (a quarter) of the time', () => {
  expect(RETENTION_DUTY).toBe(0.25);
  expect(restAfter(10)).toBe(30);
  expect(restAfter(0)).toBe(0);
  expect(restAfter(-1)).toBe(0); // a clock that stepped back rests nothing, never negatively
  expect(restAfter(10, 0.5)).toBe(10);
});

it('stops between batches when the job stops, cutting its rest short', async () => {
  const { t } = await m.scene();
  clock.set(Date.UTC(2026, 0, 15));
  for (let i = 0; i < 6; i++) await m.send(t);
  clock.advance(5 * 31 * DAY + DAY); // past the window, and past the earlier tests' leases
  let batches = 0;
  const job = new RetentionJob({
    store,
    clock,
    logger: silentLogger(),
    retentionMonths: 3,
    intervalMs: 24 * 60 * MINUTE, // the timer never fires in the test
    holder: 'stopping',
    batch: 2,
    // The first rest is where the job is stopped: it resolves only on the abort.
    rest: (_ms, signal) => {
      batches++;
      return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    },
  });
  let settled = false;
  const running = job.runOnce().finally(() => (settled = true));
  while (batches === 0 && !settled) await new Promise((resolve) => setTimeout(resolve, 1));
  await job.stop();
  expect(await running).toBe(2);
  expect(batches).toBe(1);
});

it('prunes endpoint rollups past their retention, a batch at a time, and keeps newer ones', async () => {
  const scene = await m.scene();
  clock.set(Date.UTC(2026, 7, 1));
  for (let i = 0; i < 3; i++) {
    const job = await m.claim(m.only(await m.send(scene.t)), clock.now());
    await store.deliveries.complete(claimRef(job), m.succeeded(job, clock.now()));
    clock.advance(5 * MINUTE);
  }
  const hour = Date.UTC(2026, 7, 1);
  const rows = (grain: 300_000 | 3_600_000) => store.endpointStats.rollups(scene.t, scene.endpoint.id, grain, hour, hour + 60 * MINUTE);
  expect((await rows(300_000)).length).toBe(3);
  // A day and a bit later the 5-minute rows are past their retention; the hourly one is kept (8 days).
  clock.set(hour + 2 * DAY);
  const job = new RetentionJob({ store, clock, logger: silentLogger(), retentionMonths: 3, intervalMs: MINUTE, holder: 'rollups', batch: 2 });
  await job.runOnce();
  expect(await rows(300_000)).toEqual([]);
  expect((await rows(3_600_000)).length).toBe(1);
  clock.set(hour + 10 * DAY);
  await job.runOnce();
  expect(await rows(3_600_000)).toEqual([]);
});

it(`removes portal tokens ${PORTAL_TOKEN_KEPT_AFTER_EXPIRY_MS / 60_000} minutes past their expiry, a batch at a time; keeps newer ones`, async () => {
  const scene = await m.scene();
  const now = Date.UTC(2026, 8, 1);
  clock.set(now);
  const token = (expiresAt: number) => ({
    hash: `h-${randomUUID()}`,
    tenant: scene.t,
    consumerId: scene.consumer.id,
    frameOrigin: null,
    locale: null,
    createdAt: expiresAt - 15 * MINUTE,
    expiresAt,
  });
  expect(PORTAL_TOKEN_KEPT_AFTER_EXPIRY_MS).toBe(60 * MINUTE);
  const old = [1, 2, 3].map((n) => token(now - 60 * MINUTE - n));
  const kept = [token(now - 60 * MINUTE), token(now - MINUTE), token(now + MINUTE)];
  for (const t of [...old, ...kept]) await store.portalTokens.create(t);
  await new RetentionJob({ store, clock, logger: silentLogger(), retentionMonths: 3, intervalMs: MINUTE, holder: 'tokens', batch: 2 }).runOnce();
  for (const t of old) expect(await store.portalTokens.find(t.hash)).toBeNull();
  for (const t of kept) expect(await store.portalTokens.find(t.hash)).toEqual(t);
});

it('prunes ordered lanes idle since before the cutoff once the old messages are gone, a batch at a time', async () => {
  const scene = await m.scene();
  await store.endpoints.update(scene.t, scene.endpoint.id, { ordering: 'key' });
  clock.set(Date.UTC(2027, 0, 10));
  const keys = ['k1', 'k2', 'k3', 'k4', 'k5'];
  for (const key of keys) {
    const job = await m.claim(m.only(await m.send(scene.t, { orderingKey: key })), clock.now());
    await store.deliveries.complete(claimRef(job), m.succeeded(job, clock.now()));
  }
  clock.set(Date.UTC(2027, 3, 30)); // the window starts 2027-02-01: k1–k4 idle since before it
  const kept = m.only(await m.send(scene.t, { orderingKey: 'k5' }));
  const job = new RetentionJob({ store, clock, logger: silentLogger(), retentionMonths: 3, intervalMs: MINUTE, holder: 'lanes', batch: 2 });
  // Five old messages at two a batch: caught up in the run, then the lanes two at a time.
  await job.runOnce();
  const sequences = [];
  for (const key of ['k1', 'k4', 'k5']) sequences.push((await m.delivery(scene.t, m.only(await m.send(scene.t, { orderingKey: key })))).sequence);
  expect(sequences).toEqual([1, 1, 3]);
  expect((await m.delivery(scene.t, kept)).sequence).toBe(2);
});

it("deletes only what the store's clock at its lease's take and the replica's both find past the window: either ahead deletes nothing kept", async () => {
  const { t } = await m.scene();
  clock.set(Date.UTC(2026, 3, 15));
  await m.send(t); // kept for 3 months
  const { destination, lines } = jsonLines();
  const logger = createLogger({ name: 'dispatcher', level: 'info', destination });
  const pruned: number[] = [];
  const byServer = (at: number): Store => {
    // The store's jobs answer as MongoDB's would: held, at the server's time.
    const jobs: Store['jobs'] = {
      take: async (name, holder, now, until) => ((await store.jobs.take(name, holder, now, until)) === null ? null : { at }),
      release: (name, holder) => store.jobs.release(name, holder),
    };
    const endpointStats = Object.assign(Object.create(store.endpointStats) as Store['endpointStats'], {
      prune: (now: number, limit: number) => {
        pruned.push(now);
        return store.endpointStats.prune(now, limit);
      },
    });
    return Object.assign(Object.create(store) as Store, { jobs, endpointStats });
  };
  const run = async (serverAt: number, holder: string) => {
    const job = new RetentionJob({ store: byServer(serverAt), clock, logger, retentionMonths: 3, intervalMs: MINUTE, holder });
    const removed = await job.runOnce();
    await job.stop();
    return removed;
  };
  const april = Date.UTC(2026, 3, 16);
  const september = april + 5 * 31 * DAY;
  clock.set(september); // this replica's clock: five months ahead of the server's
  expect(await run(april, 'replica-ahead')).toBe(0);
  expect(pruned.at(-1)).toBe(april); // the rollups' age by the earlier clock too
  clock.set(april); // the server's clock five months ahead of this replica's
  expect(await run(september, 'server-ahead')).toBe(0);
  expect(pruned.at(-1)).toBe(april);
  const warned = lines.filter((line) => String(line['msg']).includes("clock and the store's disagree"));
  expect(warned.map((line) => [line['replicaTime'], line['storeTime']])).toEqual([
    [new Date(september).toISOString(), new Date(april).toISOString()],
    [new Date(april).toISOString(), new Date(september).toISOString()],
  ]);
  clock.set(september + 1_000); // both past the window: deleted, and no warning
  expect(await run(september, 'both-agree')).toBe(1);
  expect(pruned.at(-1)).toBe(september);
  expect(lines.filter((line) => String(line['msg']).includes("clock and the store's disagree"))).toHaveLength(2);
});

it('warns when the two clocks are over a minute apart, not at a minute, and again each hour while they stay apart', async () => {
  expect([CLOCKS_APART_MS, CLOCKS_WARN_EVERY_MS]).toEqual([60_000, 3_600_000]);
  const { destination, lines } = jsonLines();
  const logger = createLogger({ name: 'dispatcher', level: 'info', destination });
  let offset = 0; // the store's time less the replica's
  const jobs: Store['jobs'] = {
    take: async (name, holder, now, until) => ((await store.jobs.take(name, holder, now, until)) === null ? null : { at: now + offset }),
    release: (name, holder) => store.jobs.release(name, holder),
  };
  const job = new RetentionJob({
    store: Object.assign(Object.create(store) as Store, { jobs }),
    clock,
    logger,
    retentionMonths: 3,
    intervalMs: MINUTE,
    holder: 'clocks',
  });
  const warnings = () => lines.filter((line) => String(line['msg']).includes('disagree by over a minute')).length;
  clock.set(Date.UTC(2026, 6, 1));
  offset = -60_000; // a minute behind: no warning
  await job.runOnce();
  offset = 60_000; // a minute ahead: none either
  await job.runOnce();
  expect(warnings()).toBe(0);
  offset = -60_001;
  await job.runOnce();
  expect(warnings()).toBe(1);
  clock.advance(CLOCKS_WARN_EVERY_MS - 1);
  await job.runOnce(); // still apart, within the hour: once only
  expect(warnings()).toBe(1);
  clock.advance(1);
  await job.runOnce(); // an hour on: again
  expect(warnings()).toBe(2);
  offset = 0;
  await job.runOnce(); // agreed: the next parting warns at once
  offset = 60_001;
  await job.runOnce();
  expect(warnings()).toBe(3);
  await job.stop();
});

it("takes its lease once to start a run, not again before the run's first batch", async () => {
  let takes = 0;
  const jobs: Store['jobs'] = {
    take: (name, holder, now, until) => {
      takes++;
      return store.jobs.take(name, holder, now, until);
    },
    release: (name, holder) => store.jobs.release(name, holder),
  };
  clock.advance(3 * DAY); // past the earlier tests' leases
  const job = new RetentionJob({
    store: Object.assign(Object.create(store) as Store, { jobs }),
    clock,
    logger: silentLogger(),
    retentionMonths: 3,
    intervalMs: MINUTE,
    holder: 'once',
  });
  await job.runOnce();
  await job.stop();
  // The start's take serves the messages' first batch; the lanes', the rollups' and the portal tokens' phases renew it once each.
  expect(takes).toBe(4);
});

it('keeps the month that left the window for its first hour (a writer whose clock is behind may still file into it), then deletes it', async () => {
  const { t } = await m.scene();
  clock.set(Date.UTC(2027, 9, 15)); // 15 October 2027
  const job = new RetentionJob({ store, clock, logger: silentLogger(), retentionMonths: 1, intervalMs: MINUTE, holder: 'margin' });
  await job.runOnce(); // the earlier tests' messages go
  await m.send(t);
  clock.set(Date.UTC(2027, 10, 1, 0, 59)); // 1 November, 00:59: October left the one-month window 59 minutes ago
  expect(await job.runOnce()).toBe(0);
  clock.set(Date.UTC(2027, 10, 1, 1, 0) + 3 * MINUTE); // past the hour (and the lease of the run before)
  expect(await job.runOnce()).toBe(1);
});
