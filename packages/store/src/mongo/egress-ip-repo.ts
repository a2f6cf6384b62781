import { randomUUID } from 'node:crypto';
import type { EgressAddress, OrgId } from '@wirehook/core';
import { foldChanges } from '../egress-change-fold.ts';
import type { NoticeDelivery } from '../ports/alert-settings-port.ts';
import type { EgressChange, EgressIpRepo, PoolAddress, PoolSync } from '../ports/egress-ip-port.ts';
import { noticeDoc } from './alert-settings-repo.ts';
import type { MongoConnection } from './connection.ts';
import { OPERATIONS_PLANS as P } from './plans/operations.ts';

/** The document every sync writes, so concurrent syncs conflict (not a change: `done`). */
const POOL_VERSION = 'pool-version';

/** The fixed IP pool as last seen, in MongoDB: one document per address (`_id` the address). */
export class MongoEgressIpRepo implements EgressIpRepo {
  readonly #conn: MongoConnection;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  async sync(pool: readonly PoolAddress[], now: number, noticeMs: number): Promise<PoolSync> {
    // One transaction: two gateways starting at once with the same pool agree on what changed.
    return this.#conn.transaction(async (session) => {
      const all = P.egressIps();
      const listed = new Map((await this.#conn.egressIps.find(all.filter, { ...all.options, session }).toArray()).map((d) => [d._id, d.retiringAt] as const));
      const inPool = new Set(pool.map((a) => a.ip));
      const added: string[] = [];
      const retiring: string[] = [];
      /** Put back while retiring: not added to the list, but customers told to drop it must hear. */
      const restored: string[] = [];
      // Two gateways syncing different pools at once must conflict (one retried on the other's
      // result): both write this document, whatever else each changes.
      const version = P.egressChange(POOL_VERSION);
      await this.#conn.egressChanges.updateOne(
        version.filter,
        { $inc: { version: 1 }, $setOnInsert: { at: 0, added: [], retiring: [], retiringAt: null, cursor: null, done: true } },
        { ...version.options, session, upsert: true },
      );
      for (const { ip, family } of pool) {
        if (!listed.has(ip)) added.push(ip);
        else if (listed.get(ip) !== null) restored.push(ip);
        const one = P.egressIp(ip);
        await this.#conn.egressIps.updateOne(
          one.filter,
          { $set: { retiringAt: null }, $setOnInsert: { family, addedAt: now } },
          { ...one.options, session, upsert: true },
        );
      }
      for (const [ip, retiringAt] of listed) {
        if (inPool.has(ip)) continue;
        const one = P.egressIp(ip);
        if (retiringAt !== null && retiringAt <= now) await this.#conn.egressIps.deleteOne(one.filter, { ...one.options, session });
        else if (retiringAt === null) {
          await this.#conn.egressIps.updateOne(one.filter, { $set: { retiringAt: now + noticeMs } }, { ...one.options, session });
          retiring.push(ip);
        }
      }
      if (listed.size > 0 && added.length + restored.length + retiring.length > 0) {
        // The newest change is the one told, with what those still being told said folded in.
        const pending = P.egressChangesPending();
        const older = await this.#conn.egressChanges.find(pending.filter, { ...pending.options, session }).toArray();
        const folded = foldChanges(older, { added: [...added, ...restored], retiring, retiringAt: retiring.length > 0 ? now + noticeMs : null });
        await this.#conn.egressChanges.updateMany(pending.filter, { $set: { done: true } }, { ...pending.options, session });
        await this.#conn.egressChanges.insertOne({ _id: randomUUID(), at: now, ...folded, cursor: null, done: false }, { session });
      }
      return { added, restored, retiring };
    });
  }

  async pendingChange(): Promise<EgressChange | null> {
    const q = P.egressChangesPending();
    const doc = await this.#conn.egressChanges.findOne(q.filter, q.options);
    if (doc === null) return null;
    return { id: doc._id, at: doc.at, added: doc.added, retiring: doc.retiring, retiringAt: doc.retiringAt, cursor: doc.cursor as OrgId | null };
  }

  async fixedIpOrgs(after: OrgId | null, limit: number): Promise<OrgId[]> {
    // One seek per organization on endpoints_fixed_ip: an organization's many endpoints are skipped, not read.
    const orgs: OrgId[] = [];
    let cursor: string = after ?? '';
    while (orgs.length < limit) {
      // Covered by endpoints_fixed_ip (orgId only): no document is read. Hinted, as the query holds the
      // index's filter: endpoints_tenant would also serve the sort, reading every direct endpoint on the way.
      const q = P.nextFixedIpOrg(cursor);
      const doc = await this.#conn.endpoints.findOne(q.filter, { ...q.options, projection: { _id: 0, orgId: 1 } });
      if (doc === null) break;
      cursor = doc.orgId;
      orgs.push(cursor as OrgId);
    }
    return orgs;
  }

  async advanceChange(id: string, from: OrgId | null, to: OrgId | null, done: boolean, notices: readonly NoticeDelivery[]): Promise<boolean> {
    return this.#conn.transaction(async (session) => {
      const q = P.egressChangeAt(id, from);
      const { matchedCount } = await this.#conn.egressChanges.updateOne(q.filter, { $set: { cursor: to, done } }, { ...q.options, session });
      if (matchedCount === 0) return false;
      if (notices.length > 0) await this.#conn.alertNotices.insertMany(notices.map(noticeDoc), { session });
      return true;
    });
  }

  async list(now: number): Promise<EgressAddress[]> {
    const q = P.egressIpsListed(now);
    const docs = await this.#conn.egressIps.find(q.filter, q.options).toArray();
    const rank = (a: EgressAddress) => [a.retiringAt === null ? 0 : 1, a.family] as const;
    return docs
      .map((d) => ({ ip: d._id, family: d.family, retiringAt: d.retiringAt }))
      .sort((a, b) => rank(a)[0] - rank(b)[0] || rank(a)[1] - rank(b)[1] || (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0));
  }
}
