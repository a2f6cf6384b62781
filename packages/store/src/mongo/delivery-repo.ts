import { ENDPOINT_WALK_BATCH, type Attempt, type Delivery, type DeliveryId, type EndpointId, type EndpointStatus, type Tenant } from '@wirehook/core';
import { pendingWalksAfter, recordWalk, walkBatch } from './endpoint-walk.ts';
import type { AttemptOutcome, ClaimRef, CompletedAttempt, DeliveryJob, DeliveryRepo, DueDelivery, LaneStats } from '../ports/delivery-port.ts';
import type { MongoConnection } from './connection.ts';
import { claimDelivery, dueDeliveries } from './delivery-claim.ts';
import { STRANDED_PEEK_INTERVAL_MS } from './stranded.ts';
import { completeDelivery } from './delivery-complete.ts';
import { toAttempt, toDelivery } from './mappers.ts';
import { refreshMessageStatuses } from './message-status.ts';
import { laneStats, pruneLanes, takeLaneHead } from './ordered-lanes.ts';
import { checkedLimit, OPEN_STATUSES, scope } from './query.ts';

/** Deliveries and attempts in MongoDB: the dispatcher's queue and the API's history. */
export class MongoDeliveryRepo implements DeliveryRepo {
  readonly #conn: MongoConnection;
  /** The endpoint the last walk round ended at. */
  #walkCursor = '';
  /** When `due` last looked for stranded deliveries (stranded.ts), at most every STRANDED_PEEK_INTERVAL_MS. */
  #strandedPeekAt = Number.NEGATIVE_INFINITY;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  async due(now: number, limit: number, perEndpoint: number): Promise<DueDelivery[]> {
    if (checkedLimit(limit, 'limit') === 0 || checkedLimit(perEndpoint, 'perEndpoint') === 0) return [];
    // A clock that stepped back peeks again rather than waiting out the interval.
    const peek = now - this.#strandedPeekAt >= STRANDED_PEEK_INTERVAL_MS || now < this.#strandedPeekAt;
    if (peek) this.#strandedPeekAt = now;
    return dueDeliveries(this.#conn, now, limit, perEndpoint, peek);
  }

  async claim(id: DeliveryId, now: number, leaseUntil: number): Promise<DeliveryJob | null> {
    return claimDelivery(this.#conn, id, now, leaseUntil);
  }

  async release(claim: ClaimRef, nextAttemptAt: number): Promise<void> {
    await this.#conn.deliveries.updateOne(
      { _id: claim.deliveryId, leaseToken: claim.leaseToken, status: { $in: OPEN_STATUSES } },
      { $set: { leaseUntil: null, nextAttemptAt } },
    );
  }

  async releaseAll(): Promise<number> {
    const { modifiedCount } = await this.#conn.deliveries.updateMany({ leaseUntil: { $ne: null } }, { $set: { leaseUntil: null } });
    return modifiedCount;
  }

  async complete(claim: ClaimRef, outcome: AttemptOutcome): Promise<CompletedAttempt> {
    return completeDelivery(this.#conn, claim, outcome);
  }

  async get(t: Tenant, id: DeliveryId): Promise<{ delivery: Delivery; endpointStatus: EndpointStatus | null } | null> {
    const doc = await this.#conn.deliveries.findOne({ ...scope(t), _id: id });
    if (doc === null) return null;
    const endpoint = await this.#conn.endpoints.findOne({ ...scope(t), _id: doc.endpointId }, { projection: { status: 1 } });
    return { delivery: toDelivery(doc), endpointStatus: endpoint?.status ?? null };
  }

  async retryNow(t: Tenant, id: DeliveryId, now: number): Promise<Delivery | null> {
    return this.#conn.transaction(async (session) => {
      // Leased at `now`: being sent; `resend` makes that send's completion keep it due.
      const doc = await this.#conn.deliveries.findOneAndUpdate(
        { ...scope(t), _id: id },
        // Not held: a re-send is only asked for while the endpoint is active (intake checks).
        // Out of turn in its ordered lane too (#31: the user asked); it keeps its sequence.
        [{ $set: { status: 'retrying', manual: true, nextAttemptAt: { $literal: now }, resend: { $gt: ['$leaseUntil', now] }, held: false, laneWait: false } }],
        { session, returnDocument: 'after' },
      );
      if (doc === null) return null;
      // It takes its lane's head: the displaced head waits and comes next by sequence.
      if (doc.orderingKey) await takeLaneHead(this.#conn, session, doc.endpointId, doc.orderingKey, doc._id);
      await refreshMessageStatuses(this.#conn, session, t, [doc.messageId]);
      return toDelivery(doc);
    });
  }

  async releaseHeld(t: Tenant, endpointId: EndpointId, heldSince: number, now: number): Promise<number> {
    return this.#conn.transaction(async (session) => {
      const endpoint = await this.#conn.endpoints.findOne({ ...scope(t), _id: endpointId }, { session, projection: { status: 1 } });
      if (endpoint?.status !== 'active') return 0;
      await recordWalk(this.#conn, session, t, endpointId, 'release', heldSince);
      return (await walkBatch(this.#conn, session, endpointId, now, ENDPOINT_WALK_BATCH)).released;
    });
  }

  async walkEndpoints(now: number, batch: number, endpoints: number): Promise<{ changed: number; pending: boolean }> {
    checkedLimit(batch, 'batch');
    checkedLimit(endpoints, 'endpoints');
    // In turn from where the last round stopped, so one long walk never starves the others.
    let ids = await pendingWalksAfter(this.#conn, this.#walkCursor, endpoints);
    if (ids.length < endpoints && this.#walkCursor !== '') {
      const wrapped = await pendingWalksAfter(this.#conn, '', endpoints - ids.length);
      ids = [...ids, ...wrapped.filter((id) => !ids.includes(id))];
    }
    let changed = 0;
    for (const id of ids) {
      const done = await this.#conn.transaction((session) => walkBatch(this.#conn, session, id, now, batch));
      changed += done.released + done.failed + done.held;
      this.#walkCursor = id;
    }
    return { changed, pending: (await pendingWalksAfter(this.#conn, '', 1)).length > 0 };
  }

  async laneStats(): Promise<LaneStats> {
    return laneStats(this.#conn);
  }

  async pruneLanes(before: number, batch: number): Promise<number> {
    if (checkedLimit(batch, 'batch') === 0) return 0;
    return pruneLanes(this.#conn, before, batch);
  }

  async backlog(now: number): Promise<{ due: number; oldestDueAt: number | null; retrying: number }> {
    const dueFilter = { status: { $in: OPEN_STATUSES }, held: false, laneWait: false, nextAttemptAt: { $lte: now } };
    const [due, oldest, retrying] = await Promise.all([
      this.#conn.deliveries.countDocuments(dueFilter),
      this.#conn.deliveries.findOne(dueFilter, { sort: { nextAttemptAt: 1 }, projection: { nextAttemptAt: 1 } }),
      this.#conn.deliveries.countDocuments({ status: 'retrying' }),
    ]);
    return { due, oldestDueAt: oldest?.nextAttemptAt ?? null, retrying };
  }

  async retryingCount(t: Tenant, endpointId: EndpointId): Promise<number> {
    return this.#conn.deliveries.countDocuments({ ...scope(t), endpointId, status: 'retrying' });
  }

  async recentAttempts(t: Tenant, endpointId: EndpointId, limit: number): Promise<Attempt[]> {
    if (checkedLimit(limit, 'limit') === 0) return [];
    const docs = await this.#conn.attempts
      .find({ ...scope(t), endpointId })
      .sort({ at: -1, _id: -1 })
      .limit(limit)
      .toArray();
    return docs.map(toAttempt);
  }
}
