import type { Tenant } from '@wirehook/core';
import { SINCE_ID_MARGIN_MS, type MessageQuery, type MessageSummary } from '../ports/message-port.ts';
import type { MongoConnection } from './connection.ts';
import type { DeliveryDoc, MessageDoc } from './documents.ts';
import { toConsumerRef, toMessageHead } from './mappers.ts';
import { type Month, monthOf } from './months.ts';
import { MESSAGES_PLANS as P, type ListQuery } from './plans/messages.ts';
import { checkedLimit } from './query.ts';

// The message list: one page of messages (never their payloads), then their consumers and
// deliveries in one query each (the deliveries' one per month of the page). The page walks the
// index of its narrowest key, newest first: the consumer's (the portal), else the status's, else
// the event type's, else the tenant's; the other filters are tested on the walked range
// (plans/messages.ts says why that is bounded). Messages are kept by month (months.ts): the page
// walks the months newest first, from the cursor's down to `since`'s, and stops once it is full.

export { containsIgnoringAsciiCase } from './plans/messages.ts';

/** The plan of a list query: the index of its narrowest key. */
export function listPlan(t: Tenant, query: ListQuery) {
  if (query.consumerId !== undefined) return P.listOfConsumer(t, query);
  if (query.status !== undefined) return P.listByStatus(t, query);
  if (query.eventType !== undefined) return P.listByEventType(t, query);
  return P.listOfTenant(t, query);
}

/**
 * The months a page may hold messages of, newest first: of those that exist (`months`,
 * ascending), the cursor's and older, `since`'s and newer.
 */
function listMonths(conn: MongoConnection, months: readonly Month[], query: Pick<ListQuery, 'since' | 'afterId'>): Month[] {
  // The cursor's bucket (an id of an adopted month is in the legacy one: connection.ts).
  const newest = query.afterId === undefined ? undefined : conn.bucketMonthOf(query.afterId);
  // The plan's own bound on _id: an id may be stamped up to the margin before its createdAt
  // (messages written before the monthly collections stamped both alike), so it may be of the month before since's.
  const oldest = query.since === undefined ? undefined : monthOf(query.since - SINCE_ID_MARGIN_MS);
  return months.filter((month) => (newest === undefined || month <= newest) && (oldest === undefined || month >= oldest)).reverse();
}

/**
 * One page of the tenant's message list, newest first.
 * @returns up to `query.limit` messages, each with its consumer and a summary of its deliveries.
 * @throws RangeError for a limit that is not a non-negative integer.
 */
export async function listMessages(conn: MongoConnection, t: Tenant, query: MessageQuery): Promise<MessageSummary[]> {
  if (checkedLimit(query.limit) === 0) return [];
  const messages = await pageOf(conn, t, query);
  if (messages.length === 0) return [];
  const c = P.consumers(t, [...new Set(messages.map((m) => m.consumerId))]);
  const [consumers, deliveries] = await Promise.all([
    conn.consumers.find(c.filter, { ...c.options, projection: { externalId: 1, name: 1 } }).toArray(),
    deliveriesOf(conn, t, messages),
  ]);
  const consumerById = new Map(consumers.map((c) => [c._id, toConsumerRef(c)]));
  return messages.map((message) => {
    const consumer = consumerById.get(message.consumerId);
    if (consumer === undefined) throw new Error(`message ${message._id} lost its consumer ${message.consumerId}`);
    // Deliveries come sorted by id, so the first of the message's is its first delivery.
    const own = deliveries.filter((d) => d.messageId === message._id);
    const attempted = own.map((d) => d.lastAttemptAt).filter((at) => at !== null);
    return {
      message: toMessageHead(message),
      consumer,
      endpointUrl: own[0]?.url ?? null,
      attemptCount: own.reduce((sum, d) => sum + d.attemptCount, 0),
      lastAttemptAt: attempted.length === 0 ? null : Math.max(...attempted),
    };
  });
}

/** The page's messages: month by month, newest first, each month's range newest first, until the limit is filled. */
async function pageOf(conn: MongoConnection, t: Tenant, query: MessageQuery): Promise<MessageDoc[]> {
  const q = listPlan(t, query);
  const page: MessageDoc[] = [];
  for (const month of listMonths(conn, await conn.months(), query)) {
    // The rest of the page only: a month examines no more than the page still lacks (and its range's end).
    const found = await conn
      .bucket(month)
      .messages.find(q.filter, { ...q.options, projection: { payload: 0 } })
      .limit(query.limit - page.length)
      .toArray();
    page.push(...found);
    if (page.length === query.limit) break;
  }
  return page;
}

/** The deliveries of the page's messages, sorted by id per message: one query per month of the page. */
async function deliveriesOf(conn: MongoConnection, t: Tenant, messages: readonly MessageDoc[]): Promise<DeliveryDoc[]> {
  const ofMonths = [...conn.idsByBucket(messages.map((m) => m._id))].map(([month, ids]) => {
    const d = P.deliveriesOf(t, ids);
    return conn
      .bucket(month)
      .deliveries.find(d.filter, { ...d.options, projection: { messageId: 1, url: 1, attemptCount: 1, lastAttemptAt: 1 } })
      .toArray();
  });
  return (await Promise.all(ofMonths)).flat();
}
