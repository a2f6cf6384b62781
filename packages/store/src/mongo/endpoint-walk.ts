import type { EndpointId, Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import type { EndpointWalkMode } from '../ports/delivery-port.ts';
import type { MongoConnection } from './connection.ts';
import { refreshMessageStatuses } from './message-status.ts';
import { handOver, type EndedDelivery } from './ordered-lanes.ts';
import { OPEN_STATUSES, scope } from './query.ts';

// An endpoint's walk, as in the SQLite adapter (sqlite/endpoint-walk.ts, which says why): the
// bookkeeping a pause, resume, disable or delete leaves on the endpoint's open deliveries,
// at most `batch` deliveries a transaction. A claim takes only deliveries of an active
// endpoint whatever their `held` says, so sending never waits for it. Each batch reads a
// partial index its own change takes the deliveries out of (deliveries_endpoint_due_head for a
// hold, deliveries_endpoint_held for a release, deliveries_endpoint_status for a fail).
// A hold leaves a delivery waiting in its ordered lane (#31) as it is: it is not claimable
// anyway, and a completion's hand-over while the endpoint is paused makes the next one held.
// A fail hands each lane whose head it ended to the next (ordered-lanes.ts: no triggers here).

/** Records an operation's walk in the caller's transaction (see the SQLite recordWalk). */
export async function recordWalk(
  conn: MongoConnection,
  session: ClientSession | undefined,
  t: Tenant,
  endpointId: EndpointId,
  mode: EndpointWalkMode,
  bound: number | null = null,
): Promise<void> {
  const insert = { ...scope(t), hold: null, heldSince: null, failBefore: null };
  if (mode === 'fail') {
    const failBefore = bound ?? Number.MAX_SAFE_INTEGER;
    const { hold: _h, heldSince: _s, failBefore: _f, ...base } = insert;
    await conn.endpointWalks.updateOne(
      { _id: endpointId },
      { $max: { failBefore }, $setOnInsert: { ...base, hold: null, heldSince: null } },
      { session, upsert: true },
    );
  } else {
    const { hold: _h, heldSince: _s, ...base } = insert;
    await conn.endpointWalks.updateOne({ _id: endpointId }, { $set: { hold: mode, heldSince: bound }, $setOnInsert: base }, { session, upsert: true });
  }
}

/** A fail walk (a disabling's) fails nothing created at or after `at` (the endpoint left `disabled` then). */
export async function endFailAt(conn: MongoConnection, session: ClientSession | undefined, endpointId: EndpointId, at: number): Promise<void> {
  await conn.endpointWalks.updateOne({ _id: endpointId, failBefore: { $ne: null } }, { $min: { failBefore: at } }, { session });
}

/** Forgets a hold the endpoint no longer needs (it is active again). */
export async function dropHold(conn: MongoConnection, session: ClientSession | undefined, endpointId: EndpointId): Promise<void> {
  await conn.endpointWalks.updateOne({ _id: endpointId, hold: 'hold' }, { $set: { hold: null, heldSince: null } }, { session });
  await conn.endpointWalks.deleteOne({ _id: endpointId, hold: null, failBefore: null }, { session });
}

/** What one batch did (see the SQLite WalkBatch). */
export interface WalkBatch {
  released: number;
  failed: number;
  held: number;
}

/** One batch of the endpoint's walk in the caller's transaction: its fail first, then its hold or release. */
export async function walkBatch(conn: MongoConnection, session: ClientSession, endpointId: EndpointId, now: number, batch: number): Promise<WalkBatch> {
  const result: WalkBatch = { released: 0, failed: 0, held: 0 };
  // A write first: a resume's dropHold or another dispatcher's batch on this walk now conflicts
  // with this transaction (one of them runs again on the other's result) instead of both
  // committing on a stale view (e.g. holding deliveries of an endpoint resumed meanwhile).
  const walk = await conn.endpointWalks.findOneAndUpdate({ _id: endpointId }, { $inc: { version: 1 } }, { session, returnDocument: 'after' });
  if (walk === null) return result;
  const t: Tenant = { orgId: walk.orgId, env: walk.env } as Tenant;
  const open = { ...scope(t), endpointId, status: { $in: OPEN_STATUSES } };
  if (walk.failBefore !== null) {
    const rows = await conn.deliveries
      .find({ ...open, createdAt: { $lt: walk.failBefore } }, { session, projection: LANE_FIELDS })
      .limit(batch)
      .toArray();
    if (rows.length > 0) {
      await conn.deliveries.updateMany({ _id: { $in: rows.map((d) => d._id) } }, { $set: { status: 'failed', nextAttemptAt: null } }, { session });
      // A next made head is left unheld: failed in turn by this walk, or found by due as stranded
      // (stranded.ts), or sent when the endpoint was enabled again meanwhile.
      await endLanes(conn, session, rows, false);
      await refreshMessageStatuses(
        conn,
        session,
        t,
        rows.map((d) => d.messageId),
      );
    }
    result.failed = rows.length;
    if (rows.length === batch) return result;
    await conn.endpointWalks.updateOne({ _id: endpointId }, { $set: { failBefore: null } }, { session });
  } else if (walk.hold !== null) {
    const endpoint = await conn.endpoints.findOne({ ...scope(t), _id: endpointId }, { session, projection: { status: 1 } });
    const active = endpoint?.status === 'active';
    let more = false;
    if (walk.hold === 'hold' && endpoint !== null && !active) {
      const rows = await conn.deliveries
        .find({ endpointId, status: { $in: OPEN_STATUSES }, held: false, laneWait: false }, { session, projection: { _id: 1 } })
        .limit(batch)
        .toArray();
      if (rows.length > 0) await conn.deliveries.updateMany({ _id: { $in: rows.map((d) => d._id) } }, { $set: { held: true } }, { session });
      result.held = rows.length;
      more = rows.length === batch;
    } else if (walk.hold === 'release' && active) {
      const heldSince = walk.heldSince ?? 0;
      const rows = await conn.deliveries
        .find({ endpointId, status: { $in: OPEN_STATUSES }, held: true }, { session, projection: { ...LANE_FIELDS, createdAt: 1 } })
        .limit(batch)
        .toArray();
      const release = rows.filter((d) => d.createdAt >= heldSince).map((d) => d._id);
      const fail = rows.filter((d) => d.createdAt < heldSince);
      if (release.length > 0) await conn.deliveries.updateMany({ _id: { $in: release } }, { $set: { held: false, nextAttemptAt: now } }, { session });
      if (fail.length > 0) {
        await conn.deliveries.updateMany({ _id: { $in: fail.map((d) => d._id) } }, { $set: { status: 'failed', nextAttemptAt: null } }, { session });
        await endLanes(conn, session, fail, false);
        await refreshMessageStatuses(
          conn,
          session,
          t,
          fail.map((d) => d.messageId),
        );
      }
      result.released = release.length;
      result.failed += fail.length;
      more = rows.length === batch;
    }
    if (more) return result;
    await conn.endpointWalks.updateOne({ _id: endpointId }, { $set: { hold: null, heldSince: null } }, { session });
  }
  // Nothing left of it: gone.
  await conn.endpointWalks.deleteOne({ _id: endpointId, hold: null, failBefore: null }, { session });
  return result;
}

/** What a fail reads of each delivery: its message, and its lane for the hand-over. */
const LANE_FIELDS = { messageId: 1, endpointId: 1, orderingKey: 1, laneWait: 1 } as const;

/** Hands over the lanes whose heads `ended` were (a waiting delivery is no head: skipped). */
async function endLanes(
  conn: MongoConnection,
  session: ClientSession,
  ended: readonly (EndedDelivery & { laneWait?: boolean })[],
  held: boolean,
): Promise<void> {
  for (const d of ended) if (typeof d.orderingKey === 'string' && d.laneWait !== true) await handOver(conn, session, d, held);
}

/** Endpoints with a walk left after `after` in id order, at most `limit`. */
export async function pendingWalksAfter(conn: MongoConnection, after: string, limit: number): Promise<EndpointId[]> {
  const docs = await conn.endpointWalks
    .find({ _id: { $gt: after } }, { projection: { _id: 1 } })
    .sort({ _id: 1 })
    .limit(limit)
    .toArray();
  return docs.map((d) => d._id as EndpointId);
}
