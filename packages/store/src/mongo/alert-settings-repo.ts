import type { AlertConditions, AlertTargetId, OrgId } from '@wirehook/core';
import type { AlertSettingsRepo, AlertTarget } from '../store.ts';
import type { MongoConnection } from './connection.ts';

/** Alert conditions in MongoDB, one document per organization (`_id` = org id). */
export class MongoAlertSettingsRepo implements AlertSettingsRepo {
  readonly #conn: MongoConnection;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  async conditions(orgId: OrgId): Promise<AlertConditions | null> {
    const doc = await this.#conn.alertConditions.findOne({ _id: orgId });
    return doc === null ? null : doc.conditions;
  }

  async setConditions(orgId: OrgId, conditions: AlertConditions, at: number): Promise<void> {
    await this.#conn.alertConditions.updateOne({ _id: orgId }, { $set: { conditions, updatedAt: at } }, { upsert: true });
  }

  async createTarget(orgId: OrgId, target: AlertTarget): Promise<AlertTarget> {
    await this.#conn.alertTargets.insertOne({ _id: target.id, orgId, type: target.type, url: target.url, address: target.address, sealedSecret: target.sealedSecret, createdAt: target.createdAt });
    return target;
  }

  async targets(orgId: OrgId): Promise<AlertTarget[]> {
    const docs = await this.#conn.alertTargets.find({ orgId }).sort({ _id: 1 }).toArray();
    return docs.map((d) => ({ id: d._id as AlertTargetId, type: d.type, url: d.url, address: d.address, sealedSecret: d.sealedSecret, createdAt: d.createdAt }));
  }

  async deleteTarget(orgId: OrgId, id: AlertTargetId): Promise<boolean> {
    return (await this.#conn.alertTargets.deleteOne({ orgId, _id: id })).deletedCount > 0;
  }
}
