import { ConflictError, type EventType, type Tenant } from '@wirehook/core';
import type { EventTypeRepo } from '../ports/event-type-port.ts';
import type { SqliteConnection } from './connection.ts';
import { isUniqueViolation } from './constraint.ts';
import { toEventType } from './mappers.ts';

/** Event types in SQLite, scoped by tenant. */
export class SqliteEventTypeRepo implements EventTypeRepo {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  async create(t: Tenant, eventType: EventType): Promise<EventType> {
    try {
      const row = this.#conn
        .statement(
          `INSERT INTO event_types (org_id, env, name, description, archived_at, created_at)
           VALUES (?, ?, ?, ?, ?, ?) RETURNING *`,
        )
        .get(t.orgId, t.env, eventType.name, eventType.description, eventType.archivedAt, eventType.createdAt);
      if (row === undefined) throw new Error('INSERT … RETURNING gave no row');
      return toEventType(row);
    } catch (err) {
      if (isUniqueViolation(err, 'event_types', ['org_id', 'env', 'name'])) {
        throw new ConflictError(`an event type named ${JSON.stringify(eventType.name)} already exists`);
      }
      throw err;
    }
  }

  async list(t: Tenant): Promise<EventType[]> {
    return this.#conn.statement('SELECT * FROM event_types WHERE org_id = ? AND env = ? ORDER BY name').all(t.orgId, t.env).map(toEventType);
  }
}
