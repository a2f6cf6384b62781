import { MAX_PAGE_SIZE, type DeliveryStatus, type MessageId, type Tenant } from '@wirehook/core';
import type { CreatedMessage, MessageDetail, MessageQuery, MessageRepo, MessageSummary, NewMessage } from '../ports/message-port.ts';
import type { MongoConnection } from './connection.ts';
import type { DeliveryDoc } from './documents.ts';
import { toAttempt, toConsumerRef, toDelivery, toMessage } from './mappers.ts';
import { payloadOf } from './message-body.ts';
import { createMessage } from './message-create.ts';
import { counterValues } from './usage-counters.ts';
import { listMessages } from './message-list.ts';
import { handOver } from './ordered-lanes.ts';
import { checkedLimit, OPEN_STATUSES, scope } from './query.ts';

/** Messages, their deliveries' history and the usage counters in MongoDB, scoped by tenant. */
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
    const message = await this.#conn.messages.findOne({ ...scope(t), _id: id });
    if (message === null) return null;
    const consumer = await this.#conn.consumers.findOne({ ...scope(t), _id: message.consumerId }, { projection: { externalId: 1, name: 1 } });
    if (consumer === null) throw new Error(`message ${id} lost its consumer ${message.consumerId}`);
    const deliveries = await this.#conn.deliveries
      .find({ ...scope(t), messageId: id })
      .sort({ _id: 1 })
      .toArray();
    const attempts = await this.#conn.attempts
      .find({ ...scope(t), deliveryId: { $in: deliveries.map((d) => d._id) } })
      .sort({ at: 1, _id: 1 })
      .toArray();
    return {
      message: toMessage(message, await payloadOf(this.#conn, t, message)),
      consumer: toConsumerRef(consumer),
      deliveries: deliveries.map((d) => ({
        delivery: toDelivery(d),
        attempts: attempts.filter((a) => a.deliveryId === d._id).map(toAttempt),
      })),
    };
  }

  async list(t: Tenant, query: MessageQuery): Promise<MessageSummary[]> {
    return listMessages(this.#conn, t, query);
  }

  async deliveryStatuses(t: Tenant, messageIds: readonly MessageId[]): Promise<Record<string, Partial<Record<DeliveryStatus, number>>>> {
    if (messageIds.length > MAX_PAGE_SIZE) throw new RangeError(`at most ${MAX_PAGE_SIZE} message ids, got ${messageIds.length}`);
    if (messageIds.length === 0) return {};
    const groups = await this.#conn.deliveries
      .aggregate<{ _id: { messageId: string; status: DeliveryStatus }; n: number }>([
        { $match: { ...scope(t), messageId: { $in: [...messageIds] } } },
        { $group: { _id: { messageId: '$messageId', status: '$status' }, n: { $sum: 1 } } },
      ])
      .toArray();
    const counts: Record<string, Partial<Record<DeliveryStatus, number>>> = {};
    for (const g of groups) (counts[g._id.messageId] ??= {})[g._id.status] = g.n;
    return counts;
  }

  async counter(key: string): Promise<number> {
    // Over or not: the port's reader decides by the key (a month's), as before shards.
    return (await counterValues(this.#conn, [key], Number.NEGATIVE_INFINITY))[key]!;
  }

  async deleteBefore(before: number, batch: number): Promise<number> {
    if (checkedLimit(batch, 'batch') === 0) return 0;
    // Retention runs across tenants: it is the one place that selects messages by age alone.
    // No transaction: `batch` messages of up to 1 MB each (with their deliveries and
    // attempts) would outgrow one. Each chunk deletes attempts, then deliveries, then the
    // messages, so a crash part-way leaves only messages already past retention (404 by
    // their id) with fewer rows, finished by the next run.
    let removed = 0;
    while (removed < batch) {
      const old = await this.#conn.messages
        .find({ createdAt: { $lt: before } }, { projection: { _id: 1 } })
        .sort({ createdAt: 1 })
        .limit(Math.min(RETENTION_CHUNK, batch - removed))
        .toArray();
      if (old.length === 0) break;
      const messageIds = old.map((doc) => doc._id);
      const deliveries = await this.#conn.deliveries
        .find({ messageId: { $in: messageIds } }, { projection: { _id: 1, orgId: 1, env: 1, endpointId: 1, orderingKey: 1, status: 1 } })
        .toArray();
      await this.#conn.attempts.deleteMany({ deliveryId: { $in: deliveries.map((d) => d._id) } });
      await this.#conn.deliveries.deleteMany({ messageId: { $in: messageIds } });
      await handOverDeleted(this.#conn, deliveries);
      // Bodies before their messages: a crash between leaves a message without its body until
      // the next run, never a body nothing can find. Such a message is past retention, so the
      // API answers 404 by its id's month before reading it, and it has no deliveries left to send.
      await this.#conn.messageBodies.deleteMany({ _id: { $in: messageIds } });
      const { deletedCount } = await this.#conn.messages.deleteMany({ _id: { $in: messageIds } });
      removed += deletedCount;
      if (old.length < RETENTION_CHUNK) break;
    }
    return removed;
  }
}

/**
 * Open ordered deliveries that retention deleted move their lanes on (#31), each in a
 * transaction of its own, after the delete: a lane is never handed over while its head can
 * still be sent. Every deleted one is looked at, waiting or not: a hand-over that made it the
 * head while it was being deleted has either committed (its lane names it) or conflicted.
 * A crash in between leaves a lane naming a gone head; its next message repairs it (joinLane).
 */
async function handOverDeleted(conn: MongoConnection, deleted: readonly DeliveryDoc[]): Promise<void> {
  for (const d of deleted) {
    if (typeof d.orderingKey !== 'string' || !OPEN_STATUSES.includes(d.status)) continue;
    const endpoint = await conn.endpoints.findOne({ orgId: d.orgId, env: d.env, _id: d.endpointId }, { projection: { status: 1 } });
    await conn.transaction((session) => handOver(conn, session, d, endpoint?.status !== 'active'));
  }
}

/** Messages one retention step deletes (with their deliveries and attempts). */
const RETENTION_CHUNK = 100;
