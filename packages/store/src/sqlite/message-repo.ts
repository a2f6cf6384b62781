import type { DeliveryStatus, MessageId, Tenant } from '@wirehook/core';
import { DELIVERY_ATTEMPTS_SHOWN, MAX_PAGE_SIZE } from '@wirehook/core/without-schemas';
import type { CreatedMessage, MessageDetail, MessageQuery, MessageRepo, MessagePage, NewMessage } from '../ports/message-port.ts';
import type { SqliteConnection } from './connection.ts';
import { newestAttempts } from './delivery-repo.ts';
import { toConsumerRef, toDelivery, toMessage, toMessageHead } from './mappers.ts';
import { createMessage } from './message-create.ts';
import { messageListQuery } from './message-list.ts';
import { int, intOrNull, text, textOrNull } from './row.ts';

/** Messages, their deliveries' history and the usage counters in SQLite, scoped by tenant. */
export class SqliteMessageRepo implements MessageRepo {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  /** @throws PlanLimitError when a counter is at its limit (nothing written). */
  async create(t: Tenant, input: NewMessage): Promise<CreatedMessage> {
    return createMessage(this.#conn, t, input);
  }

  async get(t: Tenant, id: MessageId): Promise<MessageDetail | null> {
    // One snapshot: on the reader's thread another commit may land between the statements.
    return this.#conn.snapshot(() => {
      const row = this.#conn
        .statement(
          `SELECT m.*, c.external_id AS consumer_external_id, c.name AS consumer_name
           FROM messages m JOIN consumers c ON c.org_id = m.org_id AND c.env = m.env AND c.id = m.consumer_id
           WHERE m.org_id = ? AND m.env = ? AND m.id = ?`,
        )
        .get(t.orgId, t.env, id);
      if (row === undefined) return null;
      // Each delivery's newest attempts only (a delivery may have hundreds), oldest of them first.
      const deliveries = this.#conn
        .statement('SELECT * FROM deliveries WHERE message_id = ? ORDER BY id')
        .all(id)
        .map((d) => {
          const newest = newestAttempts(this.#conn, text(d, 'id'), DELIVERY_ATTEMPTS_SHOWN + 1);
          return {
            delivery: toDelivery(d),
            attempts: newest.slice(0, DELIVERY_ATTEMPTS_SHOWN).reverse(),
            olderAttempts: newest.length > DELIVERY_ATTEMPTS_SHOWN,
          };
        });
      return { message: toMessage(row), consumer: toConsumerRef(row), deliveries };
    });
  }

  async deliveryStatuses(t: Tenant, messageIds: readonly MessageId[]): Promise<Record<string, Partial<Record<DeliveryStatus, number>>>> {
    if (messageIds.length > MAX_PAGE_SIZE) throw new RangeError(`at most ${MAX_PAGE_SIZE} message ids, got ${messageIds.length}`);
    const counts: Record<string, Partial<Record<DeliveryStatus, number>>> = {};
    // One statement text for any page: the ids as a JSON array (deliveries_message by id).
    const rows = this.#conn
      .statement(
        `SELECT message_id, status, count(*) AS n FROM deliveries
         WHERE message_id IN (SELECT value FROM json_each(?)) AND org_id = ? AND env = ? GROUP BY message_id, status`,
      )
      .all(JSON.stringify(messageIds), t.orgId, t.env);
    for (const row of rows) (counts[text(row, 'message_id')] ??= {})[text(row, 'status') as DeliveryStatus] = int(row, 'n');
    return counts;
  }

  async list(t: Tenant, query: MessageQuery): Promise<MessagePage> {
    const { sql, params } = messageListQuery(t, query);
    const rows = this.#conn
      .statement(sql)
      .all(...params)
      .map((row) => ({
        message: toMessageHead(row),
        consumer: toConsumerRef(row),
        endpointUrl: textOrNull(row, 'endpoint_url'),
        attemptCount: int(row, 'attempt_count'),
        lastAttemptAt: intOrNull(row, 'last_attempt_at'),
      }));
    // One process's own file: its walk is the machine's own work, never cut short.
    return { rows, resumeAfterId: null };
  }

  async counter(key: string): Promise<number> {
    const row = this.#conn.statement('SELECT value FROM usage_counters WHERE key = ?').get(key);
    return row === undefined ? 0 : int(row, 'value');
  }

  async deleteBefore(before: number, batch: number): Promise<number> {
    if (!Number.isInteger(batch) || batch < 0) throw new RangeError(`batch must be a non-negative integer, got ${batch}`);
    return this.#conn.immediate(() => {
      const ids = this.#conn
        .statement('SELECT id FROM messages WHERE created_at < ? ORDER BY created_at LIMIT ?')
        .all(before, batch)
        .map((row) => text(row, 'id'));
      if (ids.length === 0) return 0;
      // Children first: attempts reference deliveries, deliveries reference messages.
      const idList = JSON.stringify(ids);
      this.#conn
        .statement(
          `DELETE FROM attempts WHERE delivery_id IN (
             SELECT d.id FROM deliveries d WHERE d.message_id IN (SELECT value FROM json_each(?)))`,
        )
        .run(idList);
      this.#conn.statement('DELETE FROM deliveries WHERE message_id IN (SELECT value FROM json_each(?))').run(idList);
      this.#conn.statement('DELETE FROM messages WHERE id IN (SELECT value FROM json_each(?))').run(idList);
      return ids.length;
    });
  }
}
