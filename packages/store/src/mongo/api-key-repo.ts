import type { ApiKey, KeyId } from '@wirehook/core';
import type { ApiKeyRepo, KeyWithOrg } from '../ports/api-key-port.ts';
import type { MongoConnection } from './connection.ts';
import type { ApiKeyDoc } from './documents.ts';
import { toApiKey, toOrg } from './mappers.ts';
import { TENANCY_PLANS as P } from './plans/tenancy.ts';

/** API keys in MongoDB, stored by hash only. */
export class MongoApiKeyRepo implements ApiKeyRepo {
  readonly #conn: MongoConnection;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  async create(key: ApiKey, hash: string): Promise<ApiKey> {
    const doc: ApiKeyDoc = {
      _id: key.id,
      orgId: key.orgId,
      env: key.env,
      keyHash: hash,
      scopes: key.scopes,
      createdAt: key.createdAt,
      revokedAt: key.revokedAt,
      expiresAt: key.expiresAt,
    };
    await this.#conn.apiKeys.insertOne(doc);
    return toApiKey(doc);
  }

  async findByHash(hash: string): Promise<KeyWithOrg | null> {
    const byHash = P.apiKeyByHash(hash);
    const key = await this.#conn.apiKeys.findOne(byHash.filter, byHash.options);
    if (key === null) return null;
    // Like the SQL join: a key whose org is gone authenticates nobody.
    const byId = P.orgById(key.orgId);
    const org = await this.#conn.orgs.findOne(byId.filter, byId.options);
    return org === null ? null : { key: toApiKey(key), org: toOrg(org) };
  }

  async revoke(id: KeyId, at: number): Promise<ApiKey | null> {
    // A pipeline update, so the first revocation time is kept in the same atomic write.
    const q = P.apiKeyById(id);
    const doc = await this.#conn.apiKeys.findOneAndUpdate(q.filter, [{ $set: { revokedAt: { $ifNull: ['$revokedAt', { $literal: at }] } } }], {
      ...q.options,
      returnDocument: 'after',
    });
    return doc === null ? null : toApiKey(doc);
  }
}
