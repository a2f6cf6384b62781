import { MAX_PAGE_SIZE, type DeliveryStatus, type MessageId, type Tenant } from '@wirehook/core';
import type { CreatedMessage, MessageDetail, MessageQuery, MessageRepo, MessageSummary, NewMessage } from '../ports/message-port.ts';
import type { MongoConnection } from './connection.ts';
import type { DeliveryDoc } from './documents.ts';
import { toAttempt, toConsumerRef, toDelivery, toMessage } from './mappers.ts';
import { payloadOf } from './message-body.ts';
import { createMessage } from './message-create.ts';
import { counterValues } from './usage-counters.ts';
import { listMessages } from './message-list.ts';
import { noteDue } from './due-queue.ts';
import { handOver } from './ordered-lanes.ts';
import { MESSAGES_PLANS as P } from './plans/messages.ts';
import { checkedLimit, OPEN_STATUSES } from './query.ts';

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
    const m = P.byId(t, id);
    const message = await this.#conn.messages.findOne(m.filter, m.options);
    if (message === null) return null;
    const c = P.consumers(t, [message.consumerId]);
    const consumer = await this.#conn.consumers.findOne(c.filter, { ...c.options, projection: { externalId: 1, name: 1 } });
    if (consumer === null) throw new Error(`message ${id} lost its consumer ${message.consumerId}`);
    const d = P.deliveriesOf(t, [id]);
    const deliveries = await this.#conn.deliveries.find(d.filter, d.options).toArray();
    const a = P.attemptsOf(
      t,
      deliveries.map((d) => d._id),
    );
    const attempts = deliveries.length === 0 ? [] : await this.#conn.attempts.find(a.filter, a.options).toArray();
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
    const q = P.statusesOf(t, messageIds);
    const groups = await this.#conn.deliveries.aggregate<{ _id: { messageId: string; status: DeliveryStatus }; n: number }>(q.pipeline!, q.options).toArray();
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
    // Each chunk: ≤ RETENTION_CHUNK keys of messages_created_at from its oldest, then the
    // chunk's deliveries (deliveries_message), attempts (attempts_delivery), bodies and messages
    // by id: nothing but what it deletes is read.
    let removed = 0;
    while (removed < batch) {
      const head = P.retentionHead(before);
      const old = await this.#conn.messages
        .find(head.filter, { ...head.options, projection: { _id: 1 } })
        .limit(Math.min(RETENTION_CHUNK, batch - removed))
        .toArray();
      if (old.length === 0) break;
      const messageIds = old.map((doc) => doc._id);
      const ofOld = P.deliveriesOfOld(messageIds);
      const deliveries = await this.#conn.deliveries
        .find(ofOld.filter, { ...ofOld.options, projection: { _id: 1, orgId: 1, env: 1, endpointId: 1, orderingKey: 1, status: 1 } })
        .toArray();
      if (deliveries.length > 0) {
        const attempts = P.attemptsOfOld(deliveries.map((d) => d._id));
        await this.#conn.attempts.deleteMany(attempts.filter, attempts.options);
        await this.#conn.deliveries.deleteMany(ofOld.filter, ofOld.options);
      }
      await handOverDeleted(this.#conn, deliveries);
      // Bodies before their messages: a crash between leaves a message without its body until
      // the next run, never a body nothing can find. Such a message is past retention, so the
      // API answers 404 by its id's month before reading it, and it has no deliveries left to send.
      const bodies = P.bodiesByIds(messageIds);
      await this.#conn.messageBodies.deleteMany(bodies.filter, bodies.options);
      const byIds = P.messagesByIds(messageIds);
      const { deletedCount } = await this.#conn.messages.deleteMany(byIds.filter, byIds.options);
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
    const e = P.endpoint({ orgId: d.orgId, env: d.env }, d.endpointId);
    const endpoint = await conn.endpoints.findOne(e.filter, { ...e.options, projection: { status: 1 } });
    const next = await conn.transaction((session) => handOver(conn, session, d, endpoint?.status !== 'active'));
    // The lane's next is due now: told to the due queue after the commit (due-queue.ts).
    if (next?.due) await noteDue(conn, [next.due]);
  }
}

/** Messages one retention step deletes (with their deliveries and attempts). */
const RETENTION_CHUNK = 100;
