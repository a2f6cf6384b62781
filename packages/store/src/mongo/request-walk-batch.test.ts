// A request's own first batch of an endpoint's walk is REQUEST_WALK_BATCH (100), not the walk
// job's ENDPOINT_WALK_BATCH (1,000): a MongoDB transaction on a request's path stays small
// (endpoint-walk.ts says why). Without a server: the connection is a stand-in that runs the
// transaction's callback, and walkBatch a spy that records the batch it was asked for. What a
// batch does with it is endpoint-walk.test.ts's; the real-server case is the store contract's
// (endpoint-walk-contract.ts, run by mongo-store.test.ts with this batch).
import { ENDPOINT_WALK_BATCH, type EndpointId, type Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { MongoDeliveryRepo } from './delivery-repo.ts';
import { MongoEndpointRepo } from './endpoint-repo.ts';
import { REQUEST_WALK_BATCH, walkBatch } from './endpoint-walk.ts';

vi.mock('./endpoint-walk.ts', async (original) => ({
  ...(await original<typeof import('./endpoint-walk.ts')>()),
  recordWalk: vi.fn(async () => {}),
  walkBatch: vi.fn(async () => ({ released: 7, failed: 0, held: 0, due: [] })),
}));
vi.mock('./held-recheck.ts', async (original) => ({ ...(await original<typeof import('./held-recheck.ts')>()), scheduleRecheck: vi.fn(async () => {}) }));
const batches = vi.mocked(walkBatch);
beforeEach(() => batches.mockClear());

const t = { orgId: 'org_1', env: 'live' } as Tenant;
const ENDPOINT = 'ep_1' as EndpointId;
const session = { id: 'session' } as unknown as ClientSession;

/** A connection whose endpoint is `status`, whose transactions run at once. */
function conn(status: string): MongoConnection {
  return {
    transaction: async <T>(work: (s: ClientSession) => Promise<T>) => work(session),
    endpoints: {
      findOne: async () => ({ status }),
      findOneAndDelete: async () => ({ consumerId: 'con_1', status }),
    },
    consumers: { updateOne: async () => ({}) },
  } as unknown as MongoConnection;
}

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
});
