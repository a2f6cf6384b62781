import type { EgressAddress } from '@wirehook/core';
import type { EgressIpRepo, PoolAddress } from '../ports/egress-ip-port.ts';
import type { MongoConnection } from './connection.ts';

/** The fixed IP pool as last seen, in MongoDB: one document per address (`_id` the address). */
export class MongoEgressIpRepo implements EgressIpRepo {
  readonly #conn: MongoConnection;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  async sync(pool: readonly PoolAddress[], now: number, noticeMs: number): Promise<{ added: string[]; retiring: string[] }> {
    // One transaction: two gateways starting at once with the same pool agree on what changed.
    return this.#conn.transaction(async (session) => {
      const listed = new Map((await this.#conn.egressIps.find({}, { session }).toArray()).map((d) => [d._id, d.retiringAt] as const));
      const inPool = new Set(pool.map((a) => a.ip));
      const added: string[] = [];
      const retiring: string[] = [];
      for (const { ip, family } of pool) {
        if (!listed.has(ip)) added.push(ip);
        await this.#conn.egressIps.updateOne({ _id: ip }, { $set: { retiringAt: null }, $setOnInsert: { family, addedAt: now } }, { session, upsert: true });
      }
      for (const [ip, retiringAt] of listed) {
        if (inPool.has(ip)) continue;
        if (retiringAt !== null && retiringAt <= now) await this.#conn.egressIps.deleteOne({ _id: ip }, { session });
        else if (retiringAt === null) {
          await this.#conn.egressIps.updateOne({ _id: ip }, { $set: { retiringAt: now + noticeMs } }, { session });
          retiring.push(ip);
        }
      }
      return { added, retiring };
    });
  }

  async list(now: number): Promise<EgressAddress[]> {
    const docs = await this.#conn.egressIps.find({ $or: [{ retiringAt: null }, { retiringAt: { $gt: now } }] }).toArray();
    const rank = (a: EgressAddress) => [a.retiringAt === null ? 0 : 1, a.family] as const;
    return docs
      .map((d) => ({ ip: d._id, family: d.family, retiringAt: d.retiringAt }))
      .sort((a, b) => rank(a)[0] - rank(b)[0] || rank(a)[1] - rank(b)[1] || (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0));
  }
}
