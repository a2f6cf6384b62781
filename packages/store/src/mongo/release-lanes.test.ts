// releaseLanes without a server: the endpoint's waiting deliveries, month by month from the
// oldest, up to the batch in all; then, when that was all of them, up to the batch of its lanes'
// heads. Stand-in collections answer the reads as the plans' indexes would and record the limits
// read for; `more` tells the walk whether another batch is needed (unlane-walk.test.ts).
import type { ClientSession } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { MongoConnection } from './connection.ts';
import type { Month } from './months.ts';
import { releaseLanes } from './ordered-lanes.ts';

const session = { id: 'session' } as unknown as ClientSession;

/** `waiting` deliveries a month, `headed` lanes with a head. */
function stand(waiting: Record<Month, number>, headed: number) {
  const reads: { of: string; limit: number }[] = [];
  const sets: Record<string, unknown>[] = [];
  const conn = {
    months: async () => Object.keys(waiting).sort(),
    bucket: (month: Month) => ({
      deliveries: {
        find: () => ({
          limit: (n: number) => ({
            toArray: async () => {
              reads.push({ of: month, limit: n });
              return Array.from({ length: Math.min(n, waiting[month] ?? 0) }, (_, i) => ({
                _id: `dlv_${month}_${i}`,
                orgId: 'org_1',
                env: 'live',
                endpointId: 'ep_1',
                dueAt: 1,
                nextAttemptAt: 1,
                held: false,
              }));
            },
          }),
        }),
        updateMany: async (_filter: unknown, update: { $set: Record<string, unknown> }) => {
          sets.push(update.$set);
        },
      },
    }),
    deliveryLanes: {
      find: () => ({
        limit: (n: number) => ({
          toArray: async () => {
            reads.push({ of: 'lanes', limit: n });
            return Array.from({ length: Math.min(n, headed) }, (_, i) => ({ _id: `lane_${i}` }));
          },
        }),
      }),
      updateMany: async () => ({}),
    },
  } as unknown as MongoConnection;
  return { conn, reads, sets };
}

describe('releaseLanes (MongoDB)', () => {
  it('reads no more than the batch across months, and no lane once the batch is full', async () => {
    const s = stand({ '202611': 600, '202612': 600 }, 5);
    expect(await releaseLanes(s.conn, session, 'ep_1', 1_000)).toMatchObject({ released: 1_000, more: true });
    expect(s.reads).toEqual([
      { of: '202611', limit: 1_000 },
      { of: '202612', limit: 400 },
    ]);
  });

  it('lets go of the lanes’ heads once every waiting one is out; heads past the batch are not more for the walk (handOver lets go of them)', async () => {
    const few = stand({ '202612': 3 }, 99);
    expect(await releaseLanes(few.conn, session, 'ep_1', 100)).toMatchObject({ released: 3, more: false });
    expect(few.reads).toEqual([
      { of: '202612', limit: 100 },
      { of: 'lanes', limit: 100 },
    ]);
    const many = stand({ '202612': 3 }, 100);
    expect(await releaseLanes(many.conn, session, 'ep_1', 100)).toMatchObject({ released: 3, more: false });
  });

  it('without heads (the walk’s), reads no lane and is done once fewer than the batch wait', async () => {
    const s = stand({ '202612': 3 }, 100);
    expect(await releaseLanes(s.conn, session, 'ep_1', 100, { heads: false })).toMatchObject({ released: 3, more: false });
    expect(s.reads).toEqual([{ of: '202612', limit: 100 }]);
    const full = stand({ '202612': 100 }, 0);
    expect(await releaseLanes(full.conn, session, 'ep_1', 100, { heads: false })).toMatchObject({ released: 100, more: true });
  });

  it('held (an endpoint not active): out of their lanes but held, none told to the due queue', async () => {
    const s = stand({ '202612': 3 }, 0);
    expect(await releaseLanes(s.conn, session, 'ep_1', 100, { heads: false, held: true })).toMatchObject({ released: 3, due: [] });
    expect(s.sets).toEqual([{ laneWait: false, held: true }]);
    const active = stand({ '202612': 3 }, 0);
    expect((await releaseLanes(active.conn, session, 'ep_1', 100, { heads: false })).due).toHaveLength(3);
    expect(active.sets).toEqual([{ laneWait: false }]);
  });
});
