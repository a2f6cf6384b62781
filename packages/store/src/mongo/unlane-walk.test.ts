// The walk's `unlane` part without a server: an endpoint that stopped ordering with more of its
// lanes to let go of than a request's batch (letGoOfLanes, request-walk-batch.test.ts) has the
// rest let go of by its walk, a batch at a time, while it still does not order. The stand-in
// connection answers walkBatch's reads of the walk and the endpoint and records its writes;
// releaseLanes is a spy (what it does with a batch is the store contract's, ordered-lane-contract.ts).
import type { EndpointId } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { walkBatch } from './endpoint-walk.ts';
import { releaseLanes } from './ordered-lanes.ts';
import { WalkCollection } from '../../test/mongo/walk-collection.ts';

vi.mock('./ordered-lanes.ts', async (original) => ({
  ...(await original<typeof import('./ordered-lanes.ts')>()),
  releaseLanes: vi.fn(async () => ({ released: 100, due: [], more: true })),
}));
const releases = vi.mocked(releaseLanes);
beforeEach(() => releases.mockClear());

const session = { id: 'session' } as unknown as ClientSession;
const ENDPOINT = 'ep_1' as EndpointId;
const NOW = 1_000;

/** A walk with only its `unlane` part left, of an endpoint whose ordering is `ordering` (null: deleted). */
function stand(ordering: 'none' | 'key' | null, status = 'active') {
  const walks = new WalkCollection({ _id: ENDPOINT, orgId: 'org_1', env: 'live', hold: null, heldSince: null, failBefore: null, unlane: true, month: null });
  const conn = {
    months: async () => ['202611', '202612'],
    endpoints: { findOne: async () => (ordering === null ? null : { _id: ENDPOINT, ordering, status }) },
    endpointWalks: walks,
  } as unknown as MongoConnection;
  return { conn, walks, writes: walks.writes, deletes: walks.deletes };
}

describe("the walk's unlane part (MongoDB)", () => {
  it('lets go of 100 waiting deliveries a batch (not the walk’s 1,000, nor lanes’ heads) while more are left, and keeps the part', async () => {
    const s = stand('none');
    expect(await walkBatch(s.conn, session, ENDPOINT, NOW, 1_000)).toMatchObject({ released: 100 });
    // Fewer conflicts with the completions handing the endpoint's lanes over; heads left to handOver.
    expect(releases.mock.calls.map((call) => [call[3], call[4]])).toEqual([[100, { heads: false, held: false }]]);
    expect([s.writes, s.deletes]).toEqual([[], []]);
  });

  it('ends the part with the batch that found fewer, and the walk with it', async () => {
    const s = stand('none');
    releases.mockResolvedValueOnce({ released: 7, due: [], more: false });
    expect(await walkBatch(s.conn, session, ENDPOINT, NOW, 1_000)).toMatchObject({ released: 7 });
    expect(s.writes).toEqual([{ $set: { unlane: null, month: null } }]);
    // Deleted only when nothing else is left of it (walkDone's filter names every part).
    expect(s.deletes).toEqual([expect.objectContaining({ _id: ENDPOINT, hold: null, failBefore: null, putOffUntil: null, unlane: null })]);
  });

  it('lets go of nothing once the endpoint orders again, or is gone, and ends the part', async () => {
    for (const ordering of ['key', null] as const) {
      const s = stand(ordering);
      await walkBatch(s.conn, session, ENDPOINT, NOW, 1_000);
      expect(s.writes).toEqual([{ $set: { unlane: null, month: null } }]);
    }
    expect(releases).not.toHaveBeenCalled();
  });

  it('lets them go held while the endpoint is paused or disabled, for a resume to judge, the job’s whole batch (nothing is being sent)', async () => {
    for (const status of ['paused', 'disabled']) await walkBatch(stand('none', status).conn, session, ENDPOINT, NOW, 1_000);
    expect(releases.mock.calls.map((call) => [call[3], call[4]])).toEqual([
      [1_000, { heads: false, held: true }],
      [1_000, { heads: false, held: true }],
    ]);
  });

  it('is left for the walk by a call that releases nothing (a pause’s first batch)', async () => {
    const s = stand('none');
    await walkBatch(s.conn, session, ENDPOINT, 0, 100);
    expect(releases).not.toHaveBeenCalled();
    expect([s.writes, s.deletes]).toEqual([[], []]);
  });
});
