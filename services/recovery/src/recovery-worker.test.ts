// The recovery worker against a real (SQLite) store and the in-process bus, with the clock
// moved instead of slept: the spec's pace (50 re-sends every 10 s) on both sides of the 10 s,
// a batch that waits while the endpoint's slots are full (on both sides of the limit), a
// paused endpoint ending it `stopped`, leases handed back on stop or freed at start, and a
// store that fails said once in the log.
import { createLogger } from '@wirehook/platform';
import type { Endpoint, Recovery, Tenant } from '@wirehook/core';
import { jsonLines } from '@wirehook/testkit';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { RecoveryService } from './recovery-service.ts';
import type { RecoveryWorker } from './recovery-worker.ts';
import { RecoveryScene } from './testing/recovery-scene.ts';

const SECOND = 1_000;
let scene: RecoveryScene;
const workers: RecoveryWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  await scene?.close();
});

function start(): RecoveryScene {
  scene = new RecoveryScene();
  return scene;
}
function worker(options: Parameters<RecoveryScene['worker']>[0] = {}): RecoveryWorker {
  const w = scene.worker(options);
  workers.push(w);
  return w;
}
/** An endpoint with `n` failed deliveries and a recovery of them; the delivery ids oldest first. */
async function recovering(n: number): Promise<{ t: Tenant; ep: Endpoint; ids: Awaited<ReturnType<RecoveryScene['failed']>>; recovery: Recovery }> {
  const t = await scene.tenant();
  const ep = await scene.endpoint(t);
  const ids = await scene.failed(t, ep, n);
  const service = new RecoveryService({ store: scene.store, clock: scene.clock, retentionMonths: 3 });
  const recovery = await service.start(t, ep.id, scene.clock.now() - 60 * SECOND);
  return { t, ep, ids, recovery };
}
const progress = async (r: { t: Tenant; ep: Endpoint; recovery: Recovery }) => scene.store.recoveries.get(r.t, r.ep.id, r.recovery.id);
/** Until the bus has carried `n` dispatch jobs (publishing is awaited, handing out is not). */
const published = (n: number) => expect.poll(() => scene.jobs.length).toBe(n);
const metric = async (registry: Registry, name: string) => (await registry.getSingleMetric(name)!.get()).values[0]?.value;

describe('the pace: 50 every 10 s', () => {
  it('queues the oldest 50 at once, the next 50 no sooner than 10 s later, the rest after another 10 s, then ends done', async () => {
    const s = start();
    const registry = new Registry();
    const { destination, lines } = jsonLines();
    const w = worker({ registry, logger: createLogger({ name: 'recovery', destination, format: 'json' }) });
    const r = await recovering(120);

    await w.tick();
    await published(50);
    expect(s.jobs).toEqual(r.ids.slice(0, 50));
    expect(await s.status(r.t, r.ids[0]!)).toBe('retrying');
    expect(await s.status(r.t, r.ids[50]!)).toBe('failed');
    expect(await progress(r)).toMatchObject({ status: 'running', queued: 50 });
    expect(await metric(registry, 'wirehook_recovery_driven')).toBe(1);
    await s.deliver(r.ids.slice(0, 50));

    s.clock.advance(10 * SECOND - 1);
    await w.tick();
    expect(await progress(r)).toMatchObject({ queued: 50 });
    expect(await s.status(r.t, r.ids[50]!)).toBe('failed');

    s.clock.advance(1);
    await w.tick();
    await published(100);
    expect(s.jobs.slice(50)).toEqual(r.ids.slice(50, 100));
    await s.deliver(r.ids.slice(50, 100));

    s.clock.advance(10 * SECOND);
    await w.tick();
    await published(120);
    expect(await progress(r)).toMatchObject({ status: 'done', total: 120, queued: 120, finishedAt: s.clock.now() });
    expect(await metric(registry, 'wirehook_recovery_queued_total')).toBe(120);
    expect(await metric(registry, 'wirehook_recovery_driven')).toBe(0);
    expect(lines.find((l) => l['msg'] === 'recovery done')).toMatchObject({ recoveryId: r.recovery.id, status: 'done', total: 120, queued: 120 });

    s.clock.advance(10 * SECOND);
    await w.tick();
    expect(s.jobs).toHaveLength(120); // done: nothing more
  });

  it('drives several recoveries in the same tick, each at its own pace', async () => {
    const s = start();
    const w = worker();
    const a = await recovering(2);
    const b = await recovering(3);
    await w.tick();
    await published(5);
    expect(new Set(s.jobs)).toEqual(new Set([...a.ids, ...b.ids]));
    expect(await progress(a)).toMatchObject({ status: 'done', queued: 2 });
    expect(await progress(b)).toMatchObject({ status: 'done', queued: 3 });
  });
});

describe('endpoint slots', () => {
  it('a batch waits while the endpoint has ENDPOINT_SLOTS deliveries due; at one fewer it goes, without another 10 s', async () => {
    const s = start();
    const w = worker({ endpointSlots: 16 });
    const r = await recovering(60);
    await w.tick();
    await published(50);

    s.clock.advance(10 * SECOND);
    await s.deliver(r.ids.slice(0, 34)); // 16 still due: full
    await w.tick();
    expect(await progress(r)).toMatchObject({ status: 'running', queued: 50 });
    expect(await s.status(r.t, r.ids[50]!)).toBe('failed');

    await s.deliver(r.ids.slice(34, 35)); // 15 due: a slot is free
    await w.tick();
    await published(60);
    expect(await progress(r)).toMatchObject({ status: 'done', queued: 60 });
  });
});

describe('an endpoint paused mid-way', () => {
  it('ends the recovery stopped at its next step, with queued < total; nothing more is queued', async () => {
    const s = start();
    const w = worker();
    const r = await recovering(60);
    await w.tick();
    await published(50);
    await s.store.endpoints.update(r.t, r.ep.id, { status: 'paused', changedAt: s.clock.now() });

    s.clock.advance(10 * SECOND);
    await w.tick();
    expect(await progress(r)).toMatchObject({ status: 'stopped', total: 60, queued: 50, finishedAt: s.clock.now() });
    s.clock.advance(10 * SECOND);
    await w.tick();
    expect(s.jobs).toHaveLength(50);
    expect(await s.status(r.t, r.ids[50]!)).toBe('failed');
  });
});

describe('leases', () => {
  it('a worker that stops hands its recoveries back: another takes over at once and keeps the pace', async () => {
    const s = start();
    const first = worker();
    const heir = worker();
    const r = await recovering(60);
    await first.tick();
    await published(50);
    await s.deliver(r.ids.slice(0, 50));
    await heir.tick(); // leased to the first
    await first.stop();

    s.clock.advance(10 * SECOND - 1);
    await heir.tick(); // its now, but the pace counts from the first's batch
    expect(await progress(r)).toMatchObject({ status: 'running', queued: 50 });
    s.clock.advance(1);
    await heir.tick();
    await published(60);
    expect(await progress(r)).toMatchObject({ status: 'done', queued: 60 });
  });

  it('a stop during a tick steps no further recovery (its wake-ups may wait out a NATS outage): the rest are handed back unstepped', async () => {
    const s = start();
    const w = worker();
    const a = await recovering(2);
    const b = await recovering(3);
    // The first step's wake-ups wait (NATS away) until the test lets them go.
    let letGo = () => {};
    const waiting = new Promise<void>((resolve) => (letGo = resolve));
    const publish = s.bus.publish.bind(s.bus);
    let stepsPublishing = 0;
    s.bus.publish = async (...args) => {
      if (stepsPublishing++ === 0) await waiting;
      return publish(...args);
    };
    const tick = w.tick();
    await expect.poll(() => stepsPublishing).toBeGreaterThan(0);
    const stopped = w.stop();
    letGo();
    await tick;
    await stopped;
    // One recovery stepped (the one under way when the stop came), the other not, and handed back.
    const queued = [(await progress(a))!.queued, (await progress(b))!.queued].sort();
    expect(queued).toEqual([0, expect.any(Number)]);
    expect(queued[1]).toBeGreaterThan(0);
    const heir = worker();
    await heir.tick();
    await published(5);
  });

  it('a stopped worker claims nothing more (a tick that came after its stop): another takes the recovery at once', async () => {
    start();
    const stopped = worker();
    const heir = worker();
    const r = await recovering(3);
    await stopped.stop();
    await stopped.tick();
    expect(await progress(r)).toMatchObject({ status: 'running', queued: 0 });
    await heir.tick(); // free, not leased to a worker that is gone
    await published(3);
  });

  it('one that dies keeps its lease a minute; a sole worker (embedded mode) frees every lease at start', async () => {
    const s = start();
    const dead = worker();
    const r = await recovering(60);
    await dead.tick();
    await published(50);
    await s.deliver(r.ids.slice(0, 50));
    s.clock.advance(10 * SECOND);

    const replica = worker({ releaseLeasesAtStart: false });
    await replica.start();
    await replica.tick();
    expect(await progress(r)).toMatchObject({ queued: 50 }); // the dead one's for a minute

    const sole = worker({ releaseLeasesAtStart: true });
    await sole.start();
    await sole.tick();
    await published(60);
    expect(await progress(r)).toMatchObject({ status: 'done', queued: 60 });
  });
});

describe('a store that fails', () => {
  it('a tick neither throws nor logs more than once: one warning saying recoveries wait', async () => {
    const s = start();
    const { destination, lines } = jsonLines();
    const w = worker({ logger: createLogger({ name: 'recovery', destination, format: 'json' }) });
    await recovering(1);
    await s.storeOutage();
    await w.tick();
    s.clock.advance(SECOND);
    await w.tick();
    expect(lines.map((l) => l['msg'])).toEqual(['recovery store calls failing: recoveries wait; their progress is in the store']);
    expect(lines[0]).toMatchObject({ level: 40 });
  });
});
