import { messageStatus, type DeliveryStatus, type EndpointId, type Tenant } from '@wirehook/core';
import type { AnyBulkWriteOperation, ClientSession } from 'mongodb';
import type { MongoConnection } from './connection.ts';
import type { MessageDoc } from './documents.ts';
import { OPEN_STATUSES, scope } from './query.ts';

// Writes that change delivery statuses, shared by the repos. Each runs inside the caller's
// transaction, so a message's stored status never disagrees with its deliveries.

/** Recomputes (with core's `messageStatus`) and stores the status of each message of `t`. */
export async function refreshMessageStatuses(conn: MongoConnection, session: ClientSession, t: Tenant, messageIds: Iterable<string>): Promise<void> {
  const ids = [...new Set(messageIds)];
  if (ids.length === 0) return;
  const deliveries = await conn.deliveries.find({ ...scope(t), messageId: { $in: ids } }, { session, projection: { messageId: 1, status: 1 } }).toArray();
  const statuses = new Map<string, { status: DeliveryStatus }[]>(ids.map((id) => [id, []]));
  for (const d of deliveries) statuses.get(d.messageId)?.push({ status: d.status });
  // Always a write, even when the status is unchanged: two completions of one message, each
  // reading the other's delivery as still open, would otherwise both write `pending` (a no-op
  // $set conflicts with nothing) and leave it pending for good. The version bump makes them
  // conflict, and the driver runs the loser again on a snapshot with the winner's delivery.
  const updates: AnyBulkWriteOperation<MessageDoc>[] = [...statuses].map(([id, of]) => ({
    updateOne: { filter: { ...scope(t), _id: id }, update: { $set: { status: messageStatus(of) }, $inc: { statusVersion: 1 } } },
  }));
  await conn.messages.bulkWrite(updates, { session, ordered: false });
}

/**
 * Open deliveries one transaction fails at most: a paused endpoint may hold 100,000, and one
 * transaction of them all (its writes, the message refreshes) would outgrow the transaction
 * limits (time, cache). Callers go on in further transactions (`failAllOpenDeliveries`).
 */
export const FAIL_BATCH = 500;

/**
 * Fails up to FAIL_BATCH of the endpoint's pending and retrying deliveries (only those
 * created before `createdBefore` when given) and refreshes their messages, in the caller's
 * transaction. @returns how many failed (FAIL_BATCH: there may be more).
 */
export async function failOpenDeliveries(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  endpointId: EndpointId,
  createdBefore?: number,
): Promise<number> {
  const filter = {
    ...scope(t),
    endpointId,
    status: { $in: OPEN_STATUSES },
    ...(createdBefore === undefined ? {} : { createdAt: { $lt: createdBefore } }),
  };
  const open = await conn.deliveries
    .find(filter, { session, projection: { messageId: 1 } })
    .limit(FAIL_BATCH)
    .toArray();
  if (open.length === 0) return 0;
  // By id, and inside the transaction's snapshot: exactly the deliveries read above.
  await conn.deliveries.updateMany({ ...scope(t), _id: { $in: open.map((d) => d._id) } }, { $set: { status: 'failed', nextAttemptAt: null } }, { session });
  await refreshMessageStatuses(
    conn,
    session,
    t,
    open.map((d) => d.messageId),
  );
  return open.length;
}

/**
 * Fails every open delivery of the endpoint (see failOpenDeliveries), FAIL_BATCH per
 * transaction, until none is left. Each batch is consistent; the whole is not one step, which
 * is fine for its callers: nothing reopens a failed delivery, and a delivery created or
 * reopened meanwhile is found by a later batch. @returns how many failed.
 */
export async function failAllOpenDeliveries(conn: MongoConnection, t: Tenant, endpointId: EndpointId, createdBefore?: number): Promise<number> {
  let total = 0;
  for (;;) {
    const failed = await conn.transaction((session) => failOpenDeliveries(conn, session, t, endpointId, createdBefore));
    total += failed;
    if (failed < FAIL_BATCH) return total;
  }
}
