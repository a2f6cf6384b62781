// Joining an ordered lane on MongoDB, without a server: a stand-in connection holding lanes and
// deliveries in maps, answering the point reads and writes joinLane makes.
import { newId } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { monthOf } from './months.ts';
import { joinLane } from './ordered-lanes.ts';

const NOW = Date.UTC(2026, 11, 2);
const session = {} as ClientSession;

function laneStore() {
  const lanes = new Map<string, { headId: string | null; lastSequence: number }>();
  const status = new Map<string, string>();
  const deliveries = {
    // A delivery by _id (isOpen); any other query is the lane's next waiting one: none here.
    findOne: async (filter: { _id?: unknown }) => (typeof filter._id === 'string' && status.has(filter._id) ? { status: status.get(filter._id) } : null),
  };
  const conn = {
    months: async () => [monthOf(NOW)],
    bucket: () => ({ deliveries }),
    bucketOf: () => ({ deliveries }),
    deliveryLanes: {
      findOneAndUpdate: async (filter: { _id: string }, update: { $inc: { lastSequence: number } }) => {
        const lane = lanes.get(filter._id) ?? { headId: null, lastSequence: 0 };
        lane.lastSequence += update.$inc.lastSequence;
        lanes.set(filter._id, lane);
        return { ...lane };
      },
      updateOne: async (filter: { _id: string }, update: { $set: { headId: string | null } }) => {
        lanes.get(filter._id)!.headId = update.$set.headId;
      },
    },
  } as unknown as MongoConnection;
  return { conn, lanes, status };
}

describe('joining an ordered lane (MongoDB)', () => {
  it('the first delivery of a new lane is its head, recorded; the next waits behind it, and goes once it ends', async () => {
    const { conn, lanes, status } = laneStore();
    const t = { orgId: 'org_1', env: 'live' } as never;
    const id = () => newId('delivery', { now: () => NOW });
    const [a1, a2, a3] = [id(), id(), id()];
    const first = await joinLane(conn, session, t, 'ep_1', 'order-7', a1, false, NOW);
    expect(first).toMatchObject({ sequence: 1, wait: false });
    expect([...lanes.values()][0]!.headId).toBe(a1);
    status.set(a1, 'pending');
    expect(await joinLane(conn, session, t, 'ep_1', 'order-7', a2, false, NOW)).toMatchObject({ sequence: 2, wait: true });
    // a1 ends (delivered): the lane's head is not open, nothing waits in the stand-in, so the next to join leads.
    status.set(a1, 'success');
    expect(await joinLane(conn, session, t, 'ep_1', 'order-7', a3, false, NOW)).toMatchObject({ sequence: 3, wait: false });
    expect([...lanes.values()][0]!.headId).toBe(a3);
  });
});
