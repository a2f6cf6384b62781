import { firstIdAt, type Tenant } from '@wirehook/core';
import { SINCE_ID_MARGIN_MS, type MessagePage, type MessageQuery } from '../ports/message-port.ts';
import type { MongoConnection } from './connection.ts';
import type { DeliveryDoc, MessageDoc } from './documents.ts';
import { toConsumerRef, toMessageHead } from './mappers.ts';
import { type Month, monthOf, monthStartOf } from './months.ts';
import { hasResidual, LIST_SCAN_BUDGET, MESSAGES_PLANS as P, type ListQuery } from './plans/messages.ts';
import { checkedLimit } from './query.ts';

// The message list: one page of messages (never their payloads), then their consumers and
// deliveries in one query each (the deliveries' one per month of the page). The page walks the
// index of its narrowest key, newest first: the consumer's (the portal), else the status's, else
// the event type's, else the tenant's; the other filters are tested on the walked range
// (plans/messages.ts says why that is bounded). Messages are kept by month (months.ts): the page
// walks the months newest first, from the cursor's down to `since`'s, and stops once it is full.
// A page that tests a residual message by message fetches LIST_SCAN_BUDGET messages at most: it
// counts each month's range on the index's keys first (covered), and past the budget cuts the
// range at the budget's edge and ends there with a cursor (MessagePage.resumeAfterId).

export { containsIgnoringAsciiCase } from './plans/messages.ts';

/** The plan of a list query: the index of its narrowest key, with its window plan and whether it tests residuals. */
export function listPlan(t: Tenant, query: ListQuery) {
  if (query.consumerId !== undefined)
    return { page: P.listOfConsumer(t, query), window: P.listWindowOfConsumer(t, query), residual: hasResidual(query, 'consumerId') };
  if (query.status !== undefined) return { page: P.listByStatus(t, query), window: P.listWindowByStatus(t, query), residual: hasResidual(query, 'status') };
  if (query.eventType !== undefined) {
    return { page: P.listByEventType(t, query), window: P.listWindowByEventType(t, query), residual: hasResidual(query, 'eventType') };
  }
  return { page: P.listOfTenant(t, query), window: P.listWindowOfTenant(t, query), residual: hasResidual(query, null) };
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
export async function listMessages(conn: MongoConnection, t: Tenant, query: MessageQuery): Promise<MessagePage> {
  if (checkedLimit(query.limit) === 0) return { rows: [], resumeAfterId: null };
  const { messages, resumeAfterId } = await pageOf(conn, t, query);
  if (messages.length === 0) return { rows: [], resumeAfterId };
  const c = P.consumers(t, [...new Set(messages.map((m) => m.consumerId))]);
  const [consumers, deliveries] = await Promise.all([
    conn.consumers.find(c.filter, { ...c.options, projection: { externalId: 1, name: 1 } }).toArray(),
    deliveriesOf(conn, t, messages),
  ]);
  const consumerById = new Map(consumers.map((c) => [c._id, toConsumerRef(c)]));
  const rows = messages.map((message) => {
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
  return { rows, resumeAfterId };
}

/** The page's messages: month by month, newest first, each month's range newest first, until the limit is filled (or the budget spent). */
async function pageOf(conn: MongoConnection, t: Tenant, query: MessageQuery): Promise<{ messages: MessageDoc[]; resumeAfterId: string | null }> {
  const { page, window, residual } = listPlan(t, query);
  const { hint, comment } = window.options;
  return walkMonths(listMonths(conn, await conn.months(), query), query.limit, residual ? LIST_SCAN_BUDGET : null, {
    count: (month, limit) => conn.bucket(month).messages.countDocuments(window.filter, { hint, comment, limit }),
    edge: async (month, skip) => {
      const [edge] = await conn
        .bucket(month)
        .messages.find(window.filter, { ...window.options, projection: { _id: 1 } })
        .skip(skip)
        .limit(1)
        .toArray();
      return edge?._id ?? null;
    },
    // The rest of the page only: a month examines no more than the page still lacks (and its range's end).
    page: (month, from, limit) => {
      const cut = from === null ? page : listPlan(t, { ...query, fromId: from }).page;
      return conn
        .bucket(month)
        .messages.find(cut.filter, { ...cut.options, projection: { payload: 0 } })
        .limit(limit)
        .toArray();
    },
    // The lowest id of the month's first millisecond: every id of the month is above it.
    pastMonth: (month) => firstIdAt('message', monthStartOf(month)),
  });
}

/** How a page's walk reads one month (pageOf): the window's count and edge, and the page itself from an id on. */
export interface MonthReads<D> {
  /** The messages of the month's walked range, counted up to `limit`. */
  count(month: Month, limit: number): Promise<number>;
  /** The id `skip` messages into the month's walked range, newest first (null past its end). */
  edge(month: Month, skip: number): Promise<string | null>;
  /** Up to `limit` of the month's matches, newest first, at or newer than `from` when given. */
  page(month: Month, from: string | null, limit: number): Promise<D[]>;
  /** A cursor past the month's oldest message (the next page goes on in the months before it). */
  pastMonth(month: Month): string;
}

/**
 * The page's walk over `months` (newest first). With a `budget` (a residual tested message by
 * message), each month's range is counted first up to what is left of it; a month past it is
 * read only down to the budget's edge, and the page ends there, its cursor that edge's id.
 */
export async function walkMonths<D>(
  months: readonly Month[],
  limit: number,
  budget: number | null,
  reads: MonthReads<D>,
): Promise<{ messages: D[]; resumeAfterId: string | null }> {
  const messages: D[] = [];
  let left = budget ?? Number.POSITIVE_INFINITY;
  for (const month of months) {
    let from: string | null = null;
    if (budget !== null) {
      // Counted up to what is left (never 0, which would count all: a month that reaches it ends the page).
      const inRange = await reads.count(month, left);
      if (inRange >= left) {
        from = await reads.edge(month, left - 1);
        if (from === null) {
          // The range shrank between its count and its edge (a status range loses a message at
          // each completion; retention drops a whole month): fewer than `left` now, so the month
          // is read uncut within the budget, and the page ends past it — never a cursor of null
          // that would tell the list is over while older months are left, never a count without
          // a limit. The oldest month walked has nothing past it (the legacy bucket, which holds
          // the months before it too, would be listed again from a cursor at its month's start).
          messages.push(...(await reads.page(month, null, limit - messages.length)));
          const oldest = month === months[months.length - 1];
          return { messages, resumeAfterId: messages.length === limit || oldest ? null : reads.pastMonth(month) };
        }
      }
      left -= inRange;
    }
    messages.push(...(await reads.page(month, from, limit - messages.length)));
    if (messages.length === limit) return { messages, resumeAfterId: null };
    if (from !== null) return { messages, resumeAfterId: from };
  }
  return { messages, resumeAfterId: null };
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
