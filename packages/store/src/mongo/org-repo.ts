import type { Org, OrgId, PlanName } from '@wirehook/core';
import type { OrgRepo } from '../ports/org-port.ts';
import type { MongoConnection } from './connection.ts';
import { toOrg } from './mappers.ts';
import { TENANCY_PLANS as P } from './plans/tenancy.ts';
import { markPlanChange } from './usage-counters.ts';

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
    const q = P.orgById(id);
    const doc = await this.#conn.orgs.findOne(q.filter, q.options);
    return doc === null ? null : toOrg(doc);
  }

  async setPlan(id: OrgId, plan: PlanName): Promise<Org | null> {
    const q = P.orgById(id);
    const doc = await this.#conn.orgs.findOneAndUpdate(q.filter, { $set: { plan } }, { ...q.options, returnDocument: 'after' });
    if (doc === null) return null;
    // Read for its usage this month from now on (a lower plan's threshold may be behind its count);
    // a change whose mark failed is made again by the same command, which writes it then.
    await markPlanChange(this.#conn, id, Date.now());
    return toOrg(doc);
  }
}
