// Dispatchers' walk rounds (walkEndpoints) without a server: a stand-in connection lists the
// pending walks by id, as endpoint_walks' _id index would, and runs each transaction's callback
// — twice for the walks told to conflict, as the driver runs it again after a write conflict.
// A process's first round starts at random among the next WALK_SPREAD; the rest go in turn.
// walkBatch is a spy: what a batch does is endpoint-walk.test.ts's.
import type { EndpointId } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { MongoDeliveryRepo } from './delivery-repo.ts';
import { pickWalks, WALK_SPREAD, walkBatch } from './endpoint-walk.ts';

vi.mock('./endpoint-walk.ts', async (original) => ({
  ...(await original<typeof import('./endpoint-walk.ts')>()),
  walkBatch: vi.fn(async () => ({ released: 0, failed: 0, held: 1, due: [] })),
}));
vi.mock('./held-recheck.ts', async (original) => ({ ...(await original<typeof import('./held-recheck.ts')>()), startDueRechecks: vi.fn(async () => {}) }));
const batches = vi.mocked(walkBatch);
beforeEach(() => batches.mockClear());
afterEach(() => vi.restoreAllMocks());

const ids = (n: number) => Array.from({ length: n }, (_, i) => `ep_${String(i).padStart(2, '0')}` as EndpointId);
const session = { id: 'session' } as unknown as ClientSession;

/** `walks` pending, in id order; a transaction over one of `conflicting` runs its callback twice. */
function stand(walks: EndpointId[], conflicting: EndpointId[] = []) {
  const limits: number[] = [];
  let current: EndpointId | undefined;
  const conn = {
    endpointWalks: {
      find: (filter: { _id: { $gt: string } }) => ({
        limit: (n: number) => ({
          toArray: async () => {
            limits.push(n);
            return walks
              .filter((id) => id > filter._id.$gt)
              .slice(0, n)
              .map((_id) => ({ _id }));
          },
        }),
      }),
    },
    transaction: async <T>(work: (s: ClientSession) => Promise<T>) => {
      const result = await work(session);
      return current !== undefined && conflicting.includes(current) ? work(session) : result;
    },
  } as unknown as MongoConnection;
  batches.mockImplementation(async (_c, _s, id) => {
    current = id;
    return { released: 0, failed: 0, held: 1, due: [] };
  });
  return { conn, limits };
}

/** The walks each round took, a round of one endpoint as the walk job asks. */
async function rounds(repo: MongoDeliveryRepo, n: number): Promise<EndpointId[]> {
  const taken: EndpointId[] = [];
  for (let i = 0; i < n; i++) {
    batches.mockClear();
    await repo.walkEndpoints(1_000, 1_000, 1);
    taken.push(...batches.mock.calls.map((call) => call[2]));
  }
  return taken;
}

describe('pickWalks', () => {
  const read = ids(10);
  it('takes the next in turn unless told to spread', () => {
    expect(pickWalks(read, 1)).toEqual(['ep_00']);
    expect(pickWalks(read, 3)).toEqual(['ep_00', 'ep_01', 'ep_02']);
    expect(pickWalks([], 1)).toEqual([]);
  });
  it(`spreads over the first ${WALK_SPREAD} places, never past what was read`, () => {
    expect(WALK_SPREAD).toBe(8);
    expect(pickWalks(read, 1, 0)).toEqual(['ep_00']);
    expect(pickWalks(read, 1, 0.999)).toEqual(['ep_07']); // the 8th, not the 9th
    expect(pickWalks(read, 3, 0.999)).toEqual(['ep_07', 'ep_08', 'ep_09']);
    expect(pickWalks(ids(3), 1, 0.999)).toEqual(['ep_02']);
    expect(pickWalks(ids(3), 3, 0.999)).toEqual(ids(3));
  });
});

describe('walk rounds of several dispatchers (MongoDB)', () => {
  it('a first round starts at random among the next 8; later rounds go in turn, reading one walk ahead', async () => {
    const s = stand(ids(10));
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const repo = new MongoDeliveryRepo(s.conn);
    expect(await rounds(repo, 3)).toEqual(['ep_04', 'ep_05', 'ep_06']);
    // The first read 8 (1 + WALK_SPREAD − 1), the next 1 each (and 1 for `pending`).
    expect(s.limits).toEqual([8, 1, 1, 1, 1, 1]);
  });

  it('two started together take different walks', async () => {
    const s = stand(ids(10));
    const random = vi.spyOn(Math, 'random').mockReturnValueOnce(0).mockReturnValueOnce(0.9);
    const [a, b] = [new MongoDeliveryRepo(s.conn), new MongoDeliveryRepo(s.conn)];
    expect([...(await rounds(a, 1)), ...(await rounds(b, 1))]).toEqual(['ep_00', 'ep_07']);
    expect(random).toHaveBeenCalledTimes(2);
  });

  it('a batch run again (a conflict) does not move the later rounds off their turn', async () => {
    const s = stand(ids(10), ['ep_01' as EndpointId]);
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.99);
    const repo = new MongoDeliveryRepo(s.conn);
    // The first round at the 8th; then in turn, ep_07's… wrapped; ep_01's batch ran twice.
    expect(await rounds(repo, 5)).toEqual(['ep_07', 'ep_08', 'ep_09', 'ep_00', 'ep_01', 'ep_01']);
    expect(await rounds(repo, 1)).toEqual(['ep_02']);
    expect(random).toHaveBeenCalledTimes(1);
  });

  it('in turn, every walk is taken once in a turn of the ring', async () => {
    const s = stand(ids(10));
    vi.spyOn(Math, 'random').mockReturnValue(0.99);
    expect((await rounds(new MongoDeliveryRepo(s.conn), 10)).sort()).toEqual(ids(10));
  });

  it('a round of no endpoints reads no walk (limit(0) would read them all)', async () => {
    const s = stand(ids(10));
    await new MongoDeliveryRepo(s.conn).walkEndpoints(1_000, 1_000, 0);
    expect(batches).not.toHaveBeenCalled();
    expect(s.limits).toEqual([1]); // `pending` alone
  });

  it('a first round that finds no walk leaves the spread to the first that does', async () => {
    const walks: EndpointId[] = [];
    const s = stand(walks);
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const repo = new MongoDeliveryRepo(s.conn);
    expect(await rounds(repo, 1)).toEqual([]);
    walks.push(...ids(10));
    expect(await rounds(repo, 2)).toEqual(['ep_04', 'ep_05']);
  });

  it('once the walks ran out, the next to come are spread again, from the first id', async () => {
    const walks = ids(3);
    const s = stand(walks);
    const random = vi.spyOn(Math, 'random').mockReturnValue(0);
    const repo = new MongoDeliveryRepo(s.conn);
    expect(await rounds(repo, 2)).toEqual(['ep_00', 'ep_01']);
    walks.length = 0; // all finished
    expect(await rounds(repo, 1)).toEqual([]);
    walks.push(...ids(10));
    random.mockReturnValue(0.5);
    // Not ep_02 in turn from its old cursor, where every other dispatcher's cursor is too.
    expect(await rounds(repo, 1)).toEqual(['ep_04']);
  });

  it('a batch that fails every time does not hold up the walks after it', async () => {
    const s = stand(ids(3));
    vi.spyOn(Math, 'random').mockReturnValue(0);
    batches.mockImplementation(async (_c, _s, id) => {
      if (id === 'ep_00') throw new Error('the transaction ran out of its 120 s');
      return { released: 0, failed: 0, held: 1, due: [] };
    });
    const repo = new MongoDeliveryRepo(s.conn);
    await expect(repo.walkEndpoints(1_000, 1_000, 1)).rejects.toThrow('120 s');
    expect(await rounds(repo, 2)).toEqual(['ep_01', 'ep_02']);
    // Its turn comes again once the ring has gone round.
    await expect(repo.walkEndpoints(1_000, 1_000, 1)).rejects.toThrow('120 s');
  });
});
