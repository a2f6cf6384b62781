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
    if ((await this.#conn.orgs.findOne(q.filter, { ...q.options, projection: { _id: 1 } })) === null) return null;
    // Marked for this month's reading of usage first (a lower plan's threshold may be behind its
    // count), then changed: a process lost between the two leaves a mark, which the reading
    // passes over while the count is under its plan's threshold, never a lowered plan unmarked.
    // A mark that fails fails the command, the plan as it was, to be run again.
    await markPlanChange(this.#conn, id, Date.now());
    const doc = await this.#conn.orgs.findOneAndUpdate(q.filter, { $set: { plan } }, { ...q.options, returnDocument: 'after' });
    if (doc === null) return null;
    return toOrg(doc);
  }
}
