import { randomUUID } from 'node:crypto';
import {
  ConflictError,
  DELIVERY_ATTEMPTS_SHOWN,
  InvalidError,
  MAX_ATTEMPTS_FOR_MANUAL_RETRY,
  MAX_PAGE_SIZE,
  PacedRun,
  within,
  type Attempt,
  type AttemptId,
  type ConsumerId,
  type Delivery,
  type DeliveryId,
  type EndpointId,
  type EndpointStatus,
  type Tenant,
} from '@wirehook/core';
import { pendingWalksAfter, pickWalks, recordWalk, REQUEST_WALK_BATCH, WALK_SPREAD, walkBatch } from './endpoint-walk.ts';
import type {
  Backlog,
  AttemptOutcome,
  AttemptPage,
  ClaimRef,
  CompletedAttempt,
  DeliveryJob,
  DeliveryRepo,
  DeliveryView,
  DueDelivery,
  LaneStats,
} from '../ports/delivery-port.ts';
import { checkRecentAttemptsLimit } from '../ports/delivery-port.ts';
import type { MongoConnection, MonthBucket } from './connection.ts';
import { claimDelivery, dueDeliveries, healDueQueue, healTenantBounds } from './delivery-claim.ts';
import { type HealWalk, moveHealCursor, readHealCursors } from './heal-cursors.ts';
import { noteDue, stopTenantWriter, tenantsLowered } from './due-queue.ts';
import { DELIVERIES_PLANS as P } from './plans/deliveries.ts';
import { ENDPOINT_COUNT_CAP, ENDPOINTS_PLANS as EP } from './plans/endpoints.ts';
import { MESSAGES_PLANS as MP } from './plans/messages.ts';
import { endHold } from './endpoint-put-off.ts';
import { STRANDED_PEEK_INTERVAL_MS } from './stranded.ts';
import { startDueRechecks } from './held-recheck.ts';
import { completeDelivery } from './delivery-complete.ts';
import { countAcrossMonths } from './endpoint-stats-repo.ts';
import { countAndShare, sharedBacklog } from './backlog-read.ts';
import { newestFirst, toAttempt, toDelivery } from './mappers.ts';
import { refreshMessageStatuses } from './message-status.ts';
import { laneStats, pruneLanes, takeLaneHead } from './ordered-lanes.ts';
import { checkedLimit } from './query.ts';

/** Deliveries and attempts in MongoDB: the dispatcher's queue and the API's history. */
export class MongoDeliveryRepo implements DeliveryRepo {
  readonly #conn: MongoConnection;
  /** The endpoint the last walk round ended at. */
  #walkCursor = '';
  /** Whether the next walk round starts at random among the next WALK_SPREAD (the first that finds walks does, and the first after they ran out). */
  #spreadWalks = true;
  /** When this process last read the rechecks due (held-recheck.ts): once a second at most, not once a batch. */
  #rechecksReadAt = Number.NEGATIVE_INFINITY;
  /**
   * The due queue's healing (healDueQueue): `due` starts it at most every
   * STRANDED_PEEK_INTERVAL_MS and does not wait for it. A pass is up to 2 × HEAL_STEPS
   * sequential seeks (hundreds of round trips); inside `due` it held every sweep of this
   * dispatcher (the retries and the backlog) for as long, every 5 s.
   */
  readonly #healer = new PacedRun(
    STRANDED_PEEK_INTERVAL_MS,
    async (now) => {
      // Where the walks go on is every dispatcher's (heal-cursors.ts): N replicas walk one pass between them. Not read
      // (told below), each goes on where this process last saw it: a failing read stops neither walk (helper 268).
      const read = await readHealCursors(this.#conn).then(
        (shared) => ({ shared, failed: undefined }),
        (err: unknown) => ({ shared: this.#healCursors, failed: err }),
      );
      const from = read.shared;
      const walk = async (name: HealWalk, heal: (cursor: string) => Promise<string>) => {
        const to = await heal(from[name]);
        this.#healCursors = { ...this.#healCursors, [name]: to };
        await moveHealCursor(this.#conn, name, from[name], to);
      };
      // The two walks apart: one that keeps failing does not stop the other (helper 268).
      const walked = await Promise.allSettled([
        walk('due', (cursor) => healDueQueue(this.#conn, now, cursor)),
        walk('tenants', (cursor) => healTenantBounds(this.#conn, cursor)),
      ]);
      const failed = walked.find((r) => r.status === 'rejected');
      if (read.failed !== undefined || failed !== undefined) throw read.failed ?? (failed as PromiseRejectedResult).reason;
    },
    // Told, and tried again at the next start due; the sweep does not depend on it.
    (err) => process.emitWarning(`wirehook: healing the due queue: ${err instanceof Error ? err.message : String(err)}`),
  );
  /** Where this process last saw the healer's walks end (heal-cursors.ts keeps them for every dispatcher): used when that read fails. */
  #healCursors: Record<HealWalk, string> = { due: '', tenants: '' };
  /** This process, as the holder of the backlog count's lease. */
  readonly #holder = randomUUID();
  /** Whether the shared count's two documents are known to exist (countAndShare makes them once). */
  readonly #backlogDocs = { ready: false };

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  async due(now: number, limit: number, perEndpoint: number, perTenant = limit, skip: readonly Tenant[] = []): Promise<DueDelivery[]> {
    if (checkedLimit(limit, 'limit') === 0 || checkedLimit(perEndpoint, 'perEndpoint') === 0 || checkedLimit(perTenant, 'perTenant') === 0) return [];
    // A clock that stepped back heals again rather than waiting out the interval (PacedRun).
    this.#healer.maybeStart(now);
    return dueDeliveries(this.#conn, now, limit, perEndpoint, perTenant, skip);
  }

  /**
   * Starts no more healing. @returns when the healing going, if any, has ended (before the
   * client closes), or after SETTLE_WAIT_MS: a pass stuck on an unreachable primary (30 s a
   * call) is cut short by the client's close rather than holding the shutdown past its deadline.
   */
  async settle(): Promise<void> {
    // Late is no error here: the close goes on, and cuts the pass short.
    // With the tenants' bounds of this process's last sends (noteDue's tenantsSoon), before the client closes: one wait.
    const settled = Promise.all([this.#healer.stop(), tenantsLowered(this.#conn)]);
    await within(settled, SETTLE_WAIT_MS, () => new Error('healing or tenants’ bounds still going')).catch(() => {});
    stopTenantWriter(this.#conn);
  }

  async claim(id: DeliveryId, now: number, leaseUntil: number): Promise<DeliveryJob | null> {
    return claimDelivery(this.#conn, id, now, leaseUntil);
  }

  async release(claim: ClaimRef, nextAttemptAt: number): Promise<void> {
    const bucket = this.#conn.bucketOf(claim.deliveryId);
    const q = P.current(claim.tenant, claim.deliveryId, claim.leaseToken);
    const { modifiedCount } = await bucket.deliveries.updateOne(q.filter, { $set: { leaseUntil: null, nextAttemptAt, dueAt: nextAttemptAt } }, q.options);
    if (modifiedCount > 0) await noteDue(this.#conn, [{ ...claim.tenant, endpointId: claim.endpointId, month: bucket.month, dueAt: nextAttemptAt }]);
  }

  async releaseAll(now: number): Promise<number> {
    // Once, at a sole dispatcher's start. Leases expire by themselves (dueAt is the lease's
    // end): this frees those ending within RELEASE_ALL_HORIZON_MS, walking only that stretch of
    // each month's due index (releaseLeasesOf); a longer one runs out.
    let released = 0;
    for (const month of await this.#conn.months(now)) released += await releaseLeasesOf(this.#conn, this.#conn.bucket(month), now);
    return released;
  }

  async complete(claim: ClaimRef, outcome: AttemptOutcome): Promise<CompletedAttempt> {
    return completeDelivery(this.#conn, claim, outcome);
  }

  async get(t: Tenant, id: DeliveryId): Promise<{ delivery: Delivery; endpointStatus: EndpointStatus | null } | null> {
    const q = P.byId(t, id);
    const doc = await this.#conn.bucketOf(id).deliveries.findOne(q.filter, q.options);
    if (doc === null) return null;
    const e = EP.byId(t, doc.endpointId);
    const endpoint = await this.#conn.endpoints.findOne(e.filter, { ...e.options, projection: { status: 1 } });
    return { delivery: toDelivery(doc), endpointStatus: endpoint?.status ?? null };
  }

  async retryNow(t: Tenant, id: DeliveryId, now: number): Promise<Delivery | null> {
    const bucket = this.#conn.bucketOf(id);
    const q = P.byId(t, id);
    const retried = await this.#conn.transaction(async (session) => {
      const found = await bucket.deliveries.findOne(q.filter, { ...q.options, session, projection: { endpointId: 1, attemptCount: 1, leaseUntil: 1 } });
      if (found === null) return null;
      // A send in flight counts: the re-send would follow it. (The reopening below writes this
      // document, so two retries racing at the cap conflict rather than both pass.)
      checkManualRetryCap(id, found.attemptCount + (found.leaseUntil !== null && found.leaseUntil > now ? 1 : 0));
      // Its endpoint in the same transaction, written (its hold ends; a delete racing this
      // conflicts with the write, so it cannot come between the check and the reopening).
      const e = EP.byId(t, found.endpointId);
      const endpoint = await this.#conn.endpoints.findOneAndUpdate(
        e.filter,
        { $set: { heldUntil: null }, $inc: { heldWrites: 1 } },
        { ...e.options, session, returnDocument: 'before', projection: { status: 1, heldUntil: 1 } },
      );
      if (endpoint === null) throw new ConflictError(`the endpoint of delivery ${id} was deleted`);
      if (endpoint.status !== 'active') throw new ConflictError(`the endpoint of delivery ${id} is ${endpoint.status}; resume it first`);
      // What its Retry-After hold put off goes now too.
      const putOff = await endHold(this.#conn, session, t, found.endpointId, now, endpoint.heldUntil ?? null, REQUEST_WALK_BATCH);
      // Leased at `now`: being sent; `resend` makes that send's completion keep it due (and
      // its dueAt stays the lease's end: it is not claimable twice at once).
      const doc = await bucket.deliveries.findOneAndUpdate(
        q.filter,
        // Not held: a re-send is only asked for while the endpoint is active (intake checks).
        // Out of turn in its ordered lane too (the user asked); it keeps its sequence.
        [
          {
            $set: {
              status: 'retrying',
              manual: true,
              nextAttemptAt: { $literal: now },
              resend: { $gt: ['$leaseUntil', now] },
              dueAt: { $cond: [{ $gt: ['$leaseUntil', now] }, '$leaseUntil', { $literal: now }] },
              held: false,
              laneWait: false,
            },
          },
        ],
        { ...q.options, session, returnDocument: 'after' },
      );
      if (doc === null) return null;
      // It takes its lane's head: the displaced head waits and comes next by sequence.
      if (doc.orderingKey) await takeLaneHead(this.#conn, session, doc.endpointId, doc.orderingKey, doc._id);
      await refreshMessageStatuses(this.#conn, session, t, [doc.messageId]);
      return { doc, putOff };
    });
    if (retried === null) return null;
    const { doc, putOff } = retried;
    await noteDue(this.#conn, [...putOff, { ...t, endpointId: doc.endpointId, month: bucket.month, dueAt: doc.dueAt ?? now }]);
    return toDelivery(doc);
  }

  async show(t: Tenant, id: DeliveryId): Promise<DeliveryView | null> {
    const bucket = this.#conn.bucketOf(id);
    const q = P.byId(t, id);
    const doc = await bucket.deliveries.findOne(q.filter, q.options);
    if (doc === null) return null;
    const [consumerId, newest] = await Promise.all([this.#consumerOf(t, doc.messageId), this.#newestAttempts(t, id, DELIVERY_ATTEMPTS_SHOWN + 1)]);
    return {
      delivery: toDelivery(doc),
      consumerId,
      attempts: newest.slice(0, DELIVERY_ATTEMPTS_SHOWN).reverse(),
      olderAttempts: newest.length > DELIVERY_ATTEMPTS_SHOWN,
    };
  }

  async attempts(t: Tenant, id: DeliveryId, page: { beforeId?: AttemptId; limit: number }): Promise<AttemptPage | null> {
    if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > MAX_PAGE_SIZE + 1) {
      throw new RangeError(`limit must be 1 to ${MAX_PAGE_SIZE + 1}, got ${page.limit}`);
    }
    const bucket = this.#conn.bucketOf(id);
    const q = P.byId(t, id);
    const doc = await bucket.deliveries.findOne(q.filter, { ...q.options, projection: { messageId: 1 } });
    if (doc === null) return null;
    const consumerId = await this.#consumerOf(t, doc.messageId);
    if (page.beforeId === undefined) return { consumerId, attempts: await this.#newestAttempts(t, id, page.limit) };
    const c = P.attemptOfDelivery(t, id, page.beforeId);
    const before = await bucket.attempts.findOne(c.filter, { ...c.options, projection: { at: 1 } });
    if (before === null) throw new InvalidError('cursor: not a cursor returned by this list');
    const r = P.attemptsOfDeliveryBefore(t, id, before.at);
    const attempts: Attempt[] = [];
    const cursor = bucket.attempts.find(r.filter, r.options).batchSize(page.limit + 2);
    try {
      for await (const a of cursor) {
        // The cursor's millisecond: only the attempts before it (by id) come after it.
        if (a.at === before.at && a._id >= page.beforeId) continue;
        attempts.push(toAttempt(a));
        if (attempts.length === page.limit) break;
      }
    } finally {
      await cursor.close();
    }
    return { consumerId, attempts };
  }

  /** The consumer of the tenant's message `messageId` (a delivery's). */
  async #consumerOf(t: Tenant, messageId: string): Promise<ConsumerId> {
    const m = MP.byId(t, messageId);
    const message = await this.#conn.bucketOf(messageId).messages.findOne(m.filter, { ...m.options, projection: { consumerId: 1 } });
    if (message === null) throw new Error(`a delivery lost its message ${messageId}`);
    return message.consumerId as ConsumerId;
  }

  /** The delivery's newest `limit` attempts, newest first. */
  async #newestAttempts(t: Tenant, id: DeliveryId, limit: number): Promise<Attempt[]> {
    return newestAttemptsOf(this.#conn, t, id, limit);
  }

  async releaseHeld(t: Tenant, endpointId: EndpointId, heldSince: number, now: number): Promise<number> {
    const done = await this.#conn.transaction(async (session) => {
      const q = EP.byId(t, endpointId);
      const endpoint = await this.#conn.endpoints.findOne(q.filter, { ...q.options, session, projection: { status: 1 } });
      if (endpoint?.status !== 'active') return { released: 0, due: [] };
      await recordWalk(this.#conn, session, t, endpointId, 'release', heldSince);
      return walkBatch(this.#conn, session, endpointId, now, REQUEST_WALK_BATCH);
    });
    await noteDue(this.#conn, done.due);
    return done.released;
  }

  async walkEndpoints(now: number, batch: number, endpoints: number): Promise<{ changed: number; pending: boolean; leftForLater?: unknown }> {
    checkedLimit(batch, 'batch');
    checkedLimit(endpoints, 'endpoints');
    // Walks asked to run again once their window has passed (a resume's or delete's) join first;
    // a recheck that fails is told with the round's result (the job logs it), and holds up no walk.
    let failedRecheck: unknown;
    if (now - this.#rechecksReadAt >= RECHECKS_READ_INTERVAL_MS || now < this.#rechecksReadAt) {
      this.#rechecksReadAt = now;
      // By the real clock, as they were asked for: what they wait out is the server's transactions.
      await startDueRechecks(this.#conn, Date.now()).catch((err: unknown) => (failedRecheck = err));
    }
    // In turn from where the last round stopped, so one long walk never starves the others; the
    // first round at random among the next WALK_SPREAD, so dispatchers started together spread out.
    const spread = this.#spreadWalks;
    const wanted = endpoints === 0 ? 0 : endpoints + (spread ? WALK_SPREAD - 1 : 0); // none asked: none read
    let read = await pendingWalksAfter(this.#conn, this.#walkCursor, wanted);
    if (read.length < wanted && this.#walkCursor !== '') {
      const wrapped = await pendingWalksAfter(this.#conn, '', wanted - read.length);
      read = [...read, ...wrapped.filter((id) => !read.includes(id))];
    }
    const ids = pickWalks(read, endpoints, spread ? Math.random() : undefined);
    if (ids.length > 0) this.#spreadWalks = false;
    let changed = 0;
    for (const id of ids) {
      // Past it before its batch: a batch that fails every time (the job ends its tick on the
      // error) must not come first in every round, holding up every walk after it.
      this.#walkCursor = id;
      const done = await this.#conn.transaction((session) => walkBatch(this.#conn, session, id, now, batch));
      await noteDue(this.#conn, done.due);
      changed += done.released + done.failed + done.held;
    }
    const pending = (await pendingWalksAfter(this.#conn, '', 1)).length > 0;
    if (!pending) {
      // None left: every dispatcher's cursor now sits at the last walk they all took, so the next
      // walks to come would be taken by all of them in the same order. The first round that finds
      // them spreads again.
      this.#walkCursor = '';
      this.#spreadWalks = true;
    }
    return failedRecheck === undefined ? { changed, pending } : { changed, pending, leftForLater: failedRecheck };
  }

  async laneStats(): Promise<LaneStats> {
    return laneStats(this.#conn);
  }

  async pruneLanes(before: number, batch: number): Promise<number> {
    if (checkedLimit(batch, 'batch') === 0) return 0;
    return pruneLanes(this.#conn, before, batch);
  }

  async backlog(_now: number): Promise<Backlog> {
    return sharedBacklog(this.#conn);
  }

  async countBacklog(_now: number): Promise<boolean> {
    // Counted as of the server's time at the take (backlog-read.ts), whatever this process's clock says.
    return countAndShare(this.#conn, this.#holder, this.#backlogDocs);
  }

  async retryingCount(t: Tenant, endpointId: EndpointId): Promise<number> {
    // On a request (the endpoint's page): capped as endpointStats.pending is, "at least" beyond.
    const q = P.retryingOfEndpoint(t, endpointId);
    return countAcrossMonths(await this.#conn.months(), ENDPOINT_COUNT_CAP, (month, limit) =>
      this.#conn.bucket(month).deliveries.countDocuments(q.filter, { ...q.options, limit }),
    );
  }

  async recentAttempts(t: Tenant, endpointId: EndpointId, limit: number): Promise<Attempt[]> {
    if (checkRecentAttemptsLimit(limit) === 0) return [];
    // An attempt is in its delivery's month, so an older month may hold the newest (a retry of
    // last month's delivery): each month's newest `limit`, merged (≤ limit × months read).
    const q = P.recentAttempts(t, endpointId);
    const months = await this.#conn.months();
    const perMonth = await Promise.all(months.map((month) => this.#conn.bucket(month).attempts.find(q.filter, q.options).limit(limit).toArray()));
    return perMonth.flat().sort(newestFirst).slice(0, limit).map(toAttempt);
  }
}

/** A delivery's newest `limit` attempts, newest first, from its month's collection (bounded). */
export async function newestAttemptsOf(conn: MongoConnection, t: Tenant, deliveryId: string, limit: number): Promise<Attempt[]> {
  const a = P.attemptsOfDelivery(t, deliveryId);
  return (await conn.bucketOf(deliveryId).attempts.find(a.filter, a.options).limit(limit).toArray()).map(toAttempt);
}

/**
 * Refuses a manual retry of a delivery with MAX_ATTEMPTS_FOR_MANUAL_RETRY attempts (`attempts`
 * counts a send in flight). @throws ConflictError
 */
function checkManualRetryCap(id: string, attempts: number): void {
  if (attempts < MAX_ATTEMPTS_FOR_MANUAL_RETRY) return;
  throw new ConflictError(
    `delivery ${id} has ${attempts} attempts, the most a manual retry can bring a delivery to (${MAX_ATTEMPTS_FOR_MANUAL_RETRY}); ` +
      'send the payload as a new message to deliver it again',
  );
}

/**
 * Frees the leases of one month's deliveries ending within RELEASE_ALL_HORIZON_MS, batch by
 * batch along its due index, at most RELEASE_ALL_BATCHES of RELEASE_ALL_BATCH entries: leases
 * and retries scheduled in the window alike, the update by ids freeing the leased among them.
 * Each batch starts at the millisecond the last one ended in and skips the ids it read there,
 * so a lease ending in the same millisecond as a batch's last is not passed over; a batch that
 * finds only those (a whole batch due in one millisecond, as a Retry-After hold leaves an
 * endpoint's) goes on past that millisecond, whose rest expire by themselves.
 * @returns the deliveries released.
 */
async function releaseLeasesOf(conn: MongoConnection, bucket: MonthBucket, now: number): Promise<number> {
  let released = 0;
  let from = now;
  let readAtFrom = new Set<string>();
  for (let batch = 0; batch < RELEASE_ALL_BATCHES; batch++) {
    const q = P.leased(now + RELEASE_ALL_HORIZON_MS, from);
    const entries = await bucket.deliveries
      .find(q.filter, { ...q.options, projection: { _id: 1, orgId: 1, env: 1, endpointId: 1, nextAttemptAt: 1, dueAt: 1, leaseUntil: 1 } })
      .limit(RELEASE_ALL_BATCH)
      .toArray();
    if (entries.length === 0) break;
    const fresh = entries.filter((d) => !(d.dueAt === from && readAtFrom.has(d._id)));
    if (fresh.length === 0) {
      from += 1;
      readAtFrom = new Set();
      continue;
    }
    const last = entries[entries.length - 1]!.dueAt ?? from;
    if (last !== from) readAtFrom = new Set();
    for (const d of entries) if (d.dueAt === last) readAtFrom.add(d._id);
    from = last;
    const leased = fresh.filter((d) => typeof d.leaseUntil === 'number' && d.leaseUntil > now);
    if (leased.length > 0) {
      const ids = P.byIds(
        leased.map((d) => d._id),
        now,
      );
      const { modifiedCount } = await bucket.deliveries.updateMany(
        ids.filter,
        [{ $set: { leaseUntil: null, dueAt: { $ifNull: ['$nextAttemptAt', now] } } }],
        ids.options,
      );
      released += modifiedCount;
      await noteDue(
        conn,
        leased.map((d) => ({ orgId: d.orgId, env: d.env, endpointId: d.endpointId, month: bucket.month, dueAt: d.nextAttemptAt ?? now })),
      );
    }
    if (entries.length < RELEASE_ALL_BATCH) break;
  }
  return released;
}

/** How long settle waits for a healing going before the store's close goes on without it. */
const SETTLE_WAIT_MS = 5_000;
/** How often a process reads the rechecks due (held-recheck.ts): their window is minutes; a read a batch would be 200 a tick. */
const RECHECKS_READ_INTERVAL_MS = 1_000;

/** Deliveries releaseAll reads a batch, and batches at most per month (the rest expire by themselves). */
const RELEASE_ALL_BATCH = 1_000;
const RELEASE_ALL_BATCHES = 100;

/** How far ahead releaseAll looks for leases to free (longer ones expire by themselves). */
export const RELEASE_ALL_HORIZON_MS = 10 * 60_000;
