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
import type { MongoConnection, MonthBucket } from './connection.ts';
import type { DeliveryDoc, RecoveryDoc } from './documents.ts';
import { type DueNote, noteDue } from './due-queue.ts';
import { isDuplicateKey } from './errors.ts';
import { UNIQUE_INDEX } from './indexes.ts';
import { refreshMessageStatuses } from './message-status.ts';
import { monthOf } from './months.ts';
import { rejoinLane } from './ordered-lanes.ts';
import { RECOVERIES_PLANS as P } from './plans/recoveries.ts';
import { scope } from './query.ts';

/**
 * The most targets a start counts (index keys, ~30 ms: a recovery of a month of failures at
 * 5,000/s is 10⁹): beyond it `total` reads as "at least", and the walk goes on to the last target all the
 * same (each step queues what it reads, `total` growing with `queued` past the cap; the last sets both to what was met).
 */
export const TARGETS_COUNT_CAP = 100_000;

/**
 * A step's `queued` and `total`, having read `read` targets (`last`: the walk's end). A total
 * the start's count stopped at (TARGETS_COUNT_CAP) is "at least": it grows with queued, and the
 * end sets both to what was met; an exact one holds, and the end sets queued to it.
 */
export function stepCounts(current: { total: number; queued: number }, read: number, last: boolean): { total: number; queued: number } {
  const queued = current.queued + read;
  if (current.total >= TARGETS_COUNT_CAP) {
    const met = Math.max(current.total, queued);
    return { total: met, queued: last ? met : queued };
  }
  return { total: current.total, queued: last ? current.total : Math.min(current.total, queued) };
}

/** Recoveries in MongoDB: the same contract as SQLite's (packages/store/test/contract/recovery-contract.ts). */
export class MongoRecoveryRepo implements RecoveryRepo {
  readonly #conn: MongoConnection;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  async start(t: Tenant, input: NewRecovery): Promise<Recovery> {
    // The targets: failed deliveries of messages created at or after `since` (a delivery's
    // createdAt is its message's), read batch by batch as the recovery goes (step). Counted
    // here, before the transaction and not in it: a count of 10^6 index keys (a COUNT_SCAN of
    // deliveries_endpoint_failed, no document read) would hold the transaction's snapshot
    // open for its length and run again with every write-conflict retry. A delivery failing
    // between the count and the commit is not in `total`; the step that ends the recovery sets
    // `queued` to `total` whatever it met (as before). The endpoint alone (the transaction
    // checks it is the tenant's before anything is written): the count reads the index only.
    const total = await this.#countTargets(input.endpointId, input.since);
    try {
      return await this.#conn.transaction(async (session) => {
        const e = P.endpoint(t, input.endpointId);
        const endpoint = await this.#conn.endpoints.findOne(e.filter, { ...e.options, session, projection: { status: 1 } });
        if (endpoint === null) throw new NotFoundError(`endpoint ${input.endpointId} not found`);
        if (endpoint.status !== 'active') throw new ConflictError(`endpoint ${input.endpointId} is ${endpoint.status}; a recovery needs it active`);
        const r = P.running(input.endpointId);
        const running = await this.#conn.recoveries.findOne(r.filter, { ...r.options, session });
        if (running !== null) throw new ConflictError(`recovery ${running._id} is already running on endpoint ${input.endpointId}`);
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
    const q = P.byId(t, endpointId, id);
    const doc = await this.#conn.recoveries.findOne(q.filter, q.options);
    return doc === null ? null : toRecovery(doc);
  }

  async latest(t: Tenant, endpointId: EndpointId): Promise<Recovery | null> {
    const q = P.latest(t, endpointId);
    const doc = await this.#conn.recoveries.findOne(q.filter, q.options);
    return doc === null ? null : toRecovery(doc);
  }

  async claim(now: number, leaseUntil: number): Promise<RecoveryLease | null> {
    // The oldest running recovery free or expired, in recoveries_running_id's order (no sort in memory).
    const q = P.claimable(now);
    const doc = await this.#conn.recoveries.findOneAndUpdate(
      q.filter,
      { $set: { leaseUntil }, $inc: { leaseToken: 1 } },
      { ...q.options, returnDocument: 'after' },
    );
    return doc === null ? null : toLease(doc);
  }

  async step(lease: RecoveryLease, now: number, batch: number, maxOutstanding: number, leaseUntil: number): Promise<RecoveryStep> {
    const result = await this.#conn.transaction((session) => this.#step(session, lease, now, batch, maxOutstanding, leaseUntil));
    // Its re-queued deliveries not waiting in a lane are in the due index from the commit on:
    // told to the due queue now, after it (due-queue.ts), at `now`, their dueAt: one note a month.
    if (result.due.length > 0) await noteDue(this.#conn, result.due);
    return result.step;
  }

  /**
   * A start's targets counted, month by month from `since`'s to the newest (a COUNT_SCAN of each
   * month's deliveries_endpoint_failed, index keys only), summed; the months at once (no session).
   */
  async #countTargets(endpointId: string, since: number): Promise<number> {
    const from = monthOf(since);
    const q = P.targetsCount(endpointId, since);
    let total = 0;
    for (const month of (await this.#conn.months()).filter((m) => m >= from)) {
      if (total >= TARGETS_COUNT_CAP) break;
      total += await this.#conn.bucket(month).deliveries.countDocuments(q.filter, { ...q.options, limit: TARGETS_COUNT_CAP - total });
    }
    return total;
  }

  /**
   * The endpoint's due deliveries counted up to `cap`: month by month, newest first (where a
   * backlog is), each count limited to what the cap leaves, stopped once it is reached.
   */
  async #countOutstanding(session: ClientSession, endpointId: string, now: number, cap: number): Promise<number> {
    const q = P.outstanding(endpointId, now);
    let outstanding = 0;
    for (const month of [...(await this.#conn.months())].reverse()) {
      if (outstanding >= cap) break;
      outstanding += await this.#conn.bucket(month).deliveries.countDocuments(q.filter, { ...q.options, session, limit: cap - outstanding });
    }
    return outstanding;
  }

  /**
   * A step's next targets after its cursor, oldest first: month by month from the cursor's (or
   * `since`'s) to the start's (+ START_SKEW_MS), until `batch` are read.
   * @returns them by month, in order.
   */
  async #targets(session: ClientSession, t: Tenant, current: RecoveryDoc, batch: number): Promise<{ bucket: MonthBucket; rows: Target[] }[]> {
    // From the cursor (not from since: the range starts there); deliveries of one millisecond by id.
    const cursorAt = current.cursorCreatedAt ?? current.since - 1;
    const upTo = current.createdAt + START_SKEW_MS;
    const q = P.targets(t, current.endpointId, Math.max(current.since, cursorAt), upTo, cursorAt, current.cursorId ?? '');
    const from = typeof current.cursorId === 'string' ? this.#conn.bucketMonthOf(current.cursorId) : monthOf(current.since);
    const last = monthOf(upTo);
    const found: { bucket: MonthBucket; rows: Target[] }[] = [];
    let read = 0;
    for (const month of await this.#conn.months()) {
      if (month < from) continue;
      if (month > last || read >= batch) break;
      const bucket = this.#conn.bucket(month);
      const rows = await bucket.deliveries
        .find(q.filter, { ...q.options, session, projection: { _id: 1, messageId: 1, createdAt: 1, lastAttemptAt: 1, orderingKey: 1 }, limit: batch - read })
        .toArray();
      if (rows.length > 0) found.push({ bucket, rows });
      read += rows.length;
    }
    return found;
  }

  async #step(
    session: ClientSession,
    lease: RecoveryLease,
    now: number,
    batch: number,
    maxOutstanding: number,
    leaseUntil: number,
  ): Promise<{ step: RecoveryStep; due: DueNote[] }> {
    const none = (step: RecoveryStep) => ({ step, due: [] });
    const c = P.leasedBy(lease.recovery.id, lease.leaseToken, true);
    const current = await this.#conn.recoveries.findOne(c.filter, { ...c.options, session });
    if (current === null) return none({ recovery: lease.recovery, queuedIds: [], applied: false });
    const t = lease.tenant;
    const e = P.endpoint(t, current.endpointId);
    const endpoint = await this.#conn.endpoints.findOne(e.filter, { ...e.options, session, projection: { status: 1 } });
    if (endpoint === null || endpoint.status !== 'active')
      return none({ recovery: await this.#finish(session, current._id, 'stopped', now), queuedIds: [], applied: true });
    // Counted only up to the bound, on the endpoint's range of the due index (index keys only):
    // a backlog of 10^5 due is not read to learn it is over the bound. Due is `dueAt` ≤ now:
    // a delivery being sent has its lease's end as its dueAt, so it is not counted here (the
    // pace between batches, lastBatchAt, spaces a recovery's batches instead).
    const outstanding = await this.#countOutstanding(session, current.endpointId, now, maxOutstanding);
    const self = P.recovery(current._id);
    if (outstanding >= maxOutstanding) {
      await this.#conn.recoveries.updateOne(self.filter, { $set: { leaseUntil } }, { ...self.options, session });
      return none({ recovery: toRecovery(current), queuedIds: [], applied: true });
    }
    const found = await this.#targets(session, t, current, batch);
    const queuedIds: DeliveryId[] = [];
    const due: DueNote[] = [];
    for (const { bucket, rows } of found) {
      const requeued = await this.#requeue(session, t, current, bucket, rows, now);
      queuedIds.push(...requeued.ids);
      if (requeued.due) due.push({ orgId: t.orgId, env: t.env, endpointId: current.endpointId, month: bucket.month, dueAt: now });
    }
    const read = found.flatMap((f) => f.rows);
    // A target gone through counts whether it went again or was skipped; one no longer failed
    // (re-sent by hand and delivered, removed by retention) is not met: the end counts it.
    if (read.length < batch) {
      const met = stepCounts(current, read.length, true);
      await this.#conn.recoveries.updateOne(self.filter, { $set: { ...met, lastBatchAt: now } }, { ...self.options, session });
      return { step: { recovery: await this.#finish(session, current._id, 'done', now), queuedIds, applied: true }, due };
    }
    const last = read[read.length - 1]!;
    const doc = await this.#conn.recoveries.findOneAndUpdate(
      self.filter,
      {
        $set: {
          ...stepCounts(current, read.length, false),
          cursorCreatedAt: last.createdAt,
          cursorId: last._id,
          lastBatchAt: now,
          leaseUntil,
        },
      },
      { ...self.options, session, returnDocument: 'after' },
    );
    return { step: { recovery: toRecovery(doc!), queuedIds, applied: true }, due };
  }

  /**
   * Re-queues one month's targets of a step (those not attempted since the start) in its
   * transaction. @returns their ids, and whether any is in the due index now (not waiting in a lane).
   */
  async #requeue(
    session: ClientSession,
    t: Tenant,
    current: RecoveryDoc,
    bucket: MonthBucket,
    rows: readonly Target[],
    now: number,
  ): Promise<{ ids: DeliveryId[]; due: boolean }> {
    // Not attempted since the start (a re-send by hand that failed again is not targeted:
    // spec, recover rule 4).
    const failed = rows.filter((d) => !(d.lastAttemptAt !== null && d.lastAttemptAt > current.createdAt));
    if (failed.length === 0) return { ids: [], due: false };
    const r = P.requeue(
      t,
      failed.map((d) => d._id),
    );
    await bucket.deliveries.updateMany(
      r.filter,
      // A target failed by a walk while it was being sent still holds that lease: due at its
      // end, not now, so it is not claimed twice at once (as retryNow and a release).
      [
        {
          $set: {
            status: 'retrying',
            manual: false,
            resend: false,
            policyAttempts: 0,
            nextAttemptAt: { $literal: now },
            dueAt: { $cond: [{ $gt: ['$leaseUntil', now] }, '$leaseUntil', { $literal: now }] },
            held: false,
            laneWait: false,
          },
        },
      ],
      { ...r.options, session },
    );
    // An ordered delivery goes back into its lane, in sequence order (the targets' order):
    // now if the lane is free, else in turn.
    let due = false;
    for (const d of failed) {
      const waits = typeof d.orderingKey === 'string' && (await rejoinLane(this.#conn, session, current.endpointId, d.orderingKey, d._id));
      if (!waits) due = true;
    }
    await refreshMessageStatuses(
      this.#conn,
      session,
      t,
      failed.map((d) => d.messageId),
    );
    return { ids: failed.map((d) => d._id as DeliveryId), due };
  }

  async release(lease: RecoveryLease): Promise<void> {
    const q = P.release(lease.recovery.id, lease.leaseToken);
    await this.#conn.recoveries.updateOne(q.filter, { $set: { leaseUntil: null } }, q.options);
  }

  async stop(t: Tenant, endpointId: EndpointId, now: number): Promise<boolean> {
    return this.#conn.transaction(async (session) => {
      const q = P.runningOfTenant(t, endpointId);
      const running = await this.#conn.recoveries.findOne(q.filter, { ...q.options, session });
      if (running === null) return false;
      await this.#finish(session, running._id, 'stopped', now);
      return true;
    });
  }

  async releaseAll(): Promise<number> {
    // Only running recoveries hold a lease (an end frees it): recoveries_running_id's entries only.
    const q = P.leased();
    const { modifiedCount } = await this.#conn.recoveries.updateMany(q.filter, { $set: { leaseUntil: null } }, q.options);
    return modifiedCount;
  }

  /** Ends a recovery (nothing of it to delete: its targets were never copied). */
  async #finish(session: ClientSession, id: string, status: Exclude<RecoveryStatus, 'running'>, now: number): Promise<Recovery> {
    const q = P.recovery(id);
    const doc = await this.#conn.recoveries.findOneAndUpdate(
      q.filter,
      { $set: { status, finishedAt: now, leaseUntil: null } },
      { ...q.options, session, returnDocument: 'after' },
    );
    return toRecovery(doc!);
  }
}

/** What a step reads of a target. */
type Target = Pick<DeliveryDoc, '_id' | 'messageId' | 'createdAt' | 'lastAttemptAt' | 'orderingKey'>;

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
