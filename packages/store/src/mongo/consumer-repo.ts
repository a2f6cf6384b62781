import { ConflictError, type Consumer, type ConsumerId, type Tenant } from '@wirehook/core';
import type { ConsumerRepo, PageRequest } from '../ports/consumer-port.ts';
import type { MongoConnection } from './connection.ts';
import type { ConsumerDoc } from './documents.ts';
import { isDuplicateKey } from './errors.ts';
import { UNIQUE_INDEX } from './indexes.ts';
import { toConsumer } from './mappers.ts';
import { TENANCY_PLANS as P } from './plans/tenancy.ts';
import { checkedLimit, scope } from './query.ts';

/** Consumers in MongoDB, scoped by tenant. */
export class MongoConsumerRepo implements ConsumerRepo {
  readonly #conn: MongoConnection;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  async create(t: Tenant, consumer: Omit<Consumer, 'endpointCount'>): Promise<Consumer> {
    const doc: ConsumerDoc = {
      _id: consumer.id,
      ...scope(t),
      externalId: consumer.externalId,
      name: consumer.name,
      createdAt: consumer.createdAt,
      endpointCount: 0,
    };
    try {
      await this.#conn.consumers.insertOne(doc);
    } catch (err) {
      if (isDuplicateKey(err, UNIQUE_INDEX.consumerExternalId)) {
        throw new ConflictError(`a consumer with external_id ${JSON.stringify(consumer.externalId)} already exists`);
      }
      throw err;
    }
    return toConsumer(doc);
  }

  async get(t: Tenant, id: ConsumerId): Promise<Consumer | null> {
    const q = P.consumerById(t, id);
    const doc = await this.#conn.consumers.findOne(q.filter, q.options);
    return doc === null ? null : toConsumer(doc);
  }

  async getByExternalId(t: Tenant, externalId: string): Promise<Consumer | null> {
    const q = P.consumerByExternalId(t, externalId);
    const doc = await this.#conn.consumers.findOne(q.filter, q.options);
    return doc === null ? null : toConsumer(doc);
  }

  async list(t: Tenant, page: PageRequest): Promise<Consumer[]> {
    if (checkedLimit(page.limit) === 0) return [];
    const q = P.consumersPage(t, page.afterId);
    const docs = await this.#conn.consumers.find(q.filter, q.options).limit(page.limit).toArray();
    return docs.map(toConsumer);
  }
}
