import type {
  Attempt,
  AttemptId,
  ConsumerId,
  Delivery,
  DeliveryId,
  EndpointId,
  EndpointStatus,
  Environment,
  MessageId,
  OrgId,
  StoredSecret,
  Tenant,
} from '@wirehook/core';
import {
  ConflictError,
  DELIVERY_ATTEMPTS_SHOWN,
  ENDPOINT_WALK_BATCH,
  InvalidError,
  MAX_ATTEMPTS_FOR_MANUAL_RETRY,
  MAX_PAGE_SIZE,
  tenantKey,
} from '@wirehook/core/without-schemas';
import {
  BACKLOG_COUNT_CAP,
  checkClaimBatch,
  failedClaim,
  type AttemptOutcome,
  type ClaimResult,
  type AttemptPage,
  type ClaimRef,
  type CompletedAttempt,
  type DeliveryJob,
  type DeliveryRepo,
  type DeliveryView,
  type DueDelivery,
  type LaneStats,
} from '../ports/delivery-port.ts';
import type { SqliteConnection } from './connection.ts';
import { completeDelivery } from './delivery-complete.ts';
import { endHold } from './endpoint-put-off.ts';
import { JOB_ENDPOINT_COLUMNS, toAttempt, toDelivery, toJobEndpoint, toStoredSecret } from './mappers.ts';
import { OPEN, refreshMessageStatuses, SENDABLE } from './message-status.ts';
import { laneStats, pruneLanes, takeLaneHead } from './ordered-lanes.ts';
import { readRecentAttempts } from './recent-attempts.ts';
import { int, text, textOrNull, type Row } from './row.ts';
import { pendingWalksAfter, recordWalk, walkBatch } from './endpoint-walk.ts';

const TENANT_ID = 'org_id = ? AND env = ? AND id = ?';

// Open, not held, not waiting in its lane (only a lane's head is claimable), due, lease
// free or expired (parameters: now, now). `held = 0 AND lane_wait = 0` also lets the planner
// use the partial index deliveries_due, and seek (0, endpoint, 0, due) in deliveries_endpoint_queue.
const DUE_UNLEASED =
  "d.status IN ('pending', 'retrying') AND d.held = 0 AND d.lane_wait = 0 AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until <= ?)";

// Claimable: DUE_UNLEASED, and the endpoint of the same tenant still there and active. `due`
// and `claim` share it, so whatever `due` lists, `claim` can take.
const CLAIMABLE = `${DUE_UNLEASED}
  AND EXISTS (SELECT 1 FROM endpoints e
              WHERE e.id = d.endpoint_id AND e.org_id = d.org_id AND e.env = d.env AND e.status = 'active')`;

// The statements of the claim path, built once (SqliteConnection.statement says why).
/** Leases one delivery when it is claimable. */
const CLAIM_ONE = `UPDATE deliveries AS d SET lease_until = ?, lease_token = lease_token + 1, resend = 0
  WHERE d.id = ? AND ${CLAIMABLE} RETURNING *`;
/** The oldest due, by deliveries_due (named: DeliveryRepo.due says why). */
const OLDEST_DUE = `SELECT d.id, d.endpoint_id, d.org_id, d.env FROM deliveries d INDEXED BY deliveries_due
  WHERE ${CLAIMABLE} ORDER BY d.next_attempt_at LIMIT ?`;
const RELEASE_LEASE = `UPDATE deliveries SET lease_until = NULL, next_attempt_at = ? WHERE id = ? AND lease_token = ? AND ${OPEN}`;
const JOB_ENDPOINT = `SELECT ${JOB_ENDPOINT_COLUMNS} FROM endpoints WHERE id = ?`;

/**
 * The endpoints with open deliveries not held, by a skip scan of deliveries_endpoint_queue's
 * (0, endpoint) ranges: one seek per such endpoint, whatever its backlog; a paused endpoint's
 * held deliveries are in the (1, …) ranges, never read. Not `lane_wait = 0` here: the walk would
 * then read through every waiting delivery of an endpoint whose open deliveries all wait in a
 * lane (their heads held or ended). Each
 * endpoint's claimable ones are then one more seek, of (0, endpoint, 0, due).
 */
const OPEN_ENDPOINTS = `WITH RECURSIVE eps(ep) AS (
  SELECT (SELECT min(endpoint_id) FROM deliveries WHERE ${OPEN} AND held = 0)
  UNION ALL
  SELECT (SELECT min(endpoint_id) FROM deliveries WHERE ${OPEN} AND held = 0 AND endpoint_id > eps.ep)
  FROM eps WHERE eps.ep IS NOT NULL
)`;

/** How many endpoints have open deliveries neither held nor waiting in a lane (a seek each). */
const UNHELD_ENDPOINT_COUNT = `${OPEN_ENDPOINTS} SELECT count(*) AS n FROM eps
  WHERE ep IS NOT NULL AND EXISTS (SELECT 1 FROM deliveries WHERE endpoint_id = eps.ep AND ${SENDABLE})`;

// CLAIMABLE with the endpoint checked once per endpoint rather than once per delivery: at
// most `each` (3rd parameter) of every endpoint, at most `perTenant` (4th) of every tenant
// (its oldest of those), none of the tenants skipped (5th: a JSON array of `org/env`), the
// oldest due `limit` (6th) of what is left. The tenants' ranks sort
// the rows the walk already read (`each` an endpoint), no more.
const DUE_OF_EACH_ENDPOINT = `${OPEN_ENDPOINTS},
  ${rankedHeads('eps', 'eps.ep')}
  SELECT id, endpoint_id, org_id, env FROM ranked
  WHERE rank <= ? AND org_id || '/' || env NOT IN (SELECT value FROM json_each(?))
  ORDER BY next_attempt_at LIMIT ?`;

/**
 * The CTEs `heads` (each active endpoint of `from`, its id `ep`: its oldest due, at most a
 * parameter's number) and `ranked` (each tenant's rows ranked by due time): the due reads that
 * walk endpoints, not the due index.
 */
function rankedHeads(from: string, ep: string): string {
  return `heads AS (
    SELECT d.id, d.endpoint_id, d.org_id, d.env, d.next_attempt_at FROM ${from}
    JOIN endpoints e ON e.id = ${ep} AND e.status = 'active'
    JOIN deliveries d ON d.rowid IN (
      SELECT d.rowid FROM deliveries d
      WHERE d.endpoint_id = ${ep} AND d.org_id = e.org_id AND d.env = e.env AND ${DUE_UNLEASED}
      ORDER BY d.next_attempt_at LIMIT ?)
  ),
  ranked AS (SELECT *, row_number() OVER (PARTITION BY org_id, env ORDER BY next_attempt_at, id) AS rank FROM heads)`;
}

// The tenants' walk (DeliveryRepo.due): endpoints in (org, env, id) order by endpoints_tenant (a
// covering index), a page a statement, past a passed-over tenant in one seek; each page's other
// endpoints' oldest due by a seek of (0, endpoint, 0, due) in deliveries_endpoint_queue.
/** The next endpoints after an endpoint of a tenant. */
const ENDPOINTS_AFTER =
  'SELECT id, org_id, env FROM endpoints INDEXED BY endpoints_tenant WHERE (org_id, env, id) > (?, ?, ?) ORDER BY org_id, env, id LIMIT ?';
/** The next endpoints after the whole of a tenant. */
const ENDPOINTS_PAST_TENANT = 'SELECT id, org_id, env FROM endpoints INDEXED BY endpoints_tenant WHERE (org_id, env) > (?, ?) ORDER BY org_id, env, id LIMIT ?';
/**
 * The oldest due of each active endpoint of a JSON array of ids (1st), at most `each` (4th) of
 * each and `perTenant` (5th) of each tenant (its oldest), in the walk's order (tenant, endpoint),
 * the first `limit` (6th).
 */
const DUE_OF_ENDPOINTS = `WITH ${rankedHeads('json_each(?) j', 'j.value')}
  SELECT id, endpoint_id, org_id, env FROM ranked WHERE rank <= ? ORDER BY org_id, env, endpoint_id, next_attempt_at LIMIT ?`;
/** Endpoints the tenants' walk reads a statement. */
const ENDPOINTS_A_STEP = 256;
/** The least time between two tenants' walks (a sweep at every send's end would walk at each). */
const TENANTS_WALK_EVERY_MS = 250;
/** Tenants the walk keeps a place inside (#tenantResume). */
const RESUME_CAP = 4_096;

/** Pages of the oldest due a page cut by a tenant's share alone reads for the others (DeliveryRepo.due). */
const TENANT_REACH_PAGES = 8;
/** How long a tenant found alone in the due index is taken to be alone: another tenant's due delivery waits at most this long more. */
const LONE_TENANT_MS = 1_000;

/** Lease writes (claim, release): see SqliteConnection.batched. */
const NOT_DURABLE = { durable: false };

/** Deliveries and attempts in SQLite: the dispatcher's queue and the API's history. */
export class SqliteDeliveryRepo implements DeliveryRepo {
  readonly #conn: SqliteConnection;
  /** The endpoint the last walk round ended at. */
  #walkCursor = '';
  /** The tenant the last wider read of due() found alone (a page of its own, and nothing else in 8), and when. */
  #loneTenant: { key: string; at: number } | null = null;
  /** Where the tenants' walk goes on: a tenant, and its last endpoint read (null: past the whole tenant). */
  #tenantsCursor: WalkPlace = { orgId: '', env: '', after: null };
  /** When the last tenants' walk ran. */
  #walkedAt: number | null = null;
  /**
   * Where the walk goes on inside a tenant it left part-way, its share listed (tenant key → the
   * endpoint after which): entered again at its start, it goes on there, so a tenant's first
   * endpoints' new work does not keep its others unread (helper 259). At most RESUME_CAP tenants.
   */
  #tenantResume = new Map<string, string>();

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  async due(now: number, limit: number, perEndpoint: number, perTenant = limit, skip: readonly Tenant[] = []): Promise<DueDelivery[]> {
    checkCount(limit, 'limit');
    checkCount(perEndpoint, 'perEndpoint');
    checkCount(perTenant, 'perTenant');
    if (limit === 0 || perEndpoint === 0 || perTenant === 0) return [];
    const skipped = new Set(skip.map(tenantKey));
    const capShares = (rows: Row[], endpointCap: number, tenantCap: number) => capRows(rows, endpointCap, tenantCap, skipped);
    // Usually no endpoint and no tenant has a backlog: the oldest due, capped, is the answer.
    const oldest = this.#conn
      // Named: `held = 0` is also deliveries_endpoint_queue's first column, and SQLite would read
      // all of that index's (0, …) range and sort it rather than the first `limit` by due time.
      .statement(OLDEST_DUE)
      .all(now, now, limit);
    const capped = capShares(oldest, perEndpoint, perTenant);
    if (oldest.length < limit || capped.length === oldest.length) return capped;
    // Whether an endpoint's cap cut rows (a tenant's share and `skip` aside).
    // (No tenant cap here: the wider read holds more than `limit` of one tenant, and that is not an endpoint's cut.)
    const endpointCut = (rows: Row[], cap: number) => capRows(rows, cap, rows.length, NONE).length < rows.length;
    if (!endpointCut(oldest, perEndpoint)) {
      // Only a tenant's share cut the page: the oldest TENANT_REACH_PAGES pages, capped — a read
      // of the due index, not the walk below, whose seek per endpoint a lone tenant broadcasting
      // to 10⁵ endpoints would pay at every sweep (0.6 s); what a tenant's older and longer backlog
      // hides behind those pages, the tenants' walk finds (docs/semantics.md). A page of one
      // tenant whose last wider read found no other is answered as it is for LONE_TENANT_MS
      // (8 pages at every sweep of a lone tenant's backlog: 25 ms a sweep at 10⁵ due).
      const only = soleTenant(oldest);
      const lone = this.#loneTenant;
      if (only !== null && lone?.key === only && now >= lone.at && now < lone.at + LONE_TENANT_MS) return capped;
      const wider = this.#conn.statement(OLDEST_DUE).all(now, now, limit * TENANT_REACH_PAGES);
      const found = capShares(wider, perEndpoint, perTenant);
      this.#loneTenant = only !== null && soleTenant(wider) === only ? { key: only, at: now } : null;
      if (found.length >= limit || wider.length < limit * TENANT_REACH_PAGES) return found.slice(0, limit);
      if (!endpointCut(wider, perEndpoint)) {
        // Short though the read was full, cut by tenants' shares alone: a tenant whose backlog is
        // older and longer than those pages (a broadcast to thousands of endpoints) would hide
        // every tenant behind it. The others by the tenants' walk, the full ones passed over.
        const others = this.#tenantsWalk(now, limit - found.length, perEndpoint, perTenant, fullTenants(found, perTenant, skipped), limit);
        // Alone only if a walk ran and found no other (one put off by TENANTS_WALK_EVERY_MS says nothing).
        if (others === null || others.length > 0) this.#loneTenant = null;
        // Once each (the walk may come round to a tenant of the wider read, or to one twice).
        const seen = new Set<string>();
        const rows = [...wider, ...(others ?? [])].filter((r) => !seen.has(text(r, 'id')) && seen.add(text(r, 'id')));
        return capShares(rows, perEndpoint, perTenant).slice(0, limit);
      }
      // Short, though the read was full, because an endpoint's backlog filled it: the walk below,
      // else that one endpoint's backlog would hide every tenant behind it.
    }
    // An endpoint's backlog filled the page: other endpoints' due deliveries may lie behind it.
    // Take the oldest few of each endpoint with open deliveries (a skip scan of
    // deliveries_endpoint_queue: a seek or two per such endpoint, not a row per backlogged
    // delivery), at most `perTenant` of each tenant.
    // "Few" is the page spread over those endpoints; when that leaves the page short while an
    // endpoint had more, a second pass takes up to `perEndpoint` of each (at most two passes:
    // an endpoint counted for a retry due later must not make it loop). Measured on a
    // 60,000-delivery backlog over 159 endpoints, taking `perEndpoint` (80) of each at once
    // read 12,700 rows to return 2,256, and the drain spent half the store thread here.
    const endpoints = int(this.#conn.statement(UNHELD_ENDPOINT_COUNT).get()!, 'n');
    const each = Math.min(perEndpoint, Math.ceil(limit / Math.max(1, endpoints)));
    const statement = this.#conn.statement(DUE_OF_EACH_ENDPOINT);
    const skippedJson = JSON.stringify([...skipped]);
    const spread = statement.all(now, now, each, perTenant, skippedJson, limit);
    // Short, and an endpoint filled its share (capping below it drops rows): it may have more.
    // (Rows the tenants' shares cut would not come back with a larger `each`.)
    const filledShare = endpointCut(spread, each - 1);
    if (spread.length >= limit || each >= perEndpoint || !filledShare) return spread.map(toDue);
    return statement.all(now, now, perEndpoint, perTenant, skippedJson, limit).map(toDue);
  }

  /**
   * Due rows of the tenants not in `passOver`, at most `room`: endpoints in (org, env, id) order
   * from where the last walk stopped, round and round (each tenant's turn comes whatever the
   * order of the ids), each one's oldest `perEndpoint`, `perTenant` of a tenant a page; at most
   * TENANT_REACH_PAGES × `limit` endpoints read for their deliveries and statements run, a
   * passed-over tenant's past a page of its index entries skipped in one seek (its 10⁵ endpoints
   * unread), and at most one walk every TENANTS_WALK_EVERY_MS (a clock stepping back walks at
   * once). A room filled part-way through a page resumes at its last endpoint listed (resumeAt); a
   * tenant that had its share listed is left, and gone on with where it was left when the walk
   * next comes to it (#tenantResume). @returns null when no walk ran.
   */
  #tenantsWalk(now: number, room: number, perEndpoint: number, perTenant: number, passOver: ReadonlySet<string>, limit: number): Row[] | null {
    const rows: Row[] = [];
    const walked = this.#walkedAt;
    if (room <= 0 || (walked !== null && now >= walked && now < walked + TENANTS_WALK_EVERY_MS)) return null;
    this.#walkedAt = now;
    const c = this.#tenantsCursor;
    /** Rows listed this walk, by tenant, and their ids. */
    const listedOf = new Map<string, number>();
    const listedIds = new Set<string>();
    let budget = limit * TENANT_REACH_PAGES;
    let restarted = false;
    while (budget > 0 && rows.length < room) {
      const n = Math.min(ENDPOINTS_A_STEP, budget);
      let page =
        c.after === null
          ? this.#conn.statement(ENDPOINTS_PAST_TENANT).all(c.orgId, c.env, n)
          : this.#conn.statement(ENDPOINTS_AFTER).all(c.orgId, c.env, c.after, n);
      // The budget counts the endpoints read for their deliveries, and each statement (a passed-over
      // tenant costs at most a page of index entries before the cursor jumps past it).
      budget--;
      if (page.length === 0) {
        // Past the last endpoint: from the first, once a walk.
        if (restarted) break;
        restarted = true;
        Object.assign(c, { orgId: '', env: '', after: null });
        continue;
      }
      // A tenant entered at its start that a walk left part-way: the page ends before it, and the next statement goes on
      // at its place.
      const entered = page.findIndex((e, i) => {
        const k = rowTenant(e);
        const from = i > 0 ? rowTenant(page[i - 1]!) : c.after === null ? null : tenantKey(c);
        return k !== from && !passOver.has(k) && this.#tenantResume.has(k);
      });
      let resume: WalkPlace | null = null;
      if (entered >= 0) {
        const e = page[entered]!;
        const k = rowTenant(e);
        // Its place is forgotten only once the cursor moves there (a room filled before it keeps it for the next walk).
        resume = { orgId: text(e, 'org_id'), env: text(e, 'env'), after: this.#tenantResume.get(k)! };
        page = page.slice(0, entered);
      }
      const last = page.at(-1);
      if (last !== undefined) Object.assign(c, { orgId: text(last, 'org_id'), env: text(last, 'env'), after: text(last, 'id') });
      // A tenant passed over at the page's end: the next page begins past all of it.
      if (passOver.has(tenantKey(c))) c.after = null;
      const kept = page.filter((e) => !passOver.has(rowTenant(e)));
      if (kept.length > 0) {
        budget -= kept.length;
        const want = room - rows.length;
        const ids = kept.map((e) => text(e, 'id'));
        const found = this.#conn.statement(DUE_OF_ENDPOINTS).all(JSON.stringify(ids), now, now, perEndpoint, perTenant, want);
        // Each row once (a walk that came round reads its first pages again).
        const fresh = found.filter((r) => !listedIds.has(text(r, 'id')));
        for (const r of fresh) {
          listedIds.add(text(r, 'id'));
          listedOf.set(rowTenant(r), (listedOf.get(rowTenant(r)) ?? 0) + 1);
        }
        rows.push(...fresh);
        if (found.length >= want) {
          // The room filled part-way through the page: on at the last endpoint listed (the rows the room cut, there and
          // after it, read again, not passed by); past its tenant, to be gone on with there, when it had its share.
          const at = resumeAt(found, kept);
          if ((listedOf.get(tenantKey(at)) ?? 0) >= perTenant) this.#leaveTenant(c, at, hasMore(page, at, n));
          else Object.assign(c, at);
          break;
        }
      }
      // The page ended inside a tenant with its share listed this walk: past all of it, to be gone on with there.
      if (resume === null && c.after !== null && (listedOf.get(tenantKey(c)) ?? 0) >= perTenant) this.#leaveTenant(c, { ...c }, hasMore(page, c, n));
      if (resume !== null) {
        this.#tenantResume.delete(tenantKey(resume));
        Object.assign(c, resume);
      }
    }
    return rows;
  }

  /**
   * Moves the walk past tenant `at`, to go on at `at.after` when it next enters it (#tenantResume)
   * — unless `more` says it has no endpoint after that one (then it starts over at its first).
   */
  #leaveTenant(c: WalkPlace, at: WalkPlace, more: boolean): void {
    const k = tenantKey(at);
    this.#tenantResume.delete(k);
    if (at.after !== null && more) this.#tenantResume.set(k, at.after);
    // The oldest first out: a tenant forgotten is walked from its start, as before it was left.
    if (this.#tenantResume.size > RESUME_CAP) this.#tenantResume.delete(this.#tenantResume.keys().next().value!);
    Object.assign(c, { orgId: at.orgId, env: at.env, after: null });
  }

  async claim(id: DeliveryId, now: number, leaseUntil: number): Promise<DeliveryJob | null> {
    // Claims of the moment share one group commit. A lease need not wait for the disk: lost
    // in a crash, the delivery is only claimed (and sent) again — at least once.
    return this.#conn.batched(() => this.#claimOne(id, now, leaseUntil, newJobReads()), NOT_DURABLE);
  }

  async claimMany(ids: readonly DeliveryId[], now: number, leaseUntil: number): Promise<ClaimResult[]> {
    checkClaimBatch(ids);
    return this.#conn.batched(() => {
      const reads = newJobReads();
      const seen = new Set<DeliveryId>();
      return ids.map((id): ClaimResult => {
        if (seen.has(id)) return null;
        seen.add(id);
        // Each in a savepoint of its own: a job that cannot be built (a row that does not read
        // back) gives its lease back and fails alone, not the page it came with — else the
        // sweep would list it first again, with the same page, and nothing would be claimed.
        const { db } = this.#conn;
        db.exec('SAVEPOINT claim_one');
        try {
          const job = this.#claimOne(id, now, leaseUntil, reads);
          db.exec('RELEASE claim_one');
          return job;
        } catch (err) {
          // SQLite ended the whole transaction (a full disk, an I/O error): the batch fails, with this error.
          if (!db.isTransaction) throw err;
          db.exec('ROLLBACK TO claim_one');
          db.exec('RELEASE claim_one');
          return failedClaim(err);
        }
      });
    }, NOT_DURABLE);
  }

  /** Leases `id` when it is claimable: its job (with what `reads` already read), or null. */
  #claimOne(id: DeliveryId, now: number, leaseUntil: number, reads: JobReads): DeliveryJob | null {
    // The WHERE decides: of two processes claiming one delivery, the second finds the lease
    // taken once the first commits.
    const row = this.#conn.statement(CLAIM_ONE).get(leaseUntil, id, now, now);
    return row === undefined ? null : deliveryJob(this.#conn, row, now, reads);
  }

  async release(claim: ClaimRef, nextAttemptAt: number): Promise<void> {
    await this.#conn.batched(() => this.#conn.statement(RELEASE_LEASE).run(nextAttemptAt, claim.deliveryId, claim.leaseToken), NOT_DURABLE);
  }

  async releaseAll(_now: number): Promise<number> {
    const { changes } = this.#conn.statement('UPDATE deliveries SET lease_until = NULL WHERE lease_until IS NOT NULL').run();
    return Number(changes);
  }

  async complete(claim: ClaimRef, outcome: AttemptOutcome): Promise<CompletedAttempt> {
    return completeDelivery(this.#conn, claim, outcome);
  }

  async get(t: Tenant, id: DeliveryId): Promise<{ delivery: Delivery; endpointStatus: EndpointStatus | null } | null> {
    const row = this.#conn
      .statement(
        `SELECT d.*, e.status AS endpoint_status FROM deliveries d
         LEFT JOIN endpoints e ON e.id = d.endpoint_id AND e.org_id = d.org_id AND e.env = d.env
         WHERE d.org_id = ? AND d.env = ? AND d.id = ?`,
      )
      .get(t.orgId, t.env, id);
    if (row === undefined) return null;
    return { delivery: toDelivery(row), endpointStatus: textOrNull(row, 'endpoint_status') as EndpointStatus | null };
  }

  async retryNow(t: Tenant, id: DeliveryId, now: number): Promise<Delivery | null> {
    return this.#conn.immediate(() => {
      // The endpoint is checked in the same transaction as the reopening: a delete between a
      // check and the update left a delivery retrying, held, for an endpoint that is gone.
      const found = this.#conn
        .statement(
          `SELECT d.endpoint_id, d.attempt_count, (d.lease_until IS NOT NULL AND d.lease_until > ?) AS in_flight, e.status AS endpoint_status FROM deliveries d
           LEFT JOIN endpoints e ON e.id = d.endpoint_id AND e.org_id = d.org_id AND e.env = d.env
           WHERE d.org_id = ? AND d.env = ? AND d.id = ?`,
        )
        .get(now, t.orgId, t.env, id);
      if (found === undefined) return null;
      checkManualRetryCap(id, int(found, 'attempt_count') + int(found, 'in_flight'));
      const endpointStatus = textOrNull(found, 'endpoint_status');
      if (endpointStatus === null) throw new ConflictError(`the endpoint of delivery ${id} was deleted`);
      if (endpointStatus !== 'active') throw new ConflictError(`the endpoint of delivery ${id} is ${endpointStatus}; resume it first`);
      // Asked to send now, it goes now: the endpoint's Retry-After hold ends.
      endHold(this.#conn, text(found, 'endpoint_id') as EndpointId, now);
      const row = this.#conn
        .statement(
          `UPDATE deliveries SET status = 'retrying', manual = 1, next_attempt_at = ?, lane_wait = 0,
             resend = (lease_until IS NOT NULL AND lease_until > ?),
             held = NOT EXISTS (SELECT 1 FROM endpoints e WHERE e.id = deliveries.endpoint_id AND e.status = 'active')
           WHERE ${TENANT_ID} RETURNING *`,
        )
        .get(now, now, t.orgId, t.env, id);
      if (row === undefined) return null;
      const delivery = toDelivery(row);
      const key = textOrNull(row, 'ordering_key');
      if (key !== null) takeLaneHead(this.#conn, delivery.endpointId, key, delivery.id);
      refreshMessageStatuses(this.#conn, [delivery.messageId]);
      return delivery;
    });
  }

  async show(t: Tenant, id: DeliveryId): Promise<DeliveryView | null> {
    return this.#conn.snapshot(() => {
      const row = this.#conn
        .statement(
          `SELECT d.*, m.consumer_id FROM deliveries d JOIN messages m ON m.id = d.message_id
           WHERE d.org_id = ? AND d.env = ? AND d.id = ?`,
        )
        .get(t.orgId, t.env, id);
      if (row === undefined) return null;
      const newest = newestAttempts(this.#conn, id, DELIVERY_ATTEMPTS_SHOWN + 1);
      return {
        delivery: toDelivery(row),
        consumerId: text(row, 'consumer_id') as ConsumerId,
        attempts: newest.slice(0, DELIVERY_ATTEMPTS_SHOWN).reverse(),
        olderAttempts: newest.length > DELIVERY_ATTEMPTS_SHOWN,
      };
    });
  }

  async attempts(t: Tenant, id: DeliveryId, page: { beforeId?: AttemptId; limit: number }): Promise<AttemptPage | null> {
    checkAttemptLimit(page.limit);
    return this.#conn.snapshot(() => {
      const row = this.#conn
        .statement(
          `SELECT m.consumer_id FROM deliveries d JOIN messages m ON m.id = d.message_id
           WHERE d.org_id = ? AND d.env = ? AND d.id = ?`,
        )
        .get(t.orgId, t.env, id);
      if (row === undefined) return null;
      const consumerId = text(row, 'consumer_id') as ConsumerId;
      if (page.beforeId === undefined) return { consumerId, attempts: newestAttempts(this.#conn, id, page.limit) };
      const before = this.#conn.statement('SELECT at FROM attempts WHERE id = ? AND delivery_id = ?').get(page.beforeId, id);
      if (before === undefined) throw new InvalidError('cursor: not a cursor returned by this list');
      const at = int(before, 'at');
      // A range of attempts_delivery (delivery_id, at) up to the cursor's time; ties on it by id.
      const attempts = this.#conn
        .statement(
          `SELECT * FROM attempts WHERE delivery_id = ? AND at <= ? AND (at < ? OR id < ?)
           ORDER BY at DESC, id DESC LIMIT ?`,
        )
        .all(id, at, at, page.beforeId, page.limit)
        .map(toAttempt);
      return { consumerId, attempts };
    });
  }

  async releaseHeld(t: Tenant, endpointId: EndpointId, heldSince: number, now: number): Promise<number> {
    return this.#conn.immediate(() => {
      const endpoint = this.#conn.statement(`SELECT status FROM endpoints WHERE ${TENANT_ID}`).get(t.orgId, t.env, endpointId);
      if (endpoint === undefined || text(endpoint, 'status') !== 'active') return 0;
      recordWalk(this.#conn, t, endpointId, 'release', heldSince);
      return walkBatch(this.#conn, endpointId, now, ENDPOINT_WALK_BATCH).released;
    });
  }

  async walkEndpoints(now: number, batch: number, endpoints: number): Promise<{ changed: number; pending: boolean }> {
    checkCount(batch, 'batch');
    checkCount(endpoints, 'endpoints');
    // In turn from where the last round stopped, so one long walk never starves the others.
    let ids = pendingWalksAfter(this.#conn, this.#walkCursor, endpoints);
    if (ids.length < endpoints && this.#walkCursor !== '')
      ids = [...ids, ...pendingWalksAfter(this.#conn, '', endpoints - ids.length).filter((id) => !ids.includes(id))];
    let changed = 0;
    for (const id of ids) {
      const done = this.#conn.immediate(() => walkBatch(this.#conn, id, now, batch));
      changed += done.released + done.failed + done.held;
      this.#walkCursor = id;
    }
    return { changed, pending: pendingWalksAfter(this.#conn, '', 1).length > 0 };
  }

  async retryingCount(t: Tenant, endpointId: EndpointId): Promise<number> {
    // Kept by triggers on the deliveries (schema 25): one row, however many are retrying.
    const row = this.#conn
      .statement('SELECT retrying AS n FROM endpoint_counts WHERE endpoint_id = ? AND org_id = ? AND env = ?')
      .get(endpointId, t.orgId, t.env);
    return row === undefined ? 0 : int(row, 'n');
  }

  async laneStats(): Promise<LaneStats> {
    return laneStats(this.#conn);
  }

  async pruneLanes(before: number, batch: number): Promise<number> {
    if (!Number.isInteger(batch) || batch < 0) throw new RangeError(`batch must be a non-negative integer, got ${batch}`);
    return this.#conn.immediate(() => pruneLanes(this.#conn, before, batch));
  }

  async backlog(now: number): Promise<{ due: number; oldestDueAt: number | null; retrying: number }> {
    // Bounded on every scrape, as MongoDB's: at most BACKLOG_COUNT_CAP entries of deliveries_due
    // counted (named, as in `due`), and the oldest one seek. (Retrying: a sum of the endpoints' counted rows.)
    const dueNow = `FROM deliveries INDEXED BY deliveries_due WHERE ${SENDABLE} AND next_attempt_at <= ?1`;
    const due = this.#conn
      .statement(
        `SELECT (SELECT count(*) FROM (SELECT 1 ${dueNow} LIMIT ?2)) AS n, (SELECT next_attempt_at ${dueNow} ORDER BY next_attempt_at LIMIT 1) AS oldest`,
      )
      .get(now, BACKLOG_COUNT_CAP);
    const retrying = this.#conn.statement('SELECT coalesce(sum(retrying), 0) AS n FROM endpoint_counts').get();
    return {
      due: due === undefined ? 0 : int(due, 'n'),
      oldestDueAt: due === undefined ? null : (due['oldest'] as number | null),
      retrying: retrying === undefined ? 0 : int(retrying, 'n'),
    };
  }

  async recentAttempts(t: Tenant, endpointId: EndpointId, limit: number): Promise<Attempt[]> {
    return readRecentAttempts(this.#conn, t, endpointId, limit).map(toAttempt);
  }
}

/**
 * What the jobs built in one store call share: each message (its payload) and each endpoint
 * with its secrets, read once — and, being one object, copied once across the store's thread.
 */
export interface JobReads {
  messages: Map<string, DeliveryJob['message']>;
  endpoints: Map<string, Pick<DeliveryJob, 'endpoint' | 'secrets'>>;
}

export function newJobReads(): JobReads {
  return { messages: new Map(), endpoints: new Map() };
}

/**
 * The job of a delivery row just leased (a claim's `RETURNING *`): its message, endpoint and
 * secrets valid at `now`, from `reads` when an earlier job of the call read them. `endpointRow`
 * spares the endpoint's read when the caller has it (a create claiming the deliveries it wrote).
 */
export function deliveryJob(conn: SqliteConnection, row: Row, now: number, reads: JobReads, endpointRow?: Row): DeliveryJob {
  const delivery = toDelivery(row);
  let message = reads.messages.get(delivery.messageId);
  if (message === undefined) {
    message = messageOfJob(conn, delivery.messageId);
    if (message !== undefined) reads.messages.set(delivery.messageId, message);
  }
  let endpoint = reads.endpoints.get(delivery.endpointId);
  if (endpoint === undefined) {
    const found = endpointRow ?? conn.statement(JOB_ENDPOINT).get(delivery.endpointId);
    if (found !== undefined)
      reads.endpoints.set(delivery.endpointId, (endpoint = { endpoint: toJobEndpoint(found), secrets: secretsAt(conn, delivery.endpointId, now) }));
  }
  if (message === undefined || endpoint === undefined) throw new Error(`delivery ${delivery.id} lost its message or endpoint`);
  return {
    tenant: { orgId: text(row, 'org_id') as OrgId, env: text(row, 'env') as Environment },
    delivery,
    message,
    endpoint: endpoint.endpoint,
    secrets: endpoint.secrets,
    leaseToken: int(row, 'lease_token'),
  };
}

/** The endpoint's secrets valid at `now`, newest first. */
function secretsAt(conn: SqliteConnection, endpointId: string, now: number): StoredSecret[] {
  // Newest first (created_at, then id, descending), sorted here: a sort in SQLite is a temporary
  // b-tree for the one or two rows of each claim.
  return conn
    .statement('SELECT * FROM endpoint_secrets WHERE endpoint_id = ? AND (expires_at IS NULL OR expires_at > ?)')
    .all(endpointId, now)
    .sort((a, b) => int(b, 'created_at') - int(a, 'created_at') || int(b, 'id') - int(a, 'id'))
    .map(toStoredSecret);
}

function messageOfJob(conn: SqliteConnection, id: MessageId): DeliveryJob['message'] | undefined {
  const row = conn.statement('SELECT id, event_type, payload, created_at FROM messages WHERE id = ?').get(id);
  if (row === undefined) return undefined;
  return { id: text(row, 'id') as MessageId, eventType: text(row, 'event_type'), payload: text(row, 'payload'), createdAt: int(row, 'created_at') };
}

/**
 * The delivery's newest `limit` attempts, newest first: a range of attempts_delivery from its
 * end, however many it has.
 */
export function newestAttempts(conn: SqliteConnection, deliveryId: string, limit: number): Attempt[] {
  return conn.statement('SELECT * FROM attempts WHERE delivery_id = ? ORDER BY at DESC, id DESC LIMIT ?').all(deliveryId, limit).map(toAttempt);
}

/**
 * Refuses a manual retry of a delivery with MAX_ATTEMPTS_FOR_MANUAL_RETRY attempts (`attempts`
 * counts a send in flight: the retry would follow it). @throws ConflictError
 */
export function checkManualRetryCap(id: string, attempts: number): void {
  if (attempts < MAX_ATTEMPTS_FOR_MANUAL_RETRY) return;
  throw new ConflictError(
    `delivery ${id} has ${attempts} attempts, the most a manual retry can bring a delivery to (${MAX_ATTEMPTS_FOR_MANUAL_RETRY}); ` +
      'send the payload as a new message to deliver it again',
  );
}

/** @throws RangeError unless 1 ≤ limit ≤ MAX_PAGE_SIZE + 1 (a page and the look-ahead that tells whether there is another). */
export function checkAttemptLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE + 1) throw new RangeError(`limit must be 1 to ${MAX_PAGE_SIZE + 1}, got ${limit}`);
}

function checkCount(value: number, name: string): void {
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
}

function toDue(row: Row): DueDelivery {
  return {
    id: text(row, 'id') as DeliveryId,
    endpointId: text(row, 'endpoint_id') as EndpointId,
    tenant: { orgId: text(row, 'org_id') as OrgId, env: text(row, 'env') as Environment },
  };
}

/** Where the tenants' walk is: a tenant, and the endpoint of it after which it goes on (null: past the whole tenant). */
interface WalkPlace {
  orgId: string;
  env: string;
  after: string | null;
}

/** A row's tenant key (`org/env`). */
function rowTenant(row: Row): string {
  return tenantKey({ orgId: text(row, 'org_id'), env: text(row, 'env') });
}

/** The tenant (`org/env`) of every row, or null when they are of more than one (or none). */
function soleTenant(rows: Row[]): string | null {
  let key: string | null = null;
  for (const row of rows) {
    const k = rowTenant(row);
    if (key === null) key = k;
    else if (k !== key) return null;
  }
  return key;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * Where the tenants' walk goes on when the room filled part-way through a page (`found`, in the
 * walk's order, of the page's endpoints `kept`): at the last endpoint listed (the rows the room
 * cut, there and after it, are read again, not passed by) — past it when it is the page's first:
 * a walk always moves on (one endpoint's backlog would hold it there).
 */
function resumeAt(found: readonly Row[], kept: readonly Row[]): { orgId: string; env: string; after: string } {
  const last = found[found.length - 1]!;
  const i = kept.findIndex((e) => text(e, 'id') === text(last, 'endpoint_id'));
  const at = i > 0 ? kept[i - 1]! : last;
  return { orgId: text(at, 'org_id'), env: text(at, 'env'), after: text(at, i > 0 ? 'id' : 'endpoint_id') };
}

/**
 * Whether the tenant of `at` may have endpoints after `at.after`: the page's next row is of it,
 * or `at` is the page's last and the page was full (`n` rows: the table goes on).
 */
function hasMore(page: readonly Row[], at: WalkPlace, n: number): boolean {
  const i = page.findIndex((e) => text(e, 'id') === at.after);
  if (i < 0 || i === page.length - 1) return page.length >= n;
  const next = page[i + 1]!;
  return text(next, 'org_id') === at.orgId && text(next, 'env') === at.env;
}

/** The tenants with `perTenant` of `due` (their share of the call), and those `skipped`. */
function fullTenants(due: readonly DueDelivery[], perTenant: number, skipped: ReadonlySet<string>): Set<string> {
  const counts = new Map<string, number>();
  for (const d of due) counts.set(tenantKey(d.tenant), (counts.get(tenantKey(d.tenant)) ?? 0) + 1);
  return new Set([...skipped, ...[...counts].filter(([, n]) => n >= perTenant).map(([key]) => key)]);
}

/** `rows` (in their order), at most `perEndpoint` of each endpoint and `perTenant` of each tenant, none of a tenant `skipped`. */
function capRows(rows: Row[], perEndpoint: number, perTenant: number, skipped: ReadonlySet<string>): DueDelivery[] {
  const ofEndpoint = new Map<string, number>();
  const ofTenant = new Map<string, number>();
  const due: DueDelivery[] = [];
  for (const row of rows) {
    const d = toDue(row);
    const tenant = tenantKey(d.tenant);
    const n = ofEndpoint.get(d.endpointId) ?? 0;
    const m = ofTenant.get(tenant) ?? 0;
    if (n >= perEndpoint || m >= perTenant || skipped.has(tenant)) continue;
    ofEndpoint.set(d.endpointId, n + 1);
    ofTenant.set(tenant, m + 1);
    due.push(d);
  }
  return due;
}
