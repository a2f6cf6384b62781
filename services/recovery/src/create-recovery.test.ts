// The factory both composition roots (embedded mode, the recovery process) call: the service
// gets RETENTION_MONTHS, the worker ENDPOINT_SLOTS and its own timer (a second by default —
// an explicit `tickMs: undefined` must not become a setTimeout of 0), and `soleWorker` frees
// a dead run's leases at start.
import { InvalidError } from '@wirehook/core';
import { silentLogger } from '@wirehook/platform';
import { afterEach, describe, expect, it } from 'vitest';
import { createRecovery } from './create-recovery.ts';
import type { RecoveryWorker } from './recovery-worker.ts';
import { RecoveryScene } from './testing/recovery-scene.ts';

let scene: RecoveryScene;
const workers: RecoveryWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  await scene?.close();
});

function build(config: { ENDPOINT_SLOTS?: number; RETENTION_MONTHS?: number } = {}, deps: { soleWorker?: boolean; tickMs?: number } = {}) {
  const built = createRecovery(
    { ENDPOINT_SLOTS: config.ENDPOINT_SLOTS ?? 16, RETENTION_MONTHS: config.RETENTION_MONTHS ?? 3 },
    { store: scene.store, bus: scene.bus, clock: scene.clock, logger: silentLogger(), soleWorker: deps.soleWorker ?? false, tickMs: deps.tickMs },
  );
  workers.push(built.worker);
  return built;
}
/** A recovery of `n` failed deliveries, started through `service`. */
async function recovering(service: ReturnType<typeof build>['service'], n: number) {
  const t = await scene.tenant();
  const ep = await scene.endpoint(t);
  const ids = await scene.failed(t, ep, n);
  return { t, ep, ids, recovery: await service.start(t, ep.id, scene.clock.now() - 60_000) };
}
const realTime = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createRecovery', () => {
  it('the service keeps RETENTION_MONTHS: with 1, the window opens at the current UTC month', async () => {
    scene = new RecoveryScene(Date.UTC(2026, 4, 12, 9, 0, 0));
    const { service } = build({ RETENTION_MONTHS: 1 });
    const t = await scene.tenant();
    const ep = await scene.endpoint(t);
    const may = Date.UTC(2026, 4, 1);
    await expect(service.start(t, ep.id, may - 1)).rejects.toThrow(
      new InvalidError(`since: must lie inside the retention period (1 months: at or after ${may})`),
    );
    await expect(service.start(t, ep.id, may)).resolves.toMatchObject({ since: may });
  });

  it('the worker ticks on its own: every tickMs when given; without one, not before its default second', async () => {
    scene = new RecoveryScene();
    const quick = build({}, { tickMs: 20 });
    const r = await recovering(quick.service, 1);
    await quick.worker.start();
    await expect.poll(() => scene.jobs, { timeout: 2_000 }).toEqual(r.ids);
    expect(scene.jobTenants).toEqual(r.ids.map(() => r.t));

    await quick.worker.stop();
    const idle = build({}, { tickMs: undefined });
    const other = await recovering(idle.service, 1);
    await idle.worker.start();
    await realTime(300);
    expect(await scene.status(other.t, other.ids[0]!)).toBe('failed'); // not queued yet
    await expect.poll(() => scene.status(other.t, other.ids[0]!), { timeout: 3_000 }).toBe('retrying');
  });

  it('ENDPOINT_SLOTS reaches the worker: with 1, the second batch waits for the one delivery still due', async () => {
    scene = new RecoveryScene();
    const { service, worker } = build({ ENDPOINT_SLOTS: 1 });
    const r = await recovering(service, 51);
    await worker.tick();
    scene.clock.advance(10_000);
    await scene.deliver(r.ids.slice(0, 49)); // one of the first 50 still due: the endpoint's one slot is taken
    await worker.tick();
    expect(await scene.status(r.t, r.ids[50]!)).toBe('failed');
    await scene.deliver(r.ids.slice(49, 50));
    await worker.tick();
    expect(await scene.status(r.t, r.ids[50]!)).toBe('retrying');
  });

  it('soleWorker frees the leases a dead run left, at start; a replica does not', async () => {
    scene = new RecoveryScene();
    const dead = build();
    const r = await recovering(dead.service, 51);
    await dead.worker.tick(); // holds the lease, then never ticks again
    await scene.deliver(r.ids.slice(0, 50));
    scene.clock.advance(10_000);

    const replica = build({}, { soleWorker: false }).worker;
    await replica.start();
    await replica.tick();
    expect(await scene.status(r.t, r.ids[50]!)).toBe('failed');

    const sole = build({}, { soleWorker: true }).worker;
    await sole.start();
    await sole.tick();
    expect(await scene.status(r.t, r.ids[50]!)).toBe('retrying');
  });
});
