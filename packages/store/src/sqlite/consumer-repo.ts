import type { Consumer, ConsumerId, Tenant } from '@wirehook/core';
import { ConflictError } from '@wirehook/core/without-schemas';
import type { ConsumerRepo, PageRequest } from '../ports/consumer-port.ts';
import type { SqliteConnection } from './connection.ts';
import { isUniqueViolation } from './constraint.ts';
import { toConsumer } from './mappers.ts';

const SELECT = `
  SELECT c.*, (
    SELECT count(*) FROM endpoints e
    WHERE e.org_id = c.org_id AND e.env = c.env AND e.consumer_id = c.id
  ) AS endpoint_count
  FROM consumers c`;

/** Consumers in SQLite, scoped by tenant. */
export class SqliteConsumerRepo implements ConsumerRepo {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  async create(t: Tenant, consumer: Omit<Consumer, 'endpointCount'>): Promise<Consumer> {
    try {
      this.#conn
        .statement(`INSERT INTO consumers (id, org_id, env, external_id, name, created_at) VALUES (?, ?, ?, ?, ?, ?)`)
        .run(consumer.id, t.orgId, t.env, consumer.externalId, consumer.name, consumer.createdAt);
    } catch (err) {
      if (isUniqueViolation(err, 'consumers', ['org_id', 'env', 'external_id'])) {
        throw new ConflictError(`a consumer with external_id ${JSON.stringify(consumer.externalId)} already exists`);
      }
      throw err;
    }
    return { id: consumer.id, externalId: consumer.externalId, name: consumer.name, createdAt: consumer.createdAt, endpointCount: 0 };
  }

  async get(t: Tenant, id: ConsumerId): Promise<Consumer | null> {
    const row = this.#conn.statement(`${SELECT} WHERE c.org_id = ? AND c.env = ? AND c.id = ?`).get(t.orgId, t.env, id);
    return row === undefined ? null : toConsumer(row);
  }

  async getByExternalId(t: Tenant, externalId: string): Promise<Consumer | null> {
    const row = this.#conn.statement(`${SELECT} WHERE c.org_id = ? AND c.env = ? AND c.external_id = ?`).get(t.orgId, t.env, externalId);
    return row === undefined ? null : toConsumer(row);
  }

  async list(t: Tenant, page: PageRequest): Promise<Consumer[]> {
    // A negative LIMIT means "no limit" to SQLite; never let one through.
    if (!Number.isInteger(page.limit) || page.limit < 0) throw new RangeError(`page limit must be a non-negative integer, got ${page.limit}`);
    const rows =
      page.afterId === undefined
        ? this.#conn.statement(`${SELECT} WHERE c.org_id = ? AND c.env = ? ORDER BY c.id DESC LIMIT ?`).all(t.orgId, t.env, page.limit)
        : this.#conn
            .statement(`${SELECT} WHERE c.org_id = ? AND c.env = ? AND c.id < ? ORDER BY c.id DESC LIMIT ?`)
            .all(t.orgId, t.env, page.afterId, page.limit);
    return rows.map(toConsumer);
  }
}
