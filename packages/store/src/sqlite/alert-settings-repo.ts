import type { AlertConditions, AlertTargetId, OrgId } from '@wirehook/core';
import type { AlertSettingsRepo, AlertTarget } from '../store.ts';
import type { SqliteConnection } from './connection.ts';
import { int, json, text, textOrNull, type Row } from './row.ts';

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

  async createTarget(orgId: OrgId, target: AlertTarget): Promise<AlertTarget> {
    this.#conn
      .statement('INSERT INTO alert_targets (id, org_id, type, url, address, sealed_secret, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(target.id, orgId, target.type, target.url, target.address, target.sealedSecret, target.createdAt);
    return target;
  }

  async targets(orgId: OrgId): Promise<AlertTarget[]> {
    return this.#conn.statement('SELECT * FROM alert_targets WHERE org_id = ? ORDER BY id').all(orgId).map(toTarget);
  }

  async deleteTarget(orgId: OrgId, id: AlertTargetId): Promise<boolean> {
    return Number(this.#conn.statement('DELETE FROM alert_targets WHERE org_id = ? AND id = ?').run(orgId, id).changes) > 0;
  }
}

function toTarget(row: Row): AlertTarget {
  return {
    id: text(row, 'id') as AlertTargetId,
    type: text(row, 'type') as AlertTarget['type'],
    url: textOrNull(row, 'url'),
    address: textOrNull(row, 'address'),
    sealedSecret: textOrNull(row, 'sealed_secret'),
    createdAt: int(row, 'created_at'),
  };
}
