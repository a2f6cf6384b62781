// The walk job against a real (SQLite) store: what a pause leaves past its first batch is
// finished by the job's tick, not by the request, and a tick with nothing to do stops at once.
import { ENDPOINT_WALK_BATCH, ManualClock, type DeliveryId } from '@wirehook/core';

// The numbers written out: a test that read the code's constant would follow it anywhere.
const BATCH = 1_000;
import { openSqliteStore, type Store } from '@wirehook/store';
import { createLogger, silentLogger } from '@wirehook/platform';
import { jsonLines } from '@wirehook/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Fixtures } from '../../../packages/store/test/contract/fixtures.ts';
import { MessageFixtures } from '../../../packages/store/test/contract/message-fixtures.ts';
import { EndpointWalkJob } from './endpoint-walk-job.ts';

let store: Store;
const clock = new ManualClock();
const f = new Fixtures(() => store, clock);
const m = new MessageFixtures(f);

beforeAll(() => {
  store = openSqliteStore({ path: ':memory:' });
});
afterAll(() => store.close());

it('a tick finishes a pause’s walk past the request’s batch, and resume’s release', async () => {
  const { t, endpoint } = await m.scene();
  const ids: DeliveryId[] = [];
  expect(ENDPOINT_WALK_BATCH).toBe(BATCH); // a pause holds 1,000 in its request, the rest by the walk
  for (let i = 0; i < BATCH + 7; i++) ids.push(...(await m.send(t)).deliveryIds);
  const job = new EndpointWalkJob({ store, clock, logger: silentLogger(), intervalMs: 60_000 });
  await store.endpoints.update(t, endpoint.id, { status: 'paused' });
  expect(await job.runOnce()).toBe(7); // the 7 past the request's batch
  expect(await job.runOnce()).toBe(0);
  await store.endpoints.update(t, endpoint.id, { status: 'active', changedAt: clock.now(), releaseHeldSince: 0 });
  expect(await job.runOnce()).toBe(1_007); // released by the walk alone
  expect(await m.dueOf(clock.now(), ids)).toHaveLength(ids.length);
});

it('a part of a round left for later (a recheck that failed) is logged as a warning, and the round goes on', async () => {
  const { destination, lines } = jsonLines();
  const rounds: { changed: number; pending: boolean; leftForLater?: unknown }[] = [
    { changed: 3, pending: true, leftForLater: new Error('write conflict') },
    { changed: 2, pending: false },
  ];
  const walking = { ...store, deliveries: { ...store.deliveries, walkEndpoints: async () => rounds.shift()! } } as Store;
  const job = new EndpointWalkJob({ store: walking, clock, logger: createLogger({ name: 'test', destination, format: 'json' }), intervalMs: 60_000 });
  expect(await job.runOnce()).toBe(5);
  const warned = lines.filter((l) => l['level'] === 40);
  expect(warned).toHaveLength(1);
  expect(warned[0]!['msg']).toBe('endpoint walks: a walk asked to run again failed to start; trying it again in a minute');
  expect((warned[0]!['err'] as { message: string }).message).toBe('write conflict');
});
