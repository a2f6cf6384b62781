import type { EndpointId } from '@wirehook/core';
import type { KeyCheck, SealedSecrets, SealingRepo } from '../store.ts';
import type { MongoConnection } from './connection.ts';

/** The key ring's check values and the walk over sealed secrets, in MongoDB. */
export class MongoSealingRepo implements SealingRepo {
  readonly #conn: MongoConnection;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  async keyChecks(): Promise<KeyCheck[]> {
    const docs = await this.#conn.keyChecks.find({}).sort({ createdAt: 1, _id: 1 }).toArray();
    return docs.map((doc) => ({ keyId: doc._id, sealed: doc.sealed, createdAt: doc.createdAt }));
  }

  async addKeyCheck(check: KeyCheck): Promise<void> {
    await this.#conn.keyChecks.updateOne({ _id: check.keyId }, { $setOnInsert: { sealed: check.sealed, createdAt: check.createdAt } }, { upsert: true });
  }

  async removeKeyCheck(keyId: string): Promise<void> {
    await this.#conn.keyChecks.deleteOne({ _id: keyId });
  }

  async sealedSecrets(afterEndpointId: string | null, limit: number): Promise<SealedSecrets[]> {
    const docs = await this.#conn.endpoints
      .find(afterEndpointId === null ? {} : { _id: { $gt: afterEndpointId } }, { projection: { _id: 1, secrets: 1 } })
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
    return docs.map((doc) => ({ endpointId: doc._id as EndpointId, sealed: doc.secrets.map((s) => s.sealed) }));
  }

  async reseal(endpointId: EndpointId, expected: string, sealed: string): Promise<boolean> {
    const result = await this.#conn.endpoints.updateOne({ _id: endpointId, 'secrets.sealed': expected }, { $set: { 'secrets.$.sealed': sealed } });
    return result.modifiedCount > 0;
  }
}
