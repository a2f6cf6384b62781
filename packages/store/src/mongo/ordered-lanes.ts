import type { DeliveryId, Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import type { MongoConnection } from './connection.ts';
import { OPEN_STATUSES, scope } from './query.ts';

// Ordered delivery per key (#31), MongoDB's side of the SQLite adapter's ordered-lanes.ts and
// its migration 19 (which say why the store is the arbiter). A lane is a `delivery_lanes`
// document per (endpoint, key): the last sequence handed out and the head, the one delivery
// of the lane that may be claimed; the others wait with `laneWait: true`, out of the due
// indexes. MongoDB has no triggers, so every write that ends an open delivery calls
// handOver in its own transaction: completion, the walks' fail, retention's delete. Every
// change of a lane's head writes its lane document (a real change, never a no-op $set), so
// two transactions that would both move one lane conflict and the driver runs one again on
// the other's result: snapshot isolation cannot leave a lane with two heads or none.

/** Where a new delivery stands in its lane: its sequence, and whether it waits behind the head. */
export interface LanePlace {
  sequence: number;
  wait: boolean;
}

/** A delivery an operation has just ended (or deleted) while it was open, as handOver needs it. */
export interface EndedDelivery {
  _id: string;
  endpointId: string;
  orderingKey?: string | null;
}

/** The lane document's id: endpoint ids hold no ':', so the first one splits it. */
export function laneId(endpointId: string, key: string): string {
  return `${endpointId}:${key}`;
}

/**
 * Puts `deliveryId` (about to be inserted) at the end of its lane, in the message's
 * transaction: the lane's next sequence, and the head when the lane has no open head. A head
 * no longer open whose lane still has waiting deliveries (released by hand, or left by a crash
 * between a retention delete and its hand-over) gives the lane to the first of them instead
 * (`held`: the endpoint is not active). The lane is used at `at` (its message's creation; a
 * clock that stepped back keeps the later time), for pruneLanes.
 */
export async function joinLane(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  endpointId: string,
  key: string,
  deliveryId: string,
  held: boolean,
  at: number,
): Promise<LanePlace> {
  // The $inc makes every join a write of the lane: racing joins and hand-overs conflict.
  const lane = await conn.deliveryLanes.findOneAndUpdate(
    { _id: laneId(endpointId, key) },
    { $inc: { lastSequence: 1 }, $max: { lastUsedAt: at }, $setOnInsert: { ...scope(t), endpointId, orderingKey: key, headId: null } },
    { session, upsert: true, returnDocument: 'after' },
  );
  if (lane === null) throw new Error('an upsert returned no lane');
  let head = lane.headId !== null && (await isOpen(conn, session, lane.headId)) ? lane.headId : null;
  if (head === null) head = await promoteNext(conn, session, endpointId, key, held);
  if (head !== lane.headId) await setHead(conn, session, endpointId, key, head ?? deliveryId);
  return { sequence: lane.lastSequence, wait: head !== null };
}

/**
 * `ended` left the open statuses (or was deleted) in the caller's transaction: when it was its
 * lane's head, the lane's next by sequence becomes the head and claimable (`held` as given:
 * whether its endpoint is not active). One point read of the lane, and for a head one seek
 * of deliveries_lane_wait. @returns the new head, or null (not a head, or nothing waits).
 */
export async function handOver(conn: MongoConnection, session: ClientSession, ended: EndedDelivery, held: boolean): Promise<DeliveryId | null> {
  const key = ended.orderingKey;
  if (key === undefined || key === null) return null;
  const lane = await conn.deliveryLanes.findOne({ _id: laneId(ended.endpointId, key), headId: ended._id }, { session, projection: { _id: 1 } });
  if (lane === null) return null;
  const next = await promoteNext(conn, session, ended.endpointId, key, held);
  await setHead(conn, session, ended.endpointId, key, next);
  return next as DeliveryId | null;
}

/**
 * A recovery re-opens `deliveryId` (ordered, just made `retrying`, in the caller's
 * transaction): it goes now when its lane has no other open head, else it waits and follows
 * in sequence order as heads end, so a recovery re-sends each lane one at a time, in order.
 */
export async function rejoinLane(conn: MongoConnection, session: ClientSession, endpointId: string, key: string, deliveryId: string): Promise<void> {
  const lane = await conn.deliveryLanes.findOne({ _id: laneId(endpointId, key) }, { session, projection: { headId: 1 } });
  const head = lane?.headId ?? null;
  if (head !== null && head !== deliveryId && (await isOpen(conn, session, head))) {
    await conn.deliveries.updateOne({ _id: deliveryId }, { $set: { laneWait: true } }, { session });
    // Written although the head stays: a hand-over racing this one now conflicts with it.
    await conn.deliveryLanes.updateOne({ _id: laneId(endpointId, key) }, { $inc: { rejoins: 1 } }, { session });
    return;
  }
  if (head !== deliveryId) await setHead(conn, session, endpointId, key, deliveryId);
}

/**
 * The endpoint no longer orders (`ordering: none`), in the caller's transaction: up to `batch`
 * of its waiting deliveries become claimable, and when that was all of them its lanes forget
 * their heads. @returns how many were released (`batch`: more go as their lanes' heads end).
 */
export async function releaseLanes(conn: MongoConnection, session: ClientSession, endpointId: string, batch: number): Promise<number> {
  const waiting = await conn.deliveries
    .find({ endpointId, status: { $in: OPEN_STATUSES }, laneWait: true }, { session, projection: { _id: 1 } })
    .limit(batch)
    .toArray();
  if (waiting.length > 0) await conn.deliveries.updateMany({ _id: { $in: waiting.map((d) => d._id) } }, { $set: { laneWait: false } }, { session });
  if (waiting.length < batch) await conn.deliveryLanes.updateMany({ endpointId, headId: { $type: 'string' } }, { $set: { headId: null } }, { session });
  return waiting.length;
}

/** Lanes of the whole store for the metrics: open (a head), blocked (head retrying), the oldest open head's creation. */
export async function laneStats(conn: MongoConnection): Promise<{ open: number; blocked: number; oldestHeadAt: number | null }> {
  const [row] = await conn.deliveryLanes
    .aggregate<{ open: number; blocked: number; oldest: number | null }>([
      // The partial index delivery_lanes_open: lanes with a head only.
      { $match: { headId: { $type: 'string' } } },
      {
        $lookup: {
          from: conn.deliveries.collectionName,
          localField: 'headId',
          foreignField: '_id',
          as: 'head',
          pipeline: [{ $project: { status: 1, createdAt: 1 } }],
        },
      },
      { $unwind: '$head' },
      { $match: { 'head.status': { $in: OPEN_STATUSES } } },
      {
        $group: {
          _id: null,
          open: { $sum: 1 },
          blocked: { $sum: { $cond: [{ $eq: ['$head.status', 'retrying'] }, 1, 0] } },
          oldest: { $min: '$head.createdAt' },
        },
      },
    ])
    .toArray();
  return row === undefined ? { open: 0, blocked: 0, oldestHeadAt: null } : { open: row.open, blocked: row.blocked, oldestHeadAt: row.oldest ?? null };
}

/**
 * Removes up to `batch` lanes last used before `before`, oldest first (delivery_lanes_idle),
 * leaving any with an open head or a waiting delivery. The delete checks `lastUsedAt` again, so
 * a message that joined meanwhile keeps its lane; one that joins after starts a new lane at
 * sequence 1. @returns how many went.
 */
export async function pruneLanes(conn: MongoConnection, before: number, batch: number): Promise<number> {
  const idle = await conn.deliveryLanes
    .find({ lastUsedAt: { $lt: before } }, { sort: { lastUsedAt: 1 }, limit: batch, projection: { endpointId: 1, orderingKey: 1, headId: 1 } })
    .toArray();
  if (idle.length === 0) return 0;
  const heads = idle.flatMap((l) => (l.headId === null ? [] : [l.headId]));
  const openHeads = new Set(
    heads.length === 0
      ? []
      : (await conn.deliveries.find({ _id: { $in: heads }, status: { $in: OPEN_STATUSES } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id),
  );
  // Waiting deliveries of the lanes (deliveries_lane_wait, one seek each): normally none, as
  // retention has deleted their messages by then.
  const waiting = await conn.deliveries
    .find(
      { $or: idle.map((l) => ({ endpointId: l.endpointId, orderingKey: l.orderingKey, status: { $in: OPEN_STATUSES }, laneWait: true })) },
      { projection: { endpointId: 1, orderingKey: 1 } },
    )
    .toArray();
  const held = new Set(waiting.map((d) => laneId(d.endpointId, d.orderingKey ?? '')));
  const gone = idle.filter((l) => !(l.headId !== null && openHeads.has(l.headId)) && !held.has(l._id)).map((l) => l._id);
  if (gone.length === 0) return 0;
  const { deletedCount } = await conn.deliveryLanes.deleteMany({ _id: { $in: gone }, lastUsedAt: { $lt: before } });
  return deletedCount;
}

/**
 * Makes the lane's first waiting delivery (by sequence) the one that may be claimed, and held
 * when its endpoint is not active (`held`); on an active endpoint its `held` is left to a
 * resume's walk, which releases or fails it as the resume said. @returns its id, or null when none waits.
 */
async function promoteNext(conn: MongoConnection, session: ClientSession, endpointId: string, key: string, held: boolean): Promise<string | null> {
  const next = await conn.deliveries.findOneAndUpdate(
    { endpointId, orderingKey: key, status: { $in: OPEN_STATUSES }, laneWait: true },
    { $set: held ? { laneWait: false, held: true } : { laneWait: false } },
    { session, sort: { sequence: 1 }, projection: { _id: 1 }, returnDocument: 'after' },
  );
  return next?._id ?? null;
}

async function setHead(conn: MongoConnection, session: ClientSession, endpointId: string, key: string, headId: string | null): Promise<void> {
  await conn.deliveryLanes.updateOne({ _id: laneId(endpointId, key) }, { $set: { headId } }, { session });
}

async function isOpen(conn: MongoConnection, session: ClientSession, id: string): Promise<boolean> {
  const doc = await conn.deliveries.findOne({ _id: id }, { session, projection: { status: 1 } });
  return doc !== null && OPEN_STATUSES.includes(doc.status);
}

/** A manual retry puts the delivery at its lane's head (see the SQLite takeLaneHead). */
export async function takeLaneHead(conn: MongoConnection, session: ClientSession, endpointId: string, key: string, deliveryId: string): Promise<void> {
  const lane = await conn.deliveryLanes.findOne({ _id: laneId(endpointId, key) }, { session, projection: { headId: 1 } });
  if (lane === null) return;
  if (lane.headId !== null && lane.headId !== deliveryId) {
    await conn.deliveries.updateOne({ _id: lane.headId, status: { $in: OPEN_STATUSES } }, { $set: { laneWait: true } }, { session });
  }
  await setHead(conn, session, endpointId, key, deliveryId);
}
