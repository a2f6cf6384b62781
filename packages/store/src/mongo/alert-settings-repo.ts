import { ConflictError, type AlertConditions, type AlertTargetId, type EndpointId, type OrgId, type Tenant } from '@wirehook/core';
import type { AlertEvent, AlertSettingsRepo, AlertState, AlertTarget, NoticeAttempt, NoticeDelivery } from '../store.ts';
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
    await this.#conn.alertTargets.insertOne({
      _id: target.id,
      orgId,
      type: target.type,
      url: target.url,
      address: target.address,
      sealedSecret: target.sealedSecret,
      createdAt: target.createdAt,
    });
    return target;
  }

  async targets(orgId: OrgId): Promise<AlertTarget[]> {
    const docs = await this.#conn.alertTargets.find({ orgId }).sort({ _id: 1 }).toArray();
    return docs.map((d) => ({
      id: d._id as AlertTargetId,
      type: d.type,
      url: d.url,
      address: d.address,
      sealedSecret: d.sealedSecret,
      createdAt: d.createdAt,
    }));
  }

  async deleteTarget(orgId: OrgId, id: AlertTargetId): Promise<boolean> {
    return (await this.#conn.alertTargets.deleteOne({ orgId, _id: id })).deletedCount > 0;
  }

  async events(limit: number): Promise<AlertEvent[]> {
    const docs = await this.#conn.alertEvents.find({}).sort({ _id: 1 }).limit(limit).toArray();
    return docs.map((d) => ({
      seq: d._id,
      tenant: { orgId: d.orgId as OrgId, env: d.env },
      kind: d.kind,
      endpointId: d.endpointId as EndpointId,
      at: d.at,
      error: d.error,
      responseStatus: d.responseStatus,
    }));
  }

  async failingEndpoints(since: number, before: number, limit: number): Promise<{ tenant: Tenant; endpointId: EndpointId; failingSince: number }[]> {
    const docs = await this.#conn.endpoints
      .find({ failingSince: { $gte: since, $lte: before }, status: 'active' }, { projection: { _id: 1, orgId: 1, env: 1, failingSince: 1 } })
      .sort({ failingSince: -1 })
      .limit(limit)
      .toArray();
    return docs.map((d) => ({ tenant: { orgId: d.orgId as OrgId, env: d.env }, endpointId: d._id as EndpointId, failingSince: d.failingSince! }));
  }

  async retryingCounts(min: number): Promise<{ tenant: Tenant; count: number }[]> {
    const groups = await this.#conn.deliveries
      .aggregate<{ _id: { orgId: string; env: 'live' | 'test' }; count: number }>([
        { $match: { status: 'retrying' } },
        { $group: { _id: { orgId: '$orgId', env: '$env' }, count: { $sum: 1 } } },
        { $match: { count: { $gte: min } } },
      ])
      .toArray();
    return groups.map((g) => ({ tenant: { orgId: g._id.orgId as OrgId, env: g._id.env }, count: g.count }));
  }

  async liveMonthUsage(month: string): Promise<{ orgId: OrgId; used: number }[]> {
    const docs = await this.#conn.counters.find({ _id: { $regex: `^live:[^:]+:${month}$` } }).toArray();
    return docs.map((d) => ({ orgId: d._id.split(':')[1] as OrgId, used: d.value }));
  }

  async statesDue(now: number, limit: number): Promise<OrgId[]> {
    const docs = await this.#conn.alertState
      .find({ hasPending: true, windowEnd: { $lte: now } }, { projection: { _id: 1 } })
      .sort({ windowEnd: 1 })
      .limit(limit)
      .toArray();
    return docs.map((d) => d._id as OrgId);
  }

  async state(orgId: OrgId): Promise<AlertState | null> {
    return (await this.#conn.alertState.findOne({ _id: orgId }))?.state ?? null;
  }

  async commitStep(orgId: OrgId, consumed: number[], state: AlertState, notices: NoticeDelivery[]): Promise<void> {
    await this.#conn.transaction(async (session) => {
      if (consumed.length > 0) {
        const { deletedCount } = await this.#conn.alertEvents.deleteMany({ _id: { $in: consumed } }, { session });
        if (deletedCount !== consumed.length) throw new ConflictError('an alert event was consumed by another worker');
      }
      const windowEnd = state.windowStart === null ? null : state.windowStart + 3_600_000;
      const stored = await this.#conn.alertState.findOne({ _id: orgId }, { session });
      const storedVersion = stored?.state.version ?? 0;
      if (state.version !== storedVersion + 1) throw new ConflictError(`the alert state of ${orgId} moved on (version ${storedVersion})`);
      await this.#conn.alertState.updateOne({ _id: orgId }, { $set: { state, windowEnd, hasPending: state.pending.length > 0 } }, { session, upsert: true });
      if (notices.length > 0) {
        await this.#conn.alertNotices.insertMany(
          notices.map((n) => ({
            _id: n.id,
            orgId: n.orgId,
            targetId: n.targetId,
            type: n.type,
            body: n.body,
            createdAt: n.createdAt,
            attempts: 0,
            nextAttemptAt: n.createdAt,
            leaseUntil: null,
            sent: false,
          })),
          { session },
        );
      }
    });
  }

  async claimNotices(now: number, leaseUntil: number, limit: number): Promise<(NoticeDelivery & { attempts: number })[]> {
    const claimed: (NoticeDelivery & { attempts: number })[] = [];
    for (let i = 0; i < limit; i++) {
      const d = await this.#conn.alertNotices.findOneAndUpdate(
        { nextAttemptAt: { $lte: now }, $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }] },
        { $set: { leaseUntil } },
        { sort: { nextAttemptAt: 1 }, returnDocument: 'after' },
      );
      if (d === null) break;
      claimed.push({
        id: d._id,
        orgId: d.orgId as OrgId,
        targetId: d.targetId as AlertTargetId,
        type: d.type,
        body: d.body,
        createdAt: d.createdAt,
        attempts: d.attempts,
      });
    }
    return claimed;
  }

  async recordNoticeAttempt(id: string, attempt: NoticeAttempt, sent: boolean, next: number | null): Promise<void> {
    const notice = await this.#conn.alertNotices.findOneAndUpdate(
      { _id: id },
      { $inc: { attempts: 1 }, $set: { nextAttemptAt: next, leaseUntil: null, sent } },
      { returnDocument: 'after' },
    );
    if (notice === null) return;
    await this.#conn.alertNoticeAttempts.insertOne({ noticeId: id, orgId: notice.orgId, targetId: notice.targetId, type: notice.type, ...attempt });
  }

  async noticeAttempts(orgId: OrgId, targetId: AlertTargetId, limit: number): Promise<(NoticeAttempt & { noticeId: string; type: string })[]> {
    const docs = await this.#conn.alertNoticeAttempts.find({ orgId, targetId }).sort({ at: -1 }).limit(limit).toArray();
    return docs.map((d) => ({ noticeId: d.noticeId, type: d.type, at: d.at, responseStatus: d.responseStatus, error: d.error, durationMs: d.durationMs }));
  }
}
