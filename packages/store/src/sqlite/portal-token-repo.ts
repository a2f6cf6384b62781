import type { ConsumerId, OrgId, Tenant } from '@wirehook/core';
import type { PortalToken, PortalTokenRepo } from '../ports/portal-token-port.ts';
import type { SqliteConnection } from './connection.ts';
import { int, text, textOrNull } from './row.ts';

/** Portal link tokens in SQLite, by hash. */
export class SqlitePortalTokenRepo implements PortalTokenRepo {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  async create(token: PortalToken): Promise<void> {
    this.#conn
      .statement(
        `INSERT INTO portal_tokens (hash, org_id, env, consumer_id, frame_origin, locale, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(token.hash, token.tenant.orgId, token.tenant.env, token.consumerId, token.frameOrigin, token.locale, token.createdAt, token.expiresAt);
  }

  async find(hash: string): Promise<PortalToken | null> {
    const row = this.#conn.statement('SELECT * FROM portal_tokens WHERE hash = ?').get(hash);
    if (row === undefined) return null;
    return {
      hash: text(row, 'hash'),
      tenant: { orgId: text(row, 'org_id') as OrgId, env: text(row, 'env') as Tenant['env'] },
      consumerId: text(row, 'consumer_id') as ConsumerId,
      frameOrigin: textOrNull(row, 'frame_origin'),
      locale: textOrNull(row, 'locale') as PortalToken['locale'],
      createdAt: int(row, 'created_at'),
      expiresAt: int(row, 'expires_at'),
    };
  }

  async deleteExpired(before: number, batch: number): Promise<number> {
    const { changes } = this.#conn
      .statement('DELETE FROM portal_tokens WHERE hash IN (SELECT hash FROM portal_tokens WHERE expires_at < ? LIMIT ?)')
      .run(before, batch);
    return Number(changes);
  }
}
