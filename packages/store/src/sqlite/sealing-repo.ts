import type { EndpointId } from '@wirehook/core';
import type { KeyCheck, SealedSecrets, SealingRepo } from '../store.ts';
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

  async sealedSecrets(afterEndpointId: string | null, limit: number): Promise<SealedSecrets[]> {
    const rows = this.#conn
      .statement(
        `SELECT s.endpoint_id, s.sealed FROM endpoint_secrets s
          WHERE s.endpoint_id IN (SELECT id FROM endpoints WHERE id > ? ORDER BY id LIMIT ?)
          ORDER BY s.endpoint_id, s.id`,
      )
      .all(afterEndpointId ?? '', limit);
    const byEndpoint = new Map<string, string[]>();
    for (const row of rows) {
      const id = String(row['endpoint_id']);
      let list = byEndpoint.get(id);
      if (list === undefined) byEndpoint.set(id, (list = []));
      list.push(String(row['sealed']));
    }
    return [...byEndpoint].map(([endpointId, sealed]) => ({ endpointId: endpointId as EndpointId, sealed }));
  }

  async reseal(endpointId: EndpointId, expected: string, sealed: string): Promise<boolean> {
    const result = this.#conn.statement('UPDATE endpoint_secrets SET sealed = ? WHERE endpoint_id = ? AND sealed = ?').run(sealed, endpointId, expected);
    return Number(result.changes) > 0;
  }
}
