import { messageStatus, type DeliveryStatus, type Tenant } from '@wirehook/core';
import type { AnyBulkWriteOperation, ClientSession, Document } from 'mongodb';
import type { MongoConnection } from './connection.ts';
import type { MessageDoc, StatusCounts, StatusEntry } from './documents.ts';
import type { Month } from './months.ts';
import { DELIVERIES_PLANS as DP } from './plans/deliveries.ts';
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
  for (const [month, ids] of conn.idsByBucket(messageIds)) await refreshInMonth(conn, session, t, month, ids);
}

/** refreshMessageStatuses for messages of one month. */
async function refreshInMonth(conn: MongoConnection, session: ClientSession, t: Tenant, month: Month, ids: readonly string[]): Promise<void> {
  // ≤ MAX_ENDPOINTS_PER_CONSUMER deliveries per message (deliveries_message), in no order.
  const q = P.recountOf(t, ids);
  const deliveries = await conn
    .bucket(month)
    .deliveries.find(q.filter, { ...q.options, session, projection: { messageId: 1, status: 1, attemptCount: 1 } })
    .toArray();
  const statuses = new Map<string, { _id: string; status: DeliveryStatus; attemptCount: number }[]>(ids.map((id) => [id, []]));
  for (const d of deliveries) statuses.get(d.messageId)?.push(d);
  // Always a write, even when the status is unchanged: two recounts of one message, each
  // reading the other's delivery as still open, would otherwise both write `pending` (a no-op
  // $set conflicts with nothing) and leave it pending for good. The version bump makes them
  // conflict, and the driver runs the loser again on a snapshot with the winner's delivery.
  const updates: AnyBulkWriteOperation<MessageDoc>[] = [...statuses].map(([id, of]) => {
    const counts = pendingCounts(0);
    for (const d of of) counts[d.status] += 1;
    // The map from the deliveries as this snapshot has them, each at its attempt count: a
    // completion's late write of the same count leaves it (settleMessageStatus).
    const map: Record<string, StatusEntry> = Object.fromEntries(of.map((d) => [d._id, { s: d.status, v: d.attemptCount ?? 0 }]));
    const m = P.byId(t, id);
    return {
      updateOne: { filter: m.filter, update: { $set: { status: messageStatus(of), counts, statuses: map }, $inc: { statusVersion: 1 } }, hint: m.options.hint },
    };
  });
  await conn.bucket(month).messages.bulkWrite(updates, { session, ordered: false, comment: P.byId.planName });
}

/**
 * A completion's result, told to its message after the completion committed — not in its
 * transaction: the 20 deliveries of a fan-out complete at once, and each writing the one
 * message inside its transaction made all but one conflict and run the whole completion again.
 * One update of the message's small document, outside any transaction (the server serialises
 * single-document writes itself): its entry for the delivery takes `status` when `attemptCount`
 * is higher than the entry's (a late write of an older attempt changes nothing; a recount's
 * entry, at the delivery's count, stands), and `counts` and `status` follow from the map. Then
 * the delivery's flag (`messageStale`) is cleared, unless a later completion set it again.
 * A message written before status maps existed is recounted instead, in a small transaction.
 */
export async function settleMessageStatus(
  conn: MongoConnection,
  t: Tenant,
  d: { _id: string; messageId: string; status: DeliveryStatus; attemptCount: number },
): Promise<void> {
  const bucket = conn.bucketOf(d.messageId);
  const q = P.withStatuses(t, d.messageId);
  const entry = `statuses.${d._id}`;
  const { matchedCount } = await bucket.messages.updateOne(
    q.filter,
    [
      {
        $set: {
          [entry]: { $cond: [{ $gt: [d.attemptCount, { $ifNull: [`$${entry}.v`, -1] }] }, { s: { $literal: d.status }, v: d.attemptCount }, `$${entry}`] },
        },
      },
      { $set: { counts: COUNTS_OF_STATUSES } },
      { $set: { status: STATUS_OF_COUNTS } },
    ],
    q.options,
  );
  if (matchedCount === 0) await conn.transaction((session) => refreshMessageStatuses(conn, session, t, [d.messageId]));
  const settled = DP.messageSettled(t, d._id, d.attemptCount);
  await conn.bucketOf(d._id).deliveries.updateOne(settled.filter, { $unset: { messageStale: '' } }, settled.options);
}

/**
 * Messages a completion could not tell (its process died between its commit and
 * settleMessageStatus), told now from the delivery as it stands: up to `limit` flagged
 * deliveries of each month (deliveries_message_stale, normally empty). The healer calls it.
 */
export async function repairMessageStatuses(conn: MongoConnection, months: readonly Month[], limit: number): Promise<void> {
  const q = DP.messageStale();
  for (const month of months) {
    const stale = await conn
      .bucket(month)
      .deliveries.find(q.filter, { ...q.options, projection: { orgId: 1, env: 1, messageId: 1, status: 1, attemptCount: 1 } })
      .limit(limit)
      .toArray();
    for (const d of stale) await settleMessageStatus(conn, { orgId: d.orgId as Tenant['orgId'], env: d.env }, d);
  }
}

/** A new message's map: each of its deliveries pending, at attempt count 0. */
export function pendingStatuses(deliveryIds: readonly string[]): Record<string, StatusEntry> {
  return Object.fromEntries(deliveryIds.map((id) => [id, { s: 'pending' as const, v: 0 }]));
}

// core's messageStatus over counts, as an aggregation expression: the first status in this
// order that any delivery has; `success` when none is open or failed.
const PRECEDENCE: readonly DeliveryStatus[] = ['retrying', 'pending', 'failed'];

/** The status `STATUS_OF_COUNTS` computes, in TypeScript (a test holds it equal to core's messageStatus). */
export function statusOfCounts(counts: StatusCounts): DeliveryStatus {
  return PRECEDENCE.find((status) => counts[status] > 0) ?? 'success';
}

/** A message's counts from its `statuses` map, as an aggregation expression. */
export const COUNTS_OF_STATUSES: Document = {
  $let: {
    vars: { all: { $map: { input: { $objectToArray: { $ifNull: ['$statuses', {}] } }, in: '$$this.v.s' } } },
    in: Object.fromEntries(
      (['pending', 'retrying', 'success', 'failed'] as const).map((status) => [
        status,
        { $size: { $filter: { input: '$$all', cond: { $eq: ['$$this', status] } } } },
      ]),
    ),
  },
};

export const STATUS_OF_COUNTS: Document = {
  $switch: {
    // biome-ignore lint/suspicious/noThenProperty: MongoDB's $switch names a branch's result `then`.
    branches: PRECEDENCE.map((status) => ({ case: { $gt: [`$counts.${status}`, 0] }, then: status })),
    default: 'success' satisfies DeliveryStatus,
  },
};
