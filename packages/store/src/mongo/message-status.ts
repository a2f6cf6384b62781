import { messageStatus, type DeliveryStatus, type Tenant } from '@wirehook/core';
import type { AnyBulkWriteOperation, ClientSession, Document } from 'mongodb';
import type { MongoConnection } from './connection.ts';
import type { MessageDoc, StatusCounts } from './documents.ts';
import { idsByMonth, type Month, monthOfId } from './months.ts';
import { MESSAGES_PLANS as P } from './plans/messages.ts';

// Writes that change delivery statuses, shared by the repos. Each runs inside the caller's
// transaction, so a message's stored status and counts never disagree with its deliveries.
// A message and its deliveries are in one month (months.ts): each is read and written there.

/** A new message's counts: all of its `deliveries` pending. */
export function pendingCounts(deliveries: number): StatusCounts {
  return { pending: deliveries, retrying: 0, success: 0, failed: 0 };
}

/**
 * Recounts each message of `t` from its deliveries and stores counts and status (with core's
 * `messageStatus`). For the writes that move many deliveries at once (walks, recoveries).
 * One read and one bulk write per month the messages are of.
 */
export async function refreshMessageStatuses(conn: MongoConnection, session: ClientSession, t: Tenant, messageIds: Iterable<string>): Promise<void> {
  for (const [month, ids] of idsByMonth(messageIds)) await refreshInMonth(conn, session, t, month, ids);
}

/** refreshMessageStatuses for messages of one month. */
async function refreshInMonth(conn: MongoConnection, session: ClientSession, t: Tenant, month: Month, ids: readonly string[]): Promise<void> {
  // ≤ MAX_ENDPOINTS_PER_CONSUMER deliveries per message (deliveries_message).
  const q = P.deliveriesOf(t, ids);
  const deliveries = await conn
    .bucket(month)
    .deliveries.find(q.filter, { ...q.options, session, projection: { messageId: 1, status: 1 } })
    .toArray();
  const statuses = new Map<string, { status: DeliveryStatus }[]>(ids.map((id) => [id, []]));
  for (const d of deliveries) statuses.get(d.messageId)?.push({ status: d.status });
  // Always a write, even when the status is unchanged: two recounts of one message, each
  // reading the other's delivery as still open, would otherwise both write `pending` (a no-op
  // $set conflicts with nothing) and leave it pending for good. The version bump makes them
  // conflict, and the driver runs the loser again on a snapshot with the winner's delivery.
  const updates: AnyBulkWriteOperation<MessageDoc>[] = [...statuses].map(([id, of]) => {
    const counts = pendingCounts(0);
    for (const d of of) counts[d.status] += 1;
    const m = P.byId(t, id);
    return { updateOne: { filter: m.filter, update: { $set: { status: messageStatus(of), counts }, $inc: { statusVersion: 1 } }, hint: m.options.hint } };
  });
  await conn.bucket(month).messages.bulkWrite(updates, { session, ordered: false, comment: P.byId.planName });
}

/**
 * One delivery of the message moved from `from` to `to`: its counts move by one and its status
 * follows from them, in one update of the message's small document — no read of its other
 * deliveries (a fan-out's 20 completions each read 20 before). Two completions of one message
 * both write its counts, so they conflict and the driver runs one again: the counts stay exact.
 * A message written before counts existed is recounted instead.
 */
export async function moveMessageCount(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  messageId: string,
  from: DeliveryStatus,
  to: DeliveryStatus,
): Promise<void> {
  if (from === to) return;
  const q = P.withCounts(t, messageId);
  const { matchedCount } = await conn
    .bucketOf(messageId)
    .messages.updateOne(
      q.filter,
      [
        { $set: { [`counts.${from}`]: { $add: [`$counts.${from}`, -1] }, [`counts.${to}`]: { $add: [`$counts.${to}`, 1] } } },
        { $set: { status: STATUS_OF_COUNTS } },
      ],
      { ...q.options, session },
    );
  if (matchedCount === 0) await refreshMessageStatuses(conn, session, t, [messageId]);
}

// core's messageStatus over counts, as an aggregation expression: the first status in this
// order that any delivery has; `success` when none is open or failed.
const PRECEDENCE: readonly DeliveryStatus[] = ['retrying', 'pending', 'failed'];

/** The status `STATUS_OF_COUNTS` computes, in TypeScript (a test holds it equal to core's messageStatus). */
export function statusOfCounts(counts: StatusCounts): DeliveryStatus {
  return PRECEDENCE.find((status) => counts[status] > 0) ?? 'success';
}

export const STATUS_OF_COUNTS: Document = {
  $switch: {
    // biome-ignore lint/suspicious/noThenProperty: MongoDB's $switch names a branch's result `then`.
    branches: PRECEDENCE.map((status) => ({ case: { $gt: [`$counts.${status}`, 0] }, then: status })),
    default: 'success' satisfies DeliveryStatus,
  },
};
