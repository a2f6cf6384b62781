import { firstIdAt, type Tenant } from '@wirehook/core';
import type { Filter } from 'mongodb';
import { SINCE_ID_MARGIN_MS, type MessageQuery, type MessageSummary } from '../ports/message-port.ts';
import type { MongoConnection } from './connection.ts';
import type { MessageDoc } from './documents.ts';
import { toConsumerRef, toMessageHead } from './mappers.ts';
import { checkedLimit, scope } from './query.ts';

// The message list: one page of messages (never their payloads), then their consumers and
// deliveries in one query each.

const Q_FIELDS = ['_id', 'eventType', 'consumerExternalId', 'idempotencyKey'] as const;

/** One page of the tenant's message list, newest first. */
export async function listMessages(conn: MongoConnection, t: Tenant, query: MessageQuery): Promise<MessageSummary[]> {
  if (checkedLimit(query.limit) === 0) return [];
  const messages = await conn.messages
    .find(messageFilter(t, query), { projection: { payload: 0 } })
    .sort({ _id: -1 })
    .limit(query.limit)
    .toArray();
  if (messages.length === 0) return [];
  const consumerIds = [...new Set(messages.map((m) => m.consumerId))];
  const [consumers, deliveries] = await Promise.all([
    conn.consumers.find({ ...scope(t), _id: { $in: consumerIds } }, { projection: { externalId: 1, name: 1 } }).toArray(),
    conn.deliveries
      .find({ ...scope(t), messageId: { $in: messages.map((m) => m._id) } }, { projection: { messageId: 1, url: 1, attemptCount: 1, lastAttemptAt: 1 } })
      .sort({ messageId: 1, _id: 1 })
      .toArray(),
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

/** The filter of a list query, always within the tenant. */
export function messageFilter(t: Tenant, query: MessageQuery): Filter<MessageDoc> {
  const filter: Filter<MessageDoc> = { ...scope(t) };
  if (query.consumerId !== undefined) filter.consumerId = query.consumerId;
  if (query.status !== undefined) filter.status = query.status;
  if (query.eventType !== undefined) filter.eventType = query.eventType;
  // `since` bounds the id too (SQLite's message-list.ts says why): the indexes end in _id.
  const idRange: { $gte?: string; $lt?: string } = {};
  if (query.since !== undefined) {
    filter.createdAt = { $gte: query.since };
    idRange.$gte = firstIdAt('message', query.since - SINCE_ID_MARGIN_MS);
  }
  if (query.afterId !== undefined) idRange.$lt = query.afterId;
  if (Object.keys(idRange).length > 0) filter._id = idRange;
  if (query.q !== undefined && query.q !== '') {
    const pattern = containsIgnoringAsciiCase(query.q);
    filter.$or = Q_FIELDS.map((field) => ({ [field]: { $regex: pattern } }));
  }
  return filter;
}

/**
 * A regular expression matching text that contains `q`, every character literal and ASCII
 * letters in either case; other letters match only as given, as SQL LIKE does.
 */
export function containsIgnoringAsciiCase(q: string): string {
  return q.replace(/[\\^$.*+?()[\]{}|/-]/g, (c) => `\\${c}`).replace(/[A-Za-z]/g, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`);
}
