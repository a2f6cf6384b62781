import {
  ConflictError,
  NotFoundError,
  type DeliveryId,
  type EndpointId,
  type Recovery,
  type RecoveryId,
  type RecoveryStatus,
  type Tenant,
} from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import type { NewRecovery, RecoveryLease, RecoveryRepo, RecoveryStep } from '../message-ports.ts';
import type { MongoConnection } from './connection.ts';
import type { RecoveryDoc } from './documents.ts';
import { isDuplicateKey } from './errors.ts';
import { UNIQUE_INDEX } from './indexes.ts';
import { refreshMessageStatuses } from './message-status.ts';
import { OPEN_STATUSES, scope } from './query.ts';

/** Targets written per insertMany while a recovery starts. */
const TARGET_CHUNK = 1_000;

/** Recoveries in MongoDB: the same contract as SQLite's (packages/store/src/contract/recovery-contract.ts). */
export class MongoRecoveryRepo implements RecoveryRepo {
  readonly #conn: MongoConnection;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  async start(t: Tenant, input: NewRecovery): Promise<Recovery> {
    try {
      return await this.#conn.transaction(async (session) => {
        const endpoint = await this.#conn.endpoints.findOne({ ...scope(t), _id: input.endpointId }, { session, projection: { status: 1 } });
        if (endpoint === null) throw new NotFoundError(`endpoint ${input.endpointId} not found`);
        if (endpoint.status !== 'active') throw new ConflictError(`endpoint ${input.endpointId} is ${endpoint.status}; a recovery needs it active`);
        const running = await this.#conn.recoveries.findOne({ endpointId: input.endpointId, status: 'running' }, { session });
        if (running !== null) throw new ConflictError(`recovery ${running._id} is already running on endpoint ${input.endpointId}`);
        const failed = await this.#conn.deliveries
          .find({ ...scope(t), endpointId: input.endpointId, status: 'failed' }, { session, projection: { _id: 1, messageId: 1 } })
          .toArray();
        const created = new Map(
          (
            await this.#conn.messages
              .find({ ...scope(t), _id: { $in: failed.map((d) => d.messageId) }, createdAt: { $gte: input.since } }, { session, projection: { createdAt: 1 } })
              .toArray()
          ).map((m) => [m._id, m.createdAt]),
        );
        const targets = failed
          .filter((d) => created.has(d.messageId))
          // Oldest first; messages of one millisecond in message id order, then deliveries by id.
          .sort((a, b) => created.get(a.messageId)! - created.get(b.messageId)! || compare(a.messageId, b.messageId) || compare(a._id, b._id));
        for (let i = 0; i < targets.length; i += TARGET_CHUNK) {
          const chunk = targets
            .slice(i, i + TARGET_CHUNK)
            .map((d, j) => ({ _id: `${input.id}:${i + j + 1}`, recoveryId: input.id, seq: i + j + 1, deliveryId: d._id }));
          await this.#conn.recoveryTargets.insertMany(chunk, { session });
        }
        const done = targets.length === 0;
        const doc: RecoveryDoc = {
          _id: input.id,
          ...scope(t),
          endpointId: input.endpointId,
          since: input.since,
          status: done ? 'done' : 'running',
          total: targets.length,
          queued: 0,
          createdAt: input.createdAt,
          finishedAt: done ? input.createdAt : null,
          lastBatchAt: null,
          leaseUntil: null,
          leaseToken: 0,
        };
        await this.#conn.recoveries.insertOne(doc, { session });
        return toRecovery(doc);
      });
    } catch (err) {
      if (isDuplicateKey(err, UNIQUE_INDEX.recoveryRunning)) throw new ConflictError(`a recovery is already running on endpoint ${input.endpointId}`);
      throw err;
    }
  }

  async get(t: Tenant, endpointId: EndpointId, id: RecoveryId): Promise<Recovery | null> {
    const doc = await this.#conn.recoveries.findOne({ ...scope(t), endpointId, _id: id });
    return doc === null ? null : toRecovery(doc);
  }

  async latest(t: Tenant, endpointId: EndpointId): Promise<Recovery | null> {
    const doc = await this.#conn.recoveries.findOne({ ...scope(t), endpointId }, { sort: { _id: -1 } });
    return doc === null ? null : toRecovery(doc);
  }

  async claim(now: number, leaseUntil: number): Promise<RecoveryLease | null> {
    const doc = await this.#conn.recoveries.findOneAndUpdate(
      { status: 'running', $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }] },
      { $set: { leaseUntil }, $inc: { leaseToken: 1 } },
      { sort: { _id: 1 }, returnDocument: 'after' },
    );
    return doc === null ? null : toLease(doc);
  }

  async step(lease: RecoveryLease, now: number, batch: number, maxOutstanding: number, leaseUntil: number): Promise<RecoveryStep> {
    return this.#conn.transaction(async (session) => {
      const current = await this.#conn.recoveries.findOne({ _id: lease.recovery.id, leaseToken: lease.leaseToken, status: 'running' }, { session });
      if (current === null) return { recovery: lease.recovery, queuedIds: [], applied: false };
      const t = lease.tenant;
      const endpoint = await this.#conn.endpoints.findOne({ ...scope(t), _id: current.endpointId }, { session, projection: { status: 1 } });
      if (endpoint === null || endpoint.status !== 'active')
        return { recovery: await this.#finish(session, current._id, 'stopped', now), queuedIds: [], applied: true };
      const outstanding = await this.#conn.deliveries.countDocuments(
        { ...scope(t), endpointId: current.endpointId, status: { $in: OPEN_STATUSES }, held: false, nextAttemptAt: { $lte: now } },
        { session, limit: maxOutstanding },
      );
      if (outstanding >= maxOutstanding) {
        await this.#conn.recoveries.updateOne({ _id: current._id }, { $set: { leaseUntil } }, { session });
        return { recovery: toRecovery(current), queuedIds: [], applied: true };
      }
      const targets = await this.#conn.recoveryTargets
        .find({ recoveryId: current._id, seq: { $gt: current.queued } }, { session, sort: { seq: 1 }, limit: batch })
        .toArray();
      // Still failed and not attempted since the start (a re-send by hand that failed again is
      // not targeted: spec, recover rule 4).
      const failed = await this.#conn.deliveries
        .find(
          { ...scope(t), _id: { $in: targets.map((x) => x.deliveryId) }, status: 'failed', lastAttemptAt: { $not: { $gt: current.createdAt } } },
          { session, projection: { _id: 1, messageId: 1 } },
        )
        .toArray();
      if (failed.length > 0) {
        await this.#conn.deliveries.updateMany(
          { ...scope(t), _id: { $in: failed.map((d) => d._id) }, status: 'failed' },
          { $set: { status: 'retrying', manual: false, resend: false, policyAttempts: 0, nextAttemptAt: now, held: false } },
          { session },
        );
        await refreshMessageStatuses(
          this.#conn,
          session,
          t,
          failed.map((d) => d.messageId),
        );
      }
      const queued = current.queued + targets.length;
      const queuedIds = failed.map((d) => d._id as DeliveryId);
      if (queued >= current.total) {
        await this.#conn.recoveries.updateOne({ _id: current._id }, { $set: { queued, lastBatchAt: now } }, { session });
        return { recovery: await this.#finish(session, current._id, 'done', now), queuedIds, applied: true };
      }
      const doc = await this.#conn.recoveries.findOneAndUpdate(
        { _id: current._id },
        { $set: { queued, lastBatchAt: now, leaseUntil } },
        { session, returnDocument: 'after' },
      );
      return { recovery: toRecovery(doc!), queuedIds, applied: true };
    });
  }

  async release(lease: RecoveryLease): Promise<void> {
    await this.#conn.recoveries.updateOne({ _id: lease.recovery.id, leaseToken: lease.leaseToken }, { $set: { leaseUntil: null } });
  }

  async stop(t: Tenant, endpointId: EndpointId, now: number): Promise<boolean> {
    return this.#conn.transaction(async (session) => {
      const running = await this.#conn.recoveries.findOne({ ...scope(t), endpointId, status: 'running' }, { session });
      if (running === null) return false;
      await this.#finish(session, running._id, 'stopped', now);
      return true;
    });
  }

  async releaseAll(): Promise<number> {
    const { modifiedCount } = await this.#conn.recoveries.updateMany({ leaseUntil: { $ne: null } }, { $set: { leaseUntil: null } });
    return modifiedCount;
  }

  async #finish(session: ClientSession, id: string, status: Exclude<RecoveryStatus, 'running'>, now: number): Promise<Recovery> {
    await this.#conn.recoveryTargets.deleteMany({ recoveryId: id }, { session });
    const doc = await this.#conn.recoveries.findOneAndUpdate(
      { _id: id },
      { $set: { status, finishedAt: now, leaseUntil: null } },
      { session, returnDocument: 'after' },
    );
    return toRecovery(doc!);
  }
}

function toRecovery(doc: RecoveryDoc): Recovery {
  return {
    id: doc._id as RecoveryId,
    endpointId: doc.endpointId as EndpointId,
    since: doc.since,
    status: doc.status,
    total: doc.total,
    queued: doc.queued,
    createdAt: doc.createdAt,
    finishedAt: doc.finishedAt,
  };
}

function toLease(doc: RecoveryDoc): RecoveryLease {
  return { tenant: { orgId: doc.orgId as Tenant['orgId'], env: doc.env }, recovery: toRecovery(doc), leaseToken: doc.leaseToken, lastBatchAt: doc.lastBatchAt };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
