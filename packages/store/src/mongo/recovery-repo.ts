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
import { START_SKEW_MS, type NewRecovery, type RecoveryLease, type RecoveryRepo, type RecoveryStep } from '../ports/recovery-port.ts';
import type { MongoConnection } from './connection.ts';
import type { RecoveryDoc } from './documents.ts';
import { isDuplicateKey } from './errors.ts';
import { UNIQUE_INDEX } from './indexes.ts';
import { refreshMessageStatuses } from './message-status.ts';
import { rejoinLane } from './ordered-lanes.ts';
import { OPEN_STATUSES, scope } from './query.ts';

/** Recoveries in MongoDB: the same contract as SQLite's (packages/store/test/contract/recovery-contract.ts). */
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
        // The targets: failed deliveries of messages created at or after `since` (a delivery's
        // createdAt is its message's). Counted here on deliveries_endpoint_failed_since; read
        // batch by batch as the recovery goes (step), so a start costs the same with 10 or 10^6.
        const total = await this.#conn.deliveries.countDocuments(
          // The endpoint alone (checked above to be the tenant's): the count reads the index only.
          { endpointId: input.endpointId, status: 'failed', createdAt: { $gte: input.since } },
          { session },
        );
        const done = total === 0;
        const doc: RecoveryDoc = {
          _id: input.id,
          ...scope(t),
          endpointId: input.endpointId,
          since: input.since,
          status: done ? 'done' : 'running',
          total,
          queued: 0,
          cursorCreatedAt: null,
          cursorId: null,
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
        { ...scope(t), endpointId: current.endpointId, status: { $in: OPEN_STATUSES }, held: false, laneWait: false, nextAttemptAt: { $lte: now } },
        { session, limit: maxOutstanding },
      );
      if (outstanding >= maxOutstanding) {
        await this.#conn.recoveries.updateOne({ _id: current._id }, { $set: { leaseUntil } }, { session });
        return { recovery: toRecovery(current), queuedIds: [], applied: true };
      }
      // The next targets after the cursor, oldest first (deliveries of one millisecond by id).
      const cursorAt = current.cursorCreatedAt ?? current.since - 1;
      const cursorId = current.cursorId ?? '';
      const rows = await this.#conn.deliveries
        .find(
          {
            endpointId: current.endpointId,
            status: 'failed',
            // From the cursor (not from since: the range starts there) up to the start (START_SKEW_MS).
            createdAt: { $gte: Math.max(current.since, cursorAt), $lte: current.createdAt + START_SKEW_MS },
            $or: [{ createdAt: { $gt: cursorAt } }, { createdAt: cursorAt, _id: { $gt: cursorId } }],
            ...scope(t),
          },
          { session, projection: { _id: 1, messageId: 1, createdAt: 1, lastAttemptAt: 1, orderingKey: 1 }, sort: { createdAt: 1, _id: 1 }, limit: batch },
        )
        .toArray();
      // Not attempted since the start (a re-send by hand that failed again is not targeted:
      // spec, recover rule 4).
      const failed = rows.filter((d) => !(d.lastAttemptAt !== null && d.lastAttemptAt > current.createdAt));
      if (failed.length > 0) {
        await this.#conn.deliveries.updateMany(
          { ...scope(t), _id: { $in: failed.map((d) => d._id) }, status: 'failed' },
          { $set: { status: 'retrying', manual: false, resend: false, policyAttempts: 0, nextAttemptAt: now, held: false, laneWait: false } },
          { session },
        );
        // An ordered delivery goes back into its lane, in sequence order (the targets' order):
        // now if the lane is free, else in turn.
        for (const d of failed) {
          if (typeof d.orderingKey === 'string') await rejoinLane(this.#conn, session, current.endpointId, d.orderingKey, d._id);
        }
        await refreshMessageStatuses(
          this.#conn,
          session,
          t,
          failed.map((d) => d.messageId),
        );
      }
      const queuedIds = failed.map((d) => d._id as DeliveryId);
      // A target gone through counts whether it went again or was skipped; one no longer failed
      // (re-sent by hand and delivered, removed by retention) is not met: the end counts it.
      if (rows.length < batch) {
        await this.#conn.recoveries.updateOne({ _id: current._id }, { $set: { queued: current.total, lastBatchAt: now } }, { session });
        return { recovery: await this.#finish(session, current._id, 'done', now), queuedIds, applied: true };
      }
      const last = rows[rows.length - 1]!;
      const doc = await this.#conn.recoveries.findOneAndUpdate(
        { _id: current._id },
        {
          $set: {
            queued: Math.min(current.total, current.queued + rows.length),
            cursorCreatedAt: last.createdAt,
            cursorId: last._id,
            lastBatchAt: now,
            leaseUntil,
          },
        },
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

  /** Ends a recovery (nothing of it to delete: its targets were never copied). */
  async #finish(session: ClientSession, id: string, status: Exclude<RecoveryStatus, 'running'>, now: number): Promise<Recovery> {
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
