import { isDeepStrictEqual } from 'node:util';
import { ConflictError, type EventType, type EventTypeSummary, type EventTypeVersion, type Tenant } from '@wirehook/core';
import { EVENT_TYPE_VERSIONS_PAGE, type EventTypePatch, type EventTypeRepo } from '../ports/event-type-port.ts';
import type { MongoConnection } from './connection.ts';
import type { EventTypeDoc } from './documents.ts';
import { isDuplicateKey } from './errors.ts';
import { UNIQUE_INDEX } from './indexes.ts';
import { toEventType, toEventTypeSummary } from './mappers.ts';
import { EVENT_TYPES_LIST_CAP, TENANCY_PLANS as P } from './plans/tenancy.ts';
import { checkedLimit, scope } from './query.ts';

/** A list's fields: all but the schema and examples text, and whether there is a schema (computed by the server). */
const SUMMARY = {
  orgId: 1,
  env: 1,
  name: 1,
  description: 1,
  archivedAt: 1,
  createdAt: 1,
  validation: 1,
  deprecated: 1,
  version: 1,
  updatedAt: 1,
  hasSchema: { $ne: [{ $ifNull: ['$schemaJson', null] }, null] },
};

/** Event types in MongoDB, scoped by tenant. */
export class MongoEventTypeRepo implements EventTypeRepo {
  readonly #conn: MongoConnection;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  async create(t: Tenant, e: EventType): Promise<EventType> {
    const doc: EventTypeDoc = {
      ...scope(t),
      name: e.name,
      description: e.description,
      archivedAt: e.archivedAt,
      createdAt: e.createdAt,
      schemaJson: e.schema === null ? null : JSON.stringify(e.schema),
      examplesJson: JSON.stringify(e.examples),
      validation: e.validation,
      deprecated: e.deprecated,
      version: e.version,
      updatedAt: e.updatedAt,
    };
    try {
      await this.#conn.eventTypes.insertOne(doc);
    } catch (err) {
      if (isDuplicateKey(err, UNIQUE_INDEX.eventTypeName)) {
        throw new ConflictError(`an event type named ${JSON.stringify(e.name)} already exists`);
      }
      throw err;
    }
    return toEventType(doc);
  }

  async list(t: Tenant): Promise<EventTypeSummary[]> {
    // Binary string order, as SQLite's default collation sorts the names. Bounded by
    // EVENT_TYPES_LIST_CAP (the first that many by name; TODO: the port takes no page yet).
    // Without the schema and examples text (up to ~144 KB a type): only whether there is a schema.
    const q = P.eventTypes(t);
    const docs = await this.#conn.eventTypes
      .find<Omit<EventTypeDoc, 'schemaJson' | 'examplesJson'> & { hasSchema: boolean }>(q.filter, { ...q.options, projection: SUMMARY })
      .limit(EVENT_TYPES_LIST_CAP)
      .toArray();
    return docs.map(toEventTypeSummary);
  }

  async get(t: Tenant, name: string): Promise<EventType | null> {
    const q = P.eventTypeByName(t, name);
    const doc = await this.#conn.eventTypes.findOne(q.filter, q.options);
    return doc === null ? null : toEventType(doc);
  }

  async update(t: Tenant, name: string, patch: EventTypePatch, now: number): Promise<EventType | null> {
    const current = await this.get(t, name);
    if (current === null) return null;
    const set: Partial<EventTypeDoc> = { updatedAt: now };
    if (patch.description !== undefined) set.description = patch.description;
    if (patch.examples !== undefined) set.examplesJson = JSON.stringify(patch.examples);
    if (patch.validation !== undefined) set.validation = patch.validation;
    if (patch.deprecated !== undefined) set.deprecated = patch.deprecated;
    if (patch.schema !== undefined && !isDeepStrictEqual(patch.schema, current.schema)) {
      // The version it replaces is kept first (unique by version: a retry after a crash here keeps
      // one copy), then the event type moves on from the version read. No transaction: a version
      // kept whose move did not happen is the current one, which versions() never lists.
      try {
        await this.#conn.eventTypeVersions.insertOne({
          ...scope(t),
          name,
          version: current.version,
          schemaJson: current.schema === null ? null : JSON.stringify(current.schema),
          createdAt: current.updatedAt,
          retiredAt: now,
        });
      } catch (err) {
        if (!isDuplicateKey(err, UNIQUE_INDEX.eventTypeVersion)) throw err;
      }
      set.schemaJson = patch.schema === null ? null : JSON.stringify(patch.schema);
      set.version = current.version + 1;
    }
    // Only from the version read (documents made before the catalog have none: version 1).
    const q = P.eventTypeByName(t, name, current.version);
    const updated = await this.#conn.eventTypes.findOneAndUpdate(q.filter, { $set: set }, { ...q.options, returnDocument: 'after' });
    if (updated === null) throw new ConflictError(`event type ${JSON.stringify(name)} changed meanwhile; read it and try again`);
    return toEventType(updated);
  }

  async versions(t: Tenant, name: string): Promise<EventTypeVersion[]> {
    const q = P.eventTypeVersions(t, name);
    const current = (await this.get(t, name))?.version ?? 0;
    const docs = await this.#conn.eventTypeVersions.find(q.filter, q.options).limit(EVENT_TYPE_VERSIONS_PAGE).toArray();
    return docs
      .filter((d) => d.version < current)
      .map((d) => ({
        version: d.version,
        schema: d.schemaJson === null ? null : (JSON.parse(d.schemaJson) as Record<string, unknown>),
        createdAt: d.createdAt,
        retiredAt: d.retiredAt,
      }));
  }

  async page(t: Tenant, after: string | null, limit: number): Promise<EventType[]> {
    if (checkedLimit(limit) === 0) return [];
    const q = P.eventTypesAfter(t, after ?? '');
    return (await this.#conn.eventTypes.find(q.filter, q.options).limit(limit).toArray()).map(toEventType);
  }
}
