import type { ApiKey, KeyId } from '@wirehook/core';
import type { ApiKeyRepo, KeyWithOrg } from '../ports/api-key-port.ts';
import type { SqliteConnection } from './connection.ts';
import { toApiKey, toOrg } from './mappers.ts';

// The org's id is k.org_id (the join key), so toOrg(row, 'org_') finds every column.
const FIND_BY_HASH = `
  SELECT k.*, o.name AS org_name, o.plan AS org_plan,
         o.owner_email AS org_owner_email, o.created_at AS org_created_at
  FROM api_keys k JOIN orgs o ON o.id = k.org_id
  WHERE k.key_hash = ?`;

/** API keys in SQLite, stored by hash only. */
export class SqliteApiKeyRepo implements ApiKeyRepo {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  async create(key: ApiKey, hash: string): Promise<ApiKey> {
    const row = this.#conn
      .statement(
        `INSERT INTO api_keys (id, org_id, env, key_hash, scopes, created_at, revoked_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(key.id, key.orgId, key.env, hash, JSON.stringify(key.scopes), key.createdAt, key.revokedAt, key.expiresAt);
    if (row === undefined) throw new Error('INSERT … RETURNING gave no row');
    return toApiKey(row);
  }

  async findByHash(hash: string): Promise<KeyWithOrg | null> {
    const row = this.#conn.statement(FIND_BY_HASH).get(hash);
    return row === undefined ? null : { key: toApiKey(row), org: toOrg(row, 'org_') };
  }

  async revoke(id: KeyId, at: number): Promise<ApiKey | null> {
    const row = this.#conn.statement('UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? RETURNING *').get(at, id);
    return row === undefined ? null : toApiKey(row);
  }
}
