import { DELIVERY_ATTEMPTS_SHOWN, MAX_PAGE_SIZE, type DeliveryStatus, type MessageId, type Tenant } from '@wirehook/core';
import type { CreatedMessage, MessageDetail, MessageQuery, MessageRepo, MessagePage, NewMessage } from '../ports/message-port.ts';
import type { MongoConnection } from './connection.ts';
import { newestAttemptsOf } from './delivery-repo.ts';
import { toConsumerRef, toDelivery, toMessage } from './mappers.ts';
import { payloadOf } from './message-body.ts';
import { createMessage } from './message-create.ts';
import { listMessages } from './message-list.ts';
import { dropMonthsBefore } from './month-buckets.ts';
import { MESSAGES_PLANS as P } from './plans/messages.ts';
import { checkedLimit } from './query.ts';
import { counterValues } from './usage-counters.ts';

/**
 * Messages, their deliveries' history and the usage counters in MongoDB, scoped by tenant.
 * A message, its body, its deliveries and their attempts are in one month's collections
 * (months.ts): a read by a message's id reads that month's alone.
 */
export class MongoMessageRepo implements MessageRepo {
  readonly #conn: MongoConnection;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  /** @throws PlanLimitError when a counter is at its limit (nothing written). */
  async create(t: Tenant, input: NewMessage): Promise<CreatedMessage> {
    return createMessage(this.#conn, t, input);
  }

  async get(t: Tenant, id: MessageId): Promise<MessageDetail | null> {
    const m = P.byId(t, id);
    const message = await this.#conn.bucketOf(id).messages.findOne(m.filter, m.options);
    if (message === null) return null;
    const c = P.consumers(t, [message.consumerId]);
    const consumer = await this.#conn.consumers.findOne(c.filter, { ...c.options, projection: { externalId: 1, name: 1 } });
    if (consumer === null) throw new Error(`message ${id} lost its consumer ${message.consumerId}`);
    const d = P.deliveriesOf(t, [id]);
    const deliveries = await this.#conn.bucketOf(id).deliveries.find(d.filter, d.options).toArray();
    // Each delivery's newest attempts only (a delivery may have hundreds), oldest of them
    // first; an attempt is in its delivery's month: the message's.
    const newest = await Promise.all(deliveries.map((d) => newestAttemptsOf(this.#conn, t, d._id, DELIVERY_ATTEMPTS_SHOWN + 1)));
    return {
      message: toMessage(message, await payloadOf(this.#conn, t, message)),
      consumer: toConsumerRef(consumer),
      deliveries: deliveries.map((d, i) => ({
        delivery: toDelivery(d),
        attempts: (newest[i] ?? []).slice(0, DELIVERY_ATTEMPTS_SHOWN).reverse(),
        olderAttempts: (newest[i] ?? []).length > DELIVERY_ATTEMPTS_SHOWN,
      })),
    };
  }

  async list(t: Tenant, query: MessageQuery): Promise<MessagePage> {
    return listMessages(this.#conn, t, query);
  }

  /**
   * The counts each message keeps of its deliveries by status (message-status.ts: moved by the
   * write after each completion, so the row's status and its counts agree): ≤ MAX_PAGE_SIZE point
   * reads a page. A message written before it kept them is counted from its deliveries (one
   * aggregate per month of those: up to 20 × MAX_PAGE_SIZE deliveries read again, the list's read of them just before).
   */
  async deliveryStatuses(t: Tenant, messageIds: readonly MessageId[]): Promise<Record<string, Partial<Record<DeliveryStatus, number>>>> {
    if (messageIds.length > MAX_PAGE_SIZE) throw new RangeError(`at most ${MAX_PAGE_SIZE} message ids, got ${messageIds.length}`);
    const counts: Record<string, Partial<Record<DeliveryStatus, number>>> = {};
    for (const [month, ids] of this.#conn.idsByBucket(messageIds)) {
      const kept = P.countsOf(t, ids);
      const docs = await this.#conn
        .bucket(month)
        .messages.find(kept.filter, { ...kept.options, projection: { counts: 1 } })
        .toArray();
      const uncounted: string[] = [];
      for (const doc of docs) {
        if (doc.counts === undefined) {
          uncounted.push(doc._id);
          continue;
        }
        const some = Object.entries(doc.counts).filter(([, n]) => n > 0);
        if (some.length > 0) counts[doc._id] = Object.fromEntries(some);
      }
      if (uncounted.length === 0) continue;
      const q = P.statusesOf(t, uncounted);
      const groups = await this.#conn.bucket(month).deliveries.aggregate<StatusGroup>(q.pipeline!, q.options).toArray();
      for (const g of groups) (counts[g._id.messageId] ??= {})[g._id.status] = g.n;
    }
    return counts;
  }

  async counter(key: string): Promise<number> {
    // Over or not: the port's reader decides by the key (a month's), as before shards.
    return (await counterValues(this.#conn, [key], Number.NEGATIVE_INFINITY))[key]!;
  }

  /**
   * Retention drops whole months (month-buckets.ts): nothing is deleted document by document.
   * @throws RangeError for a batch that is not a non-negative integer.
   */
  async deleteBefore(before: number, batch: number): Promise<number> {
    checkedLimit(batch, 'batch');
    return dropMonthsBefore(this.#conn, before, batch);
  }
}

/** statusesOf's output: one message's deliveries of one status. */
type StatusGroup = { _id: { messageId: string; status: DeliveryStatus }; n: number };
