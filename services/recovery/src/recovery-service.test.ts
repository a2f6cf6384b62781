// Starting a recovery against a real (SQLite) store with the clock moved: `since` on both
// sides of "now" and of the retention window's start (the spec's 3 months written here, the
// window opening at a UTC month start), at a month's end; the store's refusals pass through;
// a recovery is read only in its tenant and endpoint.
import { ConflictError, InvalidError, NotFoundError, type EndpointId, type RecoveryId } from '@wirehook/core';
import { afterEach, describe, expect, it } from 'vitest';
import { RecoveryService } from './recovery-service.ts';
import { RecoveryScene } from './testing/recovery-scene.ts';

const RETENTION_MONTHS = 3;
let scene: RecoveryScene;
afterEach(() => scene?.close());

function start(at?: number): { s: RecoveryScene; service: RecoveryService } {
  scene = new RecoveryScene(at);
  return { s: scene, service: new RecoveryService({ store: scene.store, clock: scene.clock, retentionMonths: RETENTION_MONTHS }) };
}

describe('RecoveryService.start', () => {
  it('snapshots the failed deliveries since `since` and returns the running recovery, as get reads it back', async () => {
    const { s, service } = start();
    const t = await s.tenant();
    const ep = await s.endpoint(t);
    await s.failed(t, ep, 1);
    s.clock.advance(1_000);
    const since = s.clock.now();
    await s.failed(t, ep, 3);
    s.clock.advance(1_000);

    const recovery = await service.start(t, ep.id, since);
    expect(recovery).toEqual({
      id: expect.stringMatching(/^rcv_/),
      endpointId: ep.id,
      since,
      status: 'running',
      total: 3,
      queued: 0,
      createdAt: s.clock.now(),
      finishedAt: null,
    });
    expect(await service.get(t, ep.id, recovery.id)).toEqual(recovery);
  });

  it('since: a millisecond before now is accepted; now, or later, is refused (the spec: "before now")', async () => {
    const { s, service } = start();
    const t = await s.tenant();
    const ep = await s.endpoint(t);
    await expect(service.start(t, ep.id, s.clock.now() + 1)).rejects.toThrow(new InvalidError('since: must be before now'));
    await expect(service.start(t, ep.id, s.clock.now())).rejects.toThrow(new InvalidError('since: must be before now'));
    await expect(service.start(t, ep.id, s.clock.now() - 1)).resolves.toMatchObject({ since: s.clock.now() - 1, status: 'done', total: 0 });
  });

  // The window opens at the start of the UTC month two months before the current one.
  it.each([
    ['mid-May', Date.UTC(2026, 4, 12, 9, 0, 0), Date.UTC(2026, 2, 1)],
    ['the last millisecond of March', Date.UTC(2026, 3, 1) - 1, Date.UTC(2026, 0, 1)],
    ['the first millisecond of April', Date.UTC(2026, 3, 1), Date.UTC(2026, 1, 1)],
    ['New Year', Date.UTC(2027, 0, 1), Date.UTC(2026, 10, 1)],
  ])('at %s: since at the window’s first millisecond is accepted, one before it is refused, naming the window', async (_when, now, oldest) => {
    const { s, service } = start(now);
    const t = await s.tenant();
    const ep = await s.endpoint(t);
    await expect(service.start(t, ep.id, oldest - 1)).rejects.toThrow(
      new InvalidError(`since: must lie inside the retention period (3 months: at or after ${oldest})`),
    );
    await expect(service.start(t, ep.id, oldest)).resolves.toMatchObject({ since: oldest });
  });

  it('the store’s refusals pass through: an unknown endpoint (404), a second running recovery and a paused endpoint (409)', async () => {
    const { s, service } = start();
    const t = await s.tenant();
    const ep = await s.endpoint(t);
    await s.failed(t, ep, 1);
    const since = s.clock.now() - 60_000;
    await expect(service.start(t, 'ep_01KAAAAAAAAAAAAAAAAAAAAAAA' as EndpointId, since)).rejects.toBeInstanceOf(NotFoundError);
    await service.start(t, ep.id, since);
    await expect(service.start(t, ep.id, since)).rejects.toThrow(ConflictError);

    const paused = await s.endpoint(t);
    await s.store.endpoints.update(t, paused.id, { status: 'paused', changedAt: s.clock.now() });
    await expect(service.start(t, paused.id, since)).rejects.toThrow(/paused/);
  });
});

describe('RecoveryService.get', () => {
  it('reads a recovery only in its own tenant and endpoint; an unknown id is null', async () => {
    const { s, service } = start();
    const t = await s.tenant();
    const ep = await s.endpoint(t);
    const other = await s.endpoint(t);
    await s.failed(t, ep, 1);
    const recovery = await service.start(t, ep.id, s.clock.now() - 60_000);

    expect(await service.get(t, ep.id, recovery.id)).toMatchObject({ id: recovery.id });
    expect(await service.get(t, other.id, recovery.id)).toBeNull();
    expect(await service.get({ ...t, env: 'test' }, ep.id, recovery.id)).toBeNull();
    expect(await service.get(await s.tenant(), ep.id, recovery.id)).toBeNull();
    expect(await service.get(t, ep.id, 'rcv_01KAAAAAAAAAAAAAAAAAAAAAAA' as RecoveryId)).toBeNull();
  });
});
