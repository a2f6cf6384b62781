import type { KeyCheck, SealedColumn, SealedSecrets, SealingRepo } from '../ports/sealing-port.ts';
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

  sealedSecrets(column: SealedColumn, afterOwnerId: string | null, limit: number): Promise<SealedSecrets[]> {
    return walks(this.#conn)[column].page(afterOwnerId === null ? {} : { _id: { $gt: afterOwnerId } }, limit);
  }

  async reseal(column: SealedColumn, ownerId: string, expected: string, sealed: string): Promise<boolean> {
    return (await walks(this.#conn)[column].reseal(ownerId, expected, sealed)).modifiedCount > 0;
  }
}

/** Every sealed column's page and re-seal (a Record: a new SEALED_COLUMNS entry does not compile until it is walked here). */
function walks(conn: MongoConnection): Record<
  SealedColumn,
  {
    page(after: { _id?: { $gt: string } }, limit: number): Promise<SealedSecrets[]>;
    reseal(ownerId: string, expected: string, sealed: string): Promise<{ modifiedCount: number }>;
  }
> {
  return {
    endpoint_secrets: {
      page: async (after, limit) => {
        const docs = await conn.endpoints
          .find(after, { projection: { _id: 1, secrets: 1 } })
          .sort({ _id: 1 })
          .limit(limit)
          .toArray();
        return docs.map((doc) => ({ ownerId: doc._id, sealed: doc.secrets.map((s) => s.sealed) }));
      },
      reseal: (ownerId, expected, sealed) => conn.endpoints.updateOne({ _id: ownerId, 'secrets.sealed': expected }, { $set: { 'secrets.$.sealed': sealed } }),
    },
    alert_target_secrets: {
      page: async (after, limit) => {
        const docs = await conn.alertTargets
          .find({ ...after, sealedSecret: { $type: 'string' } }, { projection: { _id: 1, sealedSecret: 1 } })
          .sort({ _id: 1 })
          .limit(limit)
          .toArray();
        return docs.map((doc) => ({ ownerId: doc._id, sealed: [doc.sealedSecret ?? ''] }));
      },
      reseal: (ownerId, expected, sealed) => conn.alertTargets.updateOne({ _id: ownerId, sealedSecret: expected }, { $set: { sealedSecret: sealed } }),
    },
  };
}
