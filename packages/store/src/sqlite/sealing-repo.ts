import type { KeyCheck, SealedColumn, SealedSecrets, SealingRepo } from '../ports/sealing-port.ts';
import type { SqliteConnection } from './connection.ts';

/** The key ring's check values and the walk over sealed secrets, in SQLite. */
export class SqliteSealingRepo implements SealingRepo {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  async keyChecks(): Promise<KeyCheck[]> {
    return this.#conn
      .statement('SELECT key_id, sealed, created_at FROM sealing_key_checks ORDER BY created_at, key_id')
      .all()
      .map((row) => ({ keyId: String(row['key_id']), sealed: String(row['sealed']), createdAt: Number(row['created_at']) }));
  }

  async addKeyCheck(check: KeyCheck): Promise<void> {
    this.#conn
      .statement('INSERT INTO sealing_key_checks (key_id, sealed, created_at) VALUES (?, ?, ?) ON CONFLICT (key_id) DO NOTHING')
      .run(check.keyId, check.sealed, check.createdAt);
  }

  async removeKeyCheck(keyId: string): Promise<void> {
    this.#conn.statement('DELETE FROM sealing_key_checks WHERE key_id = ?').run(keyId);
  }

  async sealedSecrets(column: SealedColumn, afterOwnerId: string | null, limit: number): Promise<SealedSecrets[]> {
    const rows = this.#conn.statement(WALKS[column].page).all(afterOwnerId ?? '', limit);
    const byOwner = new Map<string, string[]>();
    for (const row of rows) {
      const id = String(row['owner_id']);
      let list = byOwner.get(id);
      if (list === undefined) byOwner.set(id, (list = []));
      list.push(String(row['sealed']));
    }
    return [...byOwner].map(([ownerId, sealed]) => ({ ownerId, sealed }));
  }

  async reseal(column: SealedColumn, ownerId: string, expected: string, sealed: string): Promise<boolean> {
    return Number(this.#conn.statement(WALKS[column].reseal).run(sealed, ownerId, expected).changes) > 0;
  }
}

/** Every sealed column's page and re-seal (a Record: a new SEALED_COLUMNS entry does not compile until it is walked here). */
const WALKS: Record<SealedColumn, { page: string; reseal: string }> = {
  endpoint_secrets: {
    page: `SELECT s.endpoint_id AS owner_id, s.sealed FROM endpoint_secrets s
            WHERE s.endpoint_id IN (SELECT id FROM endpoints WHERE id > ? ORDER BY id LIMIT ?)
            ORDER BY s.endpoint_id, s.id`,
    reseal: 'UPDATE endpoint_secrets SET sealed = ? WHERE endpoint_id = ? AND sealed = ?',
  },
  // endpoints_headers (partial: endpoints with headers only): a page reads no endpoint without
  // them. The re-seal replaces `sealed` inside the JSON and keeps `shown`.
  endpoint_headers: {
    page: `SELECT id AS owner_id, json_extract(headers, '$.sealed') AS sealed FROM endpoints
            WHERE id > ? AND headers IS NOT NULL ORDER BY id LIMIT ?`,
    reseal: `UPDATE endpoints SET headers = json_set(headers, '$.sealed', ?)
              WHERE id = ? AND headers IS NOT NULL AND json_extract(headers, '$.sealed') = ?`,
  },
  // endpoints_tls (partial: endpoints with a client certificate only): a page reads no endpoint
  // without one. The re-seal replaces `sealedKey` inside the JSON and keeps the rest (the
  // certificate, serverCa, info).
  endpoint_tls_keys: {
    page: `SELECT id AS owner_id, json_extract(tls, '$.sealedKey') AS sealed FROM endpoints
            WHERE id > ? AND tls IS NOT NULL ORDER BY id LIMIT ?`,
    reseal: `UPDATE endpoints SET tls = json_set(tls, '$.sealedKey', ?)
              WHERE id = ? AND tls IS NOT NULL AND json_extract(tls, '$.sealedKey') = ?`,
  },
  // endpoints_auth (partial: endpoints with OAuth client credentials only). The re-seal replaces
  // `sealedSecret` inside the JSON and keeps the rest.
  endpoint_auth_secrets: {
    page: `SELECT id AS owner_id, json_extract(auth, '$.sealedSecret') AS sealed FROM endpoints
            WHERE id > ? AND auth IS NOT NULL ORDER BY id LIMIT ?`,
    reseal: `UPDATE endpoints SET auth = json_set(auth, '$.sealedSecret', ?)
              WHERE id = ? AND auth IS NOT NULL AND json_extract(auth, '$.sealedSecret') = ?`,
  },
  alert_target_secrets: {
    page: 'SELECT id AS owner_id, sealed_secret AS sealed FROM alert_targets WHERE id > ? AND sealed_secret IS NOT NULL ORDER BY id LIMIT ?',
    reseal: 'UPDATE alert_targets SET sealed_secret = ? WHERE id = ? AND sealed_secret = ?',
  },
};
