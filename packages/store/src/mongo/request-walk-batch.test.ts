// A request's own first batch of an endpoint's walk is REQUEST_WALK_BATCH (100), not the walk
// job's ENDPOINT_WALK_BATCH (1,000): a MongoDB transaction on a request's path stays small
// (endpoint-walk.ts says why). Without a server: the connection is a stand-in that runs the
// transaction's callback, and walkBatch and endHold spies that record the batch they were asked
// for. What a batch does with it is endpoint-walk.test.ts's and end-hold.test.ts's; the
// real-server cases are the store contract's (endpoint-walk-contract.ts and
// endpoint-hold-contract.ts, run by mongo-store.test.ts with this batch).
import { type DeliveryId, ENDPOINT_WALK_BATCH, type EndpointId, type Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { MongoDeliveryRepo } from './delivery-repo.ts';
import { MongoEndpointRepo } from './endpoint-repo.ts';
import { endHold } from './endpoint-put-off.ts';
import { REQUEST_WALK_BATCH, walkBatch } from './endpoint-walk.ts';
import { releaseLanes } from './ordered-lanes.ts';

vi.mock('./endpoint-walk.ts', async (original) => ({
  ...(await original<typeof import('./endpoint-walk.ts')>()),
  recordWalk: vi.fn(async () => {}),
  walkBatch: vi.fn(async () => ({ released: 7, failed: 0, held: 0, due: [] })),
}));
vi.mock('./endpoint-put-off.ts', async (original) => ({ ...(await original<typeof import('./endpoint-put-off.ts')>()), endHold: vi.fn(async () => []) }));
vi.mock('./ordered-lanes.ts', async (original) => ({
  ...(await original<typeof import('./ordered-lanes.ts')>()),
  releaseLanes: vi.fn(async () => ({ released: 100, due: [], more: true })),
}));
vi.mock('./held-recheck.ts', async (original) => ({ ...(await original<typeof import('./held-recheck.ts')>()), scheduleRecheck: vi.fn(async () => {}) }));
const batches = vi.mocked(walkBatch);
const holdEnds = vi.mocked(endHold);
const laneReleases = vi.mocked(releaseLanes);
beforeEach(() => {
  batches.mockClear();
  holdEnds.mockClear();
  laneReleases.mockClear();
});

const t = { orgId: 'org_1', env: 'live' } as Tenant;
const ENDPOINT = 'ep_1' as EndpointId;
const session = { id: 'session' } as unknown as ClientSession;

/** A connection whose endpoint is `status`, whose transactions run at once. */
function conn(status: string): MongoConnection {
  return {
    transaction: async <T>(work: (s: ClientSession) => Promise<T>) => work(session),
    endpoints: {
      findOne: async () => ({ status, heldUntil: HELD_UNTIL }),
      findOneAndDelete: async () => ({ consumerId: 'con_1', status }),
      // An update's write (the endpoint after it) and a manual retry's (its hold as it stood).
      findOneAndUpdate: async () => ({ _id: ENDPOINT, status, heldUntil: HELD_UNTIL }),
    },
    consumers: { updateOne: async () => ({}) },
    // A disabling left bounds its fail walk (endFailAt); lanes let go of record what is left.
    endpointWalks: {
      updateOne: async (filter: Record<string, unknown>, update: Record<string, unknown>, options: { session?: unknown }) => {
        walkWrites.push(options.session === session ? update : { outsideTransaction: update });
        // keepLanes' update matches only a walk letting go of lanes.
        return { modifiedCount: filter['unlane'] === true && !unlaning ? 0 : 1 };
      },
      // The request's first write (touchWalk): no walk yet.
      findOneAndUpdate: async (_filter: unknown, update: Record<string, unknown>) => {
        walkWrites.push(update);
        return null;
      },
      deleteOne: async (filter: Record<string, unknown>, options: { session?: unknown }) => {
        walkWrites.push({ deleteOne: filter, inTransaction: options.session === session });
        return {};
      },
    },
    // A manual retry's delivery: found, then gone by its reopening (what follows the hold's end is not this test's).
    bucketOf: () => ({
      month: '202612',
      deliveries: { findOne: async () => ({ endpointId: ENDPOINT, attemptCount: 0, leaseUntil: null }), findOneAndUpdate: async () => null },
    }),
  } as unknown as MongoConnection;
}

/** Whether the endpoint's walk has an unlane part (keepLanes' filter matches it). */
let unlaning = true;
/** The writes to endpoint_walks' documents since the test began. */
const walkWrites: Record<string, unknown>[] = [];
beforeEach(() => {
  walkWrites.length = 0;
});

/** A Retry-After hold's end, an hour after the requests' `now`. */
const HELD_UNTIL = 3_600_000;

describe("a request's first batch of an endpoint's walk (MongoDB)", () => {
  it('is 100, a tenth of the walk job’s 1,000', () => {
    expect(REQUEST_WALK_BATCH).toBe(100);
    expect(ENDPOINT_WALK_BATCH).toBe(1_000);
  });

  it('a resume’s releaseHeld asks for 100 in its transaction', async () => {
    expect(await new MongoDeliveryRepo(conn('active')).releaseHeld(t, ENDPOINT, 0, 1_000)).toBe(7);
    expect(batches.mock.calls.map((call) => call[4])).toEqual([REQUEST_WALK_BATCH]);
  });

  it('a delete asks for 100 in its transaction, paused or not', async () => {
    for (const status of ['active', 'paused']) {
      expect(await new MongoEndpointRepo(conn(status)).delete(t, ENDPOINT)).toBe(true);
    }
    expect(batches.mock.calls.map((call) => call[4])).toEqual([REQUEST_WALK_BATCH, REQUEST_WALK_BATCH]);
  });

  it('a hold’s end asks for 100 in its transaction: a new URL or a resume, and a manual retry', async () => {
    await new MongoEndpointRepo(conn('active')).update(t, ENDPOINT, { url: 'https://new.acme.example/hook', endHoldAt: 1_000 });
    expect(await new MongoDeliveryRepo(conn('active')).retryNow(t, 'dlv_1' as DeliveryId, 1_000)).toBeNull();
    expect(holdEnds.mock.calls.map((call) => [call[5], call[6]])).toEqual([
      [HELD_UNTIL, REQUEST_WALK_BATCH],
      [HELD_UNTIL, REQUEST_WALK_BATCH],
    ]);
  });

  it('a pause and a disabling by hand ask for 100 in their transaction', async () => {
    for (const status of ['paused', 'disabled'] as const) {
      await new MongoEndpointRepo(conn('active')).update(t, ENDPOINT, { status, changedAt: 1_000 });
    }
    expect(batches.mock.calls.map((call) => call[4])).toEqual([REQUEST_WALK_BATCH, REQUEST_WALK_BATCH]);
  });

  it('leaving ordered delivery lets 100 of its lanes’ deliveries go in its transaction, and leaves the rest to the walk', async () => {
    await new MongoEndpointRepo(conn('active')).update(t, ENDPOINT, { ordering: 'none' });
    expect(laneReleases.mock.calls.map((call) => [call[3], call[4]])).toEqual([[REQUEST_WALK_BATCH, { held: false }]]);
    expect(walkWrites).toEqual([{ $inc: { version: 1 } }, expect.objectContaining({ $set: { unlane: true } })]);
    // All of them let go of in the batch: no walk.
    laneReleases.mockResolvedValueOnce({ released: 3, due: [], more: false });
    walkWrites.length = 0;
    await new MongoEndpointRepo(conn('active')).update(t, ENDPOINT, { ordering: 'none' });
    expect(walkWrites).toEqual([{ $inc: { version: 1 } }]);
  });

  it('leaving ordered delivery while paused lets them go held, for a resume to judge', async () => {
    await new MongoEndpointRepo(conn('paused')).update(t, ENDPOINT, { ordering: 'none' });
    expect(laneReleases.mock.calls.map((call) => call[4])).toEqual([{ held: true }]);
  });

  it('ordering again ends the walk’s unlane part in its transaction, a write to the walk a running unlane batch conflicts with', async () => {
    await new MongoEndpointRepo(conn('active')).update(t, ENDPOINT, { ordering: 'key' });
    expect(walkWrites).toEqual([{ $set: { unlane: null } }, { deleteOne: expect.objectContaining({ _id: ENDPOINT, unlane: null }), inTransaction: true }]);
    // A walk without that part (a hold's, a fail's) is neither written nor its batch made to run again.
    unlaning = false;
    walkWrites.length = 0;
    await new MongoEndpointRepo(conn('active')).update(t, ENDPOINT, { ordering: 'key' });
    expect(walkWrites).toEqual([{ $set: { unlane: null } }]);
    unlaning = true;
    expect(laneReleases).not.toHaveBeenCalled();
  });
});
