import { messageStatus, type DeliveryStatus, type Tenant } from '@wirehook/core';
import type { AnyBulkWriteOperation, ClientSession } from 'mongodb';
import type { MongoConnection } from './connection.ts';
import type { MessageDoc } from './documents.ts';
import { scope } from './query.ts';

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
