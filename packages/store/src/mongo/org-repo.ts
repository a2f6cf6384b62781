import type { Org, OrgId, PlanName } from '@wirehook/core';
import type { OrgRepo } from '../ports/org-port.ts';
import type { MongoConnection } from './connection.ts';
import { toOrg } from './mappers.ts';

/** Orgs in MongoDB. Orgs are not tenant-owned: they are the tenants. */
export class MongoOrgRepo implements OrgRepo {
  readonly #conn: MongoConnection;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  async create(org: Org): Promise<Org> {
    const doc = { _id: org.id, name: org.name, plan: org.plan, ownerEmail: org.ownerEmail, createdAt: org.createdAt };
    await this.#conn.orgs.insertOne(doc);
    return toOrg(doc);
  }

  async get(id: OrgId): Promise<Org | null> {
    const doc = await this.#conn.orgs.findOne({ _id: id });
    return doc === null ? null : toOrg(doc);
  }

  async setPlan(id: OrgId, plan: PlanName): Promise<Org | null> {
    const doc = await this.#conn.orgs.findOneAndUpdate({ _id: id }, { $set: { plan } }, { returnDocument: 'after' });
    return doc === null ? null : toOrg(doc);
  }
}
