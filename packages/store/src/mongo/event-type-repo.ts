import { isDeepStrictEqual } from 'node:util';
import { ConflictError, InvalidError, type EventType, type EventTypeSummary, type EventTypeVersion, type Tenant } from '@wirehook/core';
import { EVENT_TYPE_VERSIONS_PAGE, EVENT_TYPES_ENFORCING_CAP, type EventTypePatch, type EventTypeRepo } from '../ports/event-type-port.ts';
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
  versionAt: 1,
  rev: 1,
  hasSchema: { $ne: [{ $ifNull: ['$schemaJson', null] }, null] },
};

/** Event types in MongoDB, scoped by tenant. */
export class MongoEventTypeRepo implements EventTypeRepo {
  readonly #conn: MongoConnection;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  async create(t: Tenant, e: EventType, max: number): Promise<EventType> {
    // Bounded by the cap itself (at most `max` keys of event_types_name). Two creates racing at the
    // cap may both pass: the cap is a bound on the catalog's size, not an exact count.
    const c = P.eventTypes(t);
    const count = await this.#conn.eventTypes.countDocuments(c.filter, { ...c.options, limit: max });
    if (count >= max) throw new InvalidError(`this environment already has ${count} event types; the limit is ${max}`);
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
      versionAt: e.versionAt,
      rev: e.rev,
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

  async update(t: Tenant, name: string, patch: EventTypePatch, now: number, expectedRev: number): Promise<EventType | null> {
    const current = await this.get(t, name);
    if (current === null) return null;
    if (current.rev !== expectedRev) throw new ConflictError(`event type ${JSON.stringify(name)} changed meanwhile; read it and try again`);
    const set: Partial<EventTypeDoc> = { updatedAt: now, rev: current.rev + 1 };
    if (patch.description !== undefined) set.description = patch.description;
    if (patch.examples !== undefined) set.examplesJson = JSON.stringify(patch.examples);
    if (patch.validation !== undefined) set.validation = patch.validation;
    if (patch.deprecated !== undefined) set.deprecated = patch.deprecated;
    const newVersion = patch.schema !== undefined && !isDeepStrictEqual(patch.schema, current.schema);
    const kept = {
      ...scope(t),
      name,
      version: current.version,
      schemaJson: current.schema === null ? null : JSON.stringify(current.schema),
      createdAt: current.versionAt,
      retiredAt: now,
    };
    if (newVersion) {
      // The version it replaces is kept first (unique by version), so a crash after the move below
      // loses no schema. No transaction: a version kept whose move did not happen is the current
      // one, which versions() never lists; its times are set again by the move that does happen.
      try {
        await this.#conn.eventTypeVersions.insertOne(kept);
      } catch (err) {
        if (!isDuplicateKey(err, UNIQUE_INDEX.eventTypeVersion)) throw err;
      }
      set.schemaJson = patch.schema === null ? null : JSON.stringify(patch.schema);
      set.version = current.version + 1;
      set.versionAt = now;
    }
    // Only from the state read (rev): another PATCH in between answers a conflict, never a mix of both.
    const q = P.eventTypeUpdate(t, name, current.rev);
    const updated = await this.#conn.eventTypes.findOneAndUpdate(q.filter, { $set: set }, { ...q.options, returnDocument: 'after' });
    if (updated === null) throw new ConflictError(`event type ${JSON.stringify(name)} changed meanwhile; read it and try again`);
    if (newVersion) {
      // The winner's times on the kept version (an earlier attempt that lost, or crashed, wrote its own).
      const v = P.eventTypeVersion(t, name, current.version);
      await this.#conn.eventTypeVersions.updateOne(v.filter, { $set: { createdAt: kept.createdAt, retiredAt: now } }, v.options);
      // The newest EVENT_TYPE_VERSIONS_PAGE are kept: the one past them goes.
      const past = P.eventTypeVersionsPast(t, name, current.version - EVENT_TYPE_VERSIONS_PAGE);
      await this.#conn.eventTypeVersions.deleteMany(past.filter, past.options);
    }
    return toEventType(updated);
  }

  async versions(t: Tenant, name: string): Promise<EventTypeVersion[]> {
    const c = P.eventTypeByName(t, name);
    const current = (await this.#conn.eventTypes.findOne(c.filter, { ...c.options, projection: { version: 1 } }))?.version ?? 1;
    const q = P.eventTypeVersions(t, name, current);
    const docs = await this.#conn.eventTypeVersions.find(q.filter, q.options).limit(EVENT_TYPE_VERSIONS_PAGE).toArray();
    return docs.map((d) => ({
      version: d.version,
      schema: d.schemaJson === null ? null : (JSON.parse(d.schemaJson) as Record<string, unknown>),
      createdAt: d.createdAt,
      retiredAt: d.retiredAt,
    }));
  }

  async enforcing(t: Tenant): Promise<{ name: string; version: number }[]> {
    // Covered by event_types_enforcing_keys (enforcing types only): no document, no schema text read.
    const q = P.enforcingEventTypes(t);
    const docs = await this.#conn.eventTypes
      .find(q.filter, { ...q.options, projection: { _id: 0, name: 1, version: 1 } })
      .limit(EVENT_TYPES_ENFORCING_CAP)
      .toArray();
    return docs.map((d) => ({ name: d.name, version: d.version ?? 1 }));
  }

  async page(t: Tenant, after: string | null, limit: number): Promise<EventType[]> {
    if (checkedLimit(limit) === 0) return [];
    const q = P.eventTypesAfter(t, after ?? '');
    return (await this.#conn.eventTypes.find(q.filter, q.options).limit(limit).toArray()).map(toEventType);
  }
}
