import { messageStatus, type DeliveryStatus, type EndpointId, type Tenant } from '@wirehook/core';
import type { AnyBulkWriteOperation, ClientSession } from 'mongodb';
import type { MongoConnection } from './connection.ts';
import type { MessageDoc } from './documents.ts';
import { OPEN_STATUSES, scope } from './query.ts';

// Writes that change delivery statuses, shared by the repos. Each runs inside the caller's
// transaction, so a message's stored status never disagrees with its deliveries.

/** Recomputes (with core's `messageStatus`) and stores the status of each message of `t`. */
export async function refreshMessageStatuses(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  messageIds: Iterable<string>,
): Promise<void> {
  const ids = [...new Set(messageIds)];
  if (ids.length === 0) return;
  const deliveries = await conn.deliveries
    .find({ ...scope(t), messageId: { $in: ids } }, { session, projection: { messageId: 1, status: 1 } })
    .toArray();
  const statuses = new Map<string, { status: DeliveryStatus }[]>(ids.map((id) => [id, []]));
  for (const d of deliveries) statuses.get(d.messageId)?.push({ status: d.status });
  const updates: AnyBulkWriteOperation<MessageDoc>[] = [...statuses].map(([id, of]) => ({
    updateOne: { filter: { ...scope(t), _id: id }, update: { $set: { status: messageStatus(of) } } },
  }));
  await conn.messages.bulkWrite(updates, { session, ordered: false });
}

/**
 * Fails the endpoint's pending and retrying deliveries (only those created before
 * `createdBefore` when given) and refreshes their messages. @returns how many failed.
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
  const open = await conn.deliveries.find(filter, { session, projection: { messageId: 1 } }).toArray();
  if (open.length === 0) return 0;
  // By id, and inside the transaction's snapshot: exactly the deliveries read above.
  await conn.deliveries.updateMany(
    { ...scope(t), _id: { $in: open.map((d) => d._id) } },
    { $set: { status: 'failed', nextAttemptAt: null } },
    { session },
  );
  await refreshMessageStatuses(conn, session, t, open.map((d) => d.messageId));
  return open.length;
}
