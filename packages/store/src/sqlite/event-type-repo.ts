import { isDeepStrictEqual } from 'node:util';
import type { EventType, EventTypeSummary, EventTypeVersion, Tenant } from '@wirehook/core';
import { ConflictError, InvalidError } from '@wirehook/core/without-schemas';
import { EVENT_TYPE_VERSIONS_PAGE, EVENT_TYPES_ENFORCING_CAP, type EventTypePatch, type EventTypeRepo } from '../ports/event-type-port.ts';
import type { SqliteConnection } from './connection.ts';
import { isUniqueViolation } from './constraint.ts';
import { toEventType, toEventTypeSummary } from './mappers.ts';
import { int, type Row } from './row.ts';

/** The columns of a list: everything but the schema and examples, and whether there is a schema. */
const SUMMARY = 'name, description, archived_at, created_at, validation, deprecated, version, updated_at, version_at, rev, schema IS NOT NULL AS has_schema';
/** The tenant's catalog, by name (built once: SqliteConnection.statement says why). */
const LIST = `SELECT ${SUMMARY} FROM event_types WHERE org_id = ? AND env = ? ORDER BY name`;

/** Event types in SQLite, scoped by tenant. */
export class SqliteEventTypeRepo implements EventTypeRepo {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  async create(t: Tenant, e: EventType, max: number): Promise<EventType> {
    return this.#conn.immediate(() => {
      // Bounded by the cap itself: at most `max` keys of event_types_name are counted.
      const count = int(
        this.#conn.statement('SELECT count(*) AS n FROM (SELECT 1 FROM event_types WHERE org_id = ? AND env = ? LIMIT ?)').get(t.orgId, t.env, max)!,
        'n',
      );
      if (count >= max) throw new InvalidError(`this environment already has ${count} event types; the limit is ${max}`);
      try {
        const row = this.#conn
          .statement(
            `INSERT INTO event_types (org_id, env, name, description, archived_at, created_at, schema, examples, validation, deprecated, version,
                                      updated_at, version_at, rev)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
          )
          .get(
            t.orgId,
            t.env,
            e.name,
            e.description,
            e.archivedAt,
            e.createdAt,
            jsonOrNull(e.schema),
            JSON.stringify(e.examples),
            e.validation,
            e.deprecated ? 1 : 0,
            e.version,
            e.updatedAt,
            e.versionAt,
            e.rev,
          );
        if (row === undefined) throw new Error('INSERT … RETURNING gave no row');
        return toEventType(row);
      } catch (err) {
        if (isUniqueViolation(err, 'event_types', ['org_id', 'env', 'name'])) {
          throw new ConflictError(`an event type named ${JSON.stringify(e.name)} already exists`);
        }
        throw err;
      }
    });
  }

  async list(t: Tenant): Promise<EventTypeSummary[]> {
    return this.#conn.statement(LIST).all(t.orgId, t.env).map(toEventTypeSummary);
  }

  async get(t: Tenant, name: string): Promise<EventType | null> {
    const row = this.#conn.statement('SELECT * FROM event_types WHERE org_id = ? AND env = ? AND name = ?').get(t.orgId, t.env, name);
    return row === undefined ? null : toEventType(row);
  }

  async update(t: Tenant, name: string, patch: EventTypePatch, now: number, expectedRev: number): Promise<EventType | null> {
    return this.#conn.immediate(() => {
      const row = this.#conn.statement('SELECT * FROM event_types WHERE org_id = ? AND env = ? AND name = ?').get(t.orgId, t.env, name);
      if (row === undefined) return null;
      const current = toEventType(row);
      if (current.rev !== expectedRev) throw new ConflictError(`event type ${JSON.stringify(name)} changed meanwhile; read it and try again`);
      const next: EventType = { ...current, ...definedOf(patch), updatedAt: now, rev: current.rev + 1 };
      if (patch.schema !== undefined && !isDeepStrictEqual(patch.schema, current.schema)) {
        // The version it replaces is kept, with when it became current and when it was replaced.
        this.#conn
          .statement(
            `INSERT INTO event_type_versions (org_id, env, name, version, schema, created_at, retired_at)
             VALUES (?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(t.orgId, t.env, name, current.version, jsonOrNull(current.schema), current.versionAt, now);
        // The newest EVENT_TYPE_VERSIONS_PAGE are kept: the one past them goes (a range of the primary key).
        this.#conn
          .statement('DELETE FROM event_type_versions WHERE org_id = ? AND env = ? AND name = ? AND version <= ?')
          .run(t.orgId, t.env, name, current.version - EVENT_TYPE_VERSIONS_PAGE);
        next.version = current.version + 1;
        next.versionAt = now;
      }
      const updated = this.#conn
        .statement(
          `UPDATE event_types SET description = ?, schema = ?, examples = ?, validation = ?, deprecated = ?, version = ?, updated_at = ?,
                                  version_at = ?, rev = ?
            WHERE org_id = ? AND env = ? AND name = ? RETURNING *`,
        )
        .get(
          next.description,
          jsonOrNull(next.schema),
          JSON.stringify(next.examples),
          next.validation,
          next.deprecated ? 1 : 0,
          next.version,
          now,
          next.versionAt,
          next.rev,
          t.orgId,
          t.env,
          name,
        );
      if (updated === undefined) throw new Error('UPDATE … RETURNING gave no row');
      return toEventType(updated);
    });
  }

  async versions(t: Tenant, name: string): Promise<EventTypeVersion[]> {
    return this.#conn
      .statement('SELECT * FROM event_type_versions WHERE org_id = ? AND env = ? AND name = ? ORDER BY version DESC LIMIT ?')
      .all(t.orgId, t.env, name, EVENT_TYPE_VERSIONS_PAGE)
      .map((row: Row) => ({
        version: int(row, 'version'),
        schema: row['schema'] === null ? null : (JSON.parse(String(row['schema'])) as Record<string, unknown>),
        createdAt: int(row, 'created_at'),
        retiredAt: int(row, 'retired_at'),
      }));
  }

  async enforcing(t: Tenant): Promise<{ name: string; version: number }[]> {
    // event_types_enforcing (partial: enforcing types only, covering): no schema is read.
    return this.#conn
      .statement(`SELECT name, version FROM event_types WHERE org_id = ? AND env = ? AND validation = 'enforce' ORDER BY name LIMIT ?`)
      .all(t.orgId, t.env, EVENT_TYPES_ENFORCING_CAP)
      .map((row: Row) => ({ name: String(row['name']), version: int(row, 'version') }));
  }

  async page(t: Tenant, after: string | null, limit: number): Promise<EventType[]> {
    return this.#conn
      .statement('SELECT * FROM event_types WHERE org_id = ? AND env = ? AND name > ? ORDER BY name LIMIT ?')
      .all(t.orgId, t.env, after ?? '', limit)
      .map(toEventType);
  }
}

function jsonOrNull(value: unknown): string | null {
  return value === null ? null : JSON.stringify(value);
}

/** The patch's fields that are set (undefined leaves a field as it is). */
function definedOf(patch: EventTypePatch): Partial<EventType> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<EventType>;
}
