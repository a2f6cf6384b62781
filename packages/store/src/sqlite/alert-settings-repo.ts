import type { AlertConditions, OrgId } from '@wirehook/core';
import type { AlertSettingsRepo } from '../store.ts';
import type { SqliteConnection } from './connection.ts';
import { json } from './row.ts';

/** Alert conditions in SQLite, one JSON document per organization. */
export class SqliteAlertSettingsRepo implements AlertSettingsRepo {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  async conditions(orgId: OrgId): Promise<AlertConditions | null> {
    const row = this.#conn.statement('SELECT conditions FROM alert_conditions WHERE org_id = ?').get(orgId);
    return row === undefined ? null : json<AlertConditions>(row, 'conditions');
  }

  async setConditions(orgId: OrgId, conditions: AlertConditions, at: number): Promise<void> {
    this.#conn
      .statement(
        `INSERT INTO alert_conditions (org_id, conditions, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (org_id) DO UPDATE SET conditions = excluded.conditions, updated_at = excluded.updated_at`,
      )
      .run(orgId, JSON.stringify(conditions), at);
  }
}
