import type { Tenant } from '@wirehook/core';
import type { MessageQuery, MessageSummary } from '../ports/message-port.ts';
import type { MongoConnection } from './connection.ts';
import { toConsumerRef, toMessageHead } from './mappers.ts';
import { MESSAGES_PLANS as P, type ListQuery } from './plans/messages.ts';
import { checkedLimit } from './query.ts';

// The message list: one page of messages (never their payloads), then their consumers and
// deliveries in one query each. The page walks the index of its narrowest key, newest first:
// the consumer's (the portal), else the status's, else the event type's, else the tenant's;
// the other filters are tested on the walked range (plans/messages.ts says why that is bounded).

export { containsIgnoringAsciiCase } from './plans/messages.ts';

/** The plan of a list query: the index of its narrowest key. */
export function listPlan(t: Tenant, query: ListQuery) {
  if (query.consumerId !== undefined) return P.listOfConsumer(t, query);
  if (query.status !== undefined) return P.listByStatus(t, query);
  if (query.eventType !== undefined) return P.listByEventType(t, query);
  return P.listOfTenant(t, query);
}

/** One page of the tenant's message list, newest first. */
export async function listMessages(conn: MongoConnection, t: Tenant, query: MessageQuery): Promise<MessageSummary[]> {
  if (checkedLimit(query.limit) === 0) return [];
  const q = listPlan(t, query);
  const messages = await conn.messages
    .find(q.filter, { ...q.options, projection: { payload: 0 } })
    .limit(query.limit)
    .toArray();
  if (messages.length === 0) return [];
  const c = P.consumers(t, [...new Set(messages.map((m) => m.consumerId))]);
  const d = P.deliveriesOf(
    t,
    messages.map((m) => m._id),
  );
  const [consumers, deliveries] = await Promise.all([
    conn.consumers.find(c.filter, { ...c.options, projection: { externalId: 1, name: 1 } }).toArray(),
    conn.deliveries.find(d.filter, { ...d.options, projection: { messageId: 1, url: 1, attemptCount: 1, lastAttemptAt: 1 } }).toArray(),
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
