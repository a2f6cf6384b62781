import { ConflictError, type EventType, type Tenant } from '@wirehook/core';
import type { EventTypeRepo } from '../ports/event-type-port.ts';
import type { MongoConnection } from './connection.ts';
import type { EventTypeDoc } from './documents.ts';
import { isDuplicateKey } from './errors.ts';
import { UNIQUE_INDEX } from './indexes.ts';
import { toEventType } from './mappers.ts';
import { EVENT_TYPES_LIST_CAP, TENANCY_PLANS as P } from './plans/tenancy.ts';
import { scope } from './query.ts';

/** Event types in MongoDB, scoped by tenant. */
export class MongoEventTypeRepo implements EventTypeRepo {
  readonly #conn: MongoConnection;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  async create(t: Tenant, eventType: EventType): Promise<EventType> {
    const doc: EventTypeDoc = {
      ...scope(t),
      name: eventType.name,
      description: eventType.description,
      archivedAt: eventType.archivedAt,
      createdAt: eventType.createdAt,
    };
    try {
      await this.#conn.eventTypes.insertOne(doc);
    } catch (err) {
      if (isDuplicateKey(err, UNIQUE_INDEX.eventTypeName)) {
        throw new ConflictError(`an event type named ${JSON.stringify(eventType.name)} already exists`);
      }
      throw err;
    }
    return toEventType(doc);
  }

  async list(t: Tenant): Promise<EventType[]> {
    // Binary string order, as SQLite's default collation sorts the names. Bounded by
    // EVENT_TYPES_LIST_CAP (the first that many by name; TODO: the port takes no page yet).
    const q = P.eventTypes(t);
    const docs = await this.#conn.eventTypes.find(q.filter, q.options).limit(EVENT_TYPES_LIST_CAP).toArray();
    return docs.map(toEventType);
  }
}
