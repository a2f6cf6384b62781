import { ConflictError, type AlertConditions, type AlertTargetId, type EndpointId, type Environment, type OrgId, type Tenant } from '@wirehook/core';
import {
  alertStateDue,
  readAlertState,
  type AlertEvent,
  type AlertSettingsRepo,
  type AlertState,
  type AlertTarget,
  type ClaimedNotice,
  type FailingCursor,
  type NoticeAttempt,
  type NoticeDelivery,
} from '../ports/alert-settings-port.ts';
import type { AlertTargetDoc } from './documents.ts';
import type { MongoConnection } from './connection.ts';
import { counterKey } from './usage-counters.ts';

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

  async createTarget(t: Tenant, target: Omit<AlertTarget, 'env'>): Promise<AlertTarget> {
    await this.#conn.alertTargets.insertOne({
      _id: target.id,
      orgId: t.orgId,
      env: t.env,
      type: target.type,
      url: target.url,
      address: target.address,
      sealedSecret: target.sealedSecret,
      createdAt: target.createdAt,
    });
    return { ...target, env: t.env };
  }

  async targets(t: Tenant): Promise<AlertTarget[]> {
    return (
      await this.#conn.alertTargets
        .find({ orgId: t.orgId, ...envFilter(t.env) })
        .sort({ _id: 1 })
        .toArray()
    ).map(toTarget);
  }

  async target(orgId: OrgId, id: AlertTargetId): Promise<AlertTarget | null> {
    const doc = await this.#conn.alertTargets.findOne({ orgId, _id: id });
    return doc === null ? null : toTarget(doc);
  }

  async deleteTarget(t: Tenant, id: AlertTargetId): Promise<boolean> {
    return (await this.#conn.alertTargets.deleteOne({ orgId: t.orgId, ...envFilter(t.env), _id: id })).deletedCount > 0;
  }

  async eventOrgs(limit: number): Promise<OrgId[]> {
    const groups = await this.#conn.alertEvents
      // Oldest first across organizations, by time: each numbers its own events. Read in the
      // order of alert_events_org_seq (an index scan, no sort of the outbox), an org's first event first.
      .aggregate<{ _id: string }>([
        { $sort: { orgId: 1, seq: 1 } },
        { $group: { _id: '$orgId', oldest: { $first: '$at' } } },
        { $sort: { oldest: 1, _id: 1 } },
        { $limit: limit },
      ])
      .toArray();
    return groups.map((g) => g._id as OrgId);
  }

  async events(orgId: OrgId, limit: number): Promise<AlertEvent[]> {
    const docs = await this.#conn.alertEvents.find({ orgId }).sort({ seq: 1 }).limit(limit).toArray();
    return docs.map((d) => ({
      seq: d.seq,
      tenant: { orgId: d.orgId as OrgId, env: d.env },
      kind: d.kind,
      endpointId: d.endpointId as EndpointId,
      at: d.at,
      error: d.error,
      responseStatus: d.responseStatus,
      deliveryId: d.deliveryId ?? null,
    }));
  }

  async failingOrgs(since: number, before: number, afterOrgId: OrgId | null, limit: number): Promise<OrgId[]> {
    const groups = await this.#conn.endpoints
      .aggregate<{ _id: string }>([
        { $match: { failingSince: { $gte: since, $lte: before }, status: 'active', ...(afterOrgId === null ? {} : { orgId: { $gt: afterOrgId } }) } },
        { $group: { _id: '$orgId' } },
        { $sort: { _id: 1 } },
        { $limit: limit },
      ])
      .toArray();
    return groups.map((g) => g._id as OrgId);
  }

  async failingEndpoints(
    orgId: OrgId,
    since: number,
    before: number,
    after: FailingCursor | null,
    limit: number,
  ): Promise<{ tenant: Tenant; endpointId: EndpointId; failingSince: number }[]> {
    const range = { $gte: since, $lte: before };
    const filter =
      after === null
        ? { orgId, failingSince: range, status: 'active' as const }
        : {
            orgId,
            status: 'active' as const,
            $and: [
              { failingSince: range },
              { $or: [{ failingSince: { $gt: after.failingSince } }, { failingSince: after.failingSince, _id: { $gt: after.endpointId } }] },
            ],
          };
    const docs = await this.#conn.endpoints
      .find(filter, { projection: { _id: 1, orgId: 1, env: 1, failingSince: 1 } })
      .sort({ failingSince: 1, _id: 1 })
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
    // A counter is spread over shards (usage-counters.ts): `key` and `1|key` … summed per org.
    const docs = await this.#conn.counters.find({ _id: { $regex: `^([0-9]+\\|)?live:[^:]+:${month}$` } }).toArray();
    const used = new Map<string, number>();
    for (const d of docs) {
      const orgId = counterKey(d._id).split(':')[1]!;
      used.set(orgId, (used.get(orgId) ?? 0) + d.value);
    }
    return [...used].map(([orgId, n]) => ({ orgId: orgId as OrgId, used: n }));
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
    const doc = await this.#conn.alertState.findOne({ _id: orgId });
    return doc === null ? null : readAlertState(doc.state);
  }

  async commitStep(orgId: OrgId, consumed: number[], state: AlertState, notices: NoticeDelivery[]): Promise<void> {
    await this.#conn.transaction(async (session) => {
      if (consumed.length > 0) {
        const { deletedCount } = await this.#conn.alertEvents.deleteMany({ orgId, seq: { $in: consumed } }, { session });
        if (deletedCount !== consumed.length) throw new ConflictError('an alert event was consumed by another worker');
      }
      const stored = await this.#conn.alertState.findOne({ _id: orgId }, { session });
      const storedVersion = stored?.state.version ?? 0;
      if (state.version !== storedVersion + 1) throw new ConflictError(`the alert state of ${orgId} moved on (version ${storedVersion})`);
      const due = alertStateDue(state);
      await this.#conn.alertState.updateOne(
        { _id: orgId },
        { $set: { state, windowEnd: due.windowEnd, hasPending: due.hasPending } },
        { session, upsert: true },
      );
      if (notices.length > 0) {
        await this.#conn.alertNotices.insertMany(notices.map(noticeDoc), { session });
      }
    });
  }

  async queueNotice(n: NoticeDelivery): Promise<void> {
    await this.#conn.alertNotices.insertOne(noticeDoc(n));
  }

  async claimNotices(now: number, leaseUntil: number, claim: string, limit: number): Promise<ClaimedNotice[]> {
    const claimed: ClaimedNotice[] = [];
    for (let i = 0; i < limit; i++) {
      const d = await this.#conn.alertNotices.findOneAndUpdate(
        { nextAttemptAt: { $lte: now }, $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }] },
        { $set: { leaseUntil, claim } },
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
        claim,
      });
    }
    return claimed;
  }

  async recordNoticeAttempt(id: string, claim: string, attempt: NoticeAttempt, sent: boolean, next: number | null): Promise<void> {
    const notice = await this.#conn.alertNotices.findOne({ _id: id }, { projection: { orgId: 1, targetId: 1, type: 1 } });
    if (notice === null) return;
    await this.#conn.alertNoticeAttempts.insertOne({ noticeId: id, orgId: notice.orgId, targetId: notice.targetId, type: notice.type, ...attempt });
    // Only the claim that holds the notice moves it on: one re-claimed after its lease ran out is the new holder's.
    await this.#conn.alertNotices.updateOne({ _id: id, claim }, { $inc: { attempts: 1 }, $set: { nextAttemptAt: next, leaseUntil: null, claim: null, sent } });
  }

  async noticeAttempts(orgId: OrgId, targetId: AlertTargetId, limit: number): Promise<(NoticeAttempt & { noticeId: string; type: string })[]> {
    const docs = await this.#conn.alertNoticeAttempts.find({ orgId, targetId }).sort({ at: -1 }).limit(limit).toArray();
    return docs.map((d) => ({ noticeId: d.noticeId, type: d.type, at: d.at, responseStatus: d.responseStatus, error: d.error, durationMs: d.durationMs }));
  }
}

function toTarget(d: AlertTargetDoc): AlertTarget {
  return {
    id: d._id as AlertTargetId,
    env: d.env ?? 'live',
    type: d.type,
    url: d.url,
    address: d.address,
    sealedSecret: d.sealedSecret,
    createdAt: d.createdAt,
  };
}

/** Targets made before they had an environment have none: they are live. */
function envFilter(env: Environment): { env: Environment | { $ne: 'test' } } {
  return { env: env === 'live' ? { $ne: 'test' } : env };
}

/** A notice as queued: due at its creation, untried, unclaimed. */
export function noticeDoc(n: NoticeDelivery) {
  return {
    _id: n.id,
    orgId: n.orgId,
    targetId: n.targetId,
    type: n.type,
    body: n.body,
    createdAt: n.createdAt,
    attempts: 0,
    nextAttemptAt: n.createdAt,
    leaseUntil: null,
    claim: null,
    sent: false,
  };
}
