import type { KeyCheck, SealedColumn, SealedSecrets, SealingRepo } from '../ports/sealing-port.ts';
import type { MongoConnection } from './connection.ts';
import { ALERTS_PLANS } from './plans/alerts.ts';
import { ENDPOINTS_PLANS } from './plans/endpoints.ts';
import { OPERATIONS_PLANS as P } from './plans/operations.ts';

/** The key ring's check values and the walk over sealed secrets, in MongoDB. */
export class MongoSealingRepo implements SealingRepo {
  readonly #conn: MongoConnection;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  async keyChecks(): Promise<KeyCheck[]> {
    const q = P.keyChecks();
    const docs = await this.#conn.keyChecks.find(q.filter, q.options).toArray();
    return docs.map((doc) => ({ keyId: doc._id, sealed: doc.sealed, createdAt: doc.createdAt }));
  }

  async addKeyCheck(check: KeyCheck): Promise<void> {
    const q = P.keyCheck(check.keyId);
    await this.#conn.keyChecks.updateOne(q.filter, { $setOnInsert: { sealed: check.sealed, createdAt: check.createdAt } }, { ...q.options, upsert: true });
  }

  async removeKeyCheck(keyId: string): Promise<void> {
    const q = P.keyCheck(keyId);
    await this.#conn.keyChecks.deleteOne(q.filter, q.options);
  }

  sealedSecrets(column: SealedColumn, afterOwnerId: string | null, limit: number): Promise<SealedSecrets[]> {
    if (limit <= 0) return Promise.resolve([]);
    return walks(this.#conn)[column].page(afterOwnerId, limit);
  }

  async reseal(column: SealedColumn, ownerId: string, expected: string, sealed: string): Promise<boolean> {
    return (await walks(this.#conn)[column].reseal(ownerId, expected, sealed)).modifiedCount > 0;
  }
}

/** Every sealed column's page and re-seal (a Record: a new SEALED_COLUMNS entry does not compile until it is walked here). */
function walks(conn: MongoConnection): Record<
  SealedColumn,
  {
    page(after: string | null, limit: number): Promise<SealedSecrets[]>;
    reseal(ownerId: string, expected: string, sealed: string): Promise<{ modifiedCount: number }>;
  }
> {
  return {
    endpoint_secrets: {
      page: async (after, limit) => {
        const q = ENDPOINTS_PLANS.byIdAfter(after);
        const docs = await conn.endpoints
          .find(q.filter, { ...q.options, projection: { _id: 1, secrets: 1 } })
          .limit(limit)
          .toArray();
        return docs.map((doc) => ({ ownerId: doc._id, sealed: doc.secrets.map((s) => s.sealed) }));
      },
      reseal: (ownerId, expected, sealed) => {
        const q = ENDPOINTS_PLANS.sealedSecret(ownerId, expected);
        return conn.endpoints.updateOne(q.filter, { $set: { 'secrets.$.sealed': sealed } }, q.options);
      },
    },
    endpoint_headers: {
      page: async (after, limit) => {
        // endpoints_headers (endpoints with headers only): no endpoint without them is read.
        const q = ENDPOINTS_PLANS.headersAfter(after);
        const docs = await conn.endpoints
          .find(q.filter, { ...q.options, projection: { _id: 1, 'headers.sealed': 1 } })
          .limit(limit)
          .toArray();
        return docs.map((doc) => ({ ownerId: doc._id, sealed: [doc.headers?.sealed ?? ''] }));
      },
      reseal: (ownerId, expected, sealed) => {
        // `shown` stays: only the sealed text changes, and only if it is still the one read.
        const q = ENDPOINTS_PLANS.sealedHeaders(ownerId, expected);
        return conn.endpoints.updateOne(q.filter, { $set: { 'headers.sealed': sealed } }, q.options);
      },
    },
    endpoint_tls_keys: {
      page: async (after, limit) => {
        // endpoints_tls (endpoints with a client certificate only): no endpoint without one is read.
        const q = ENDPOINTS_PLANS.tlsKeysAfter(after);
        const docs = await conn.endpoints
          .find(q.filter, { ...q.options, projection: { _id: 1, 'tls.sealedKey': 1 } })
          .limit(limit)
          .toArray();
        return docs.map((doc) => ({ ownerId: doc._id, sealed: [doc.tls?.sealedKey ?? ''] }));
      },
      reseal: (ownerId, expected, sealed) => {
        // The certificate, serverCa and info stay: only the sealed key changes, and only if it is still the one read.
        const q = ENDPOINTS_PLANS.sealedTlsKey(ownerId, expected);
        return conn.endpoints.updateOne(q.filter, { $set: { 'tls.sealedKey': sealed } }, q.options);
      },
    },
    endpoint_auth_secrets: {
      page: async (after, limit) => {
        // endpoints_auth (endpoints with OAuth client credentials only): no endpoint without them is read.
        const q = ENDPOINTS_PLANS.authSecretsAfter(after);
        const docs = await conn.endpoints
          .find(q.filter, { ...q.options, projection: { _id: 1, 'auth.sealedSecret': 1 } })
          .limit(limit)
          .toArray();
        return docs.map((doc) => ({ ownerId: doc._id, sealed: [doc.auth?.sealedSecret ?? ''] }));
      },
      reseal: (ownerId, expected, sealed) => {
        // Only the sealed secret changes, and only if it is still the one read.
        const q = ENDPOINTS_PLANS.sealedAuthSecret(ownerId, expected);
        return conn.endpoints.updateOne(q.filter, { $set: { 'auth.sealedSecret': sealed } }, q.options);
      },
    },
    alert_target_secrets: {
      page: async (after, limit) => {
        const q = ALERTS_PLANS.sealedTargetsAfter(after);
        const docs = await conn.alertTargets
          .find(q.filter, { ...q.options, projection: { _id: 1, sealedSecret: 1 } })
          .limit(limit)
          .toArray();
        return docs.map((doc) => ({ ownerId: doc._id, sealed: [doc.sealedSecret ?? ''] }));
      },
      reseal: (ownerId, expected, sealed) => {
        const q = ALERTS_PLANS.sealedTarget(ownerId, expected);
        return conn.alertTargets.updateOne(q.filter, { $set: { sealedSecret: sealed } }, q.options);
      },
    },
  };
}
