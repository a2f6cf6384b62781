import type { Org, OrgId, PlanName } from '@wirehook/core';
import type { OrgRepo } from '../ports/org-port.ts';
import type { SqliteConnection } from './connection.ts';
import { toOrg } from './mappers.ts';

/** Orgs in SQLite. Orgs are not tenant-owned: they are the tenants. */
export class SqliteOrgRepo implements OrgRepo {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  async create(org: Org): Promise<Org> {
    const row = this.#conn
      .statement(`INSERT INTO orgs (id, name, plan, owner_email, created_at) VALUES (?, ?, ?, ?, ?) RETURNING *`)
      .get(org.id, org.name, org.plan, org.ownerEmail, org.createdAt);
    if (row === undefined) throw new Error('INSERT … RETURNING gave no row');
    return toOrg(row);
  }

  async get(id: OrgId): Promise<Org | null> {
    const row = this.#conn.statement('SELECT * FROM orgs WHERE id = ?').get(id);
    return row === undefined ? null : toOrg(row);
  }

  async setPlan(id: OrgId, plan: PlanName): Promise<Org | null> {
    const row = this.#conn.statement('UPDATE orgs SET plan = ? WHERE id = ? RETURNING *').get(plan, id);
    return row === undefined ? null : toOrg(row);
  }
}
