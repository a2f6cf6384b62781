import type { AlertConditions, OrgId } from '@wirehook/core';
import type { AlertSettingsRepo } from '../store.ts';
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
}
