import type { ConsumerId, OrgId } from '@wirehook/core';
import type { PortalToken, PortalTokenRepo } from '../ports/portal-token-port.ts';
import type { MongoConnection } from './connection.ts';
import { TENANCY_PLANS as P } from './plans/tenancy.ts';

/** Portal link tokens in MongoDB, by hash (`_id`); a TTL index removes expired ones too. */
export class MongoPortalTokenRepo implements PortalTokenRepo {
  readonly #conn: MongoConnection;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  async create(token: PortalToken): Promise<void> {
    await this.#conn.portalTokens.insertOne({
      _id: token.hash,
      orgId: token.tenant.orgId,
      env: token.tenant.env,
      consumerId: token.consumerId,
      frameOrigin: token.frameOrigin,
      locale: token.locale,
      createdAt: token.createdAt,
      expiresAt: token.expiresAt,
      expiresAtDate: new Date(token.expiresAt),
    });
  }

  async find(hash: string): Promise<PortalToken | null> {
    const q = P.portalToken(hash);
    const doc = await this.#conn.portalTokens.findOne(q.filter, q.options);
    if (doc === null) return null;
    return {
      hash: doc._id,
      tenant: { orgId: doc.orgId as OrgId, env: doc.env },
      consumerId: doc.consumerId as ConsumerId,
      frameOrigin: doc.frameOrigin,
      locale: doc.locale,
      createdAt: doc.createdAt,
      expiresAt: doc.expiresAt,
    };
  }

  async deleteExpired(before: number, batch: number): Promise<number> {
    if (batch <= 0) return 0; // a limit of 0 is no limit to the server
    // By expiresAtDate (the TTL index's key, the same instant as expiresAt): a range walk of
    // portal_tokens_ttl, oldest first, never a scan of the collection.
    const expired = P.portalTokensExpired(before);
    const ids = (await this.#conn.portalTokens.find(expired.filter, { ...expired.options, projection: { _id: 1 }, limit: batch }).toArray()).map((d) => d._id);
    if (ids.length === 0) return 0;
    const q = P.portalTokensByIds(ids);
    return (await this.#conn.portalTokens.deleteMany(q.filter, q.options)).deletedCount;
  }
}
