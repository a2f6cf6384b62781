import type {
  Attempt,
  AttemptId,
  ConsumerId,
  Delivery,
  DeliveryId,
  DeliveryStatus,
  Endpoint,
  EndpointId,
  MessageId,
  StoredSecret,
  Tenant,
  TransformationRef,
} from '@wirehook/core';
import { RECENT_ATTEMPTS } from '@wirehook/core/without-schemas';

// The delivery side of the Store port: the dispatcher claims, sends and completes
// deliveries; pauses, resumes and deletes walk an endpoint's open ones.

/** Everything the dispatcher needs to send one claimed delivery. */
/**
 * The endpoint as a claimed job carries it: its transformation without the code (up to 32 KB a
 * claim, at thousands of claims a second), only whether it runs and its hash; a dispatcher reads
 * the code once per change (EndpointRepo.transformation).
 */
export type JobEndpoint = Omit<Endpoint, 'transformation'> & { transformation?: TransformationRef | null };

export interface DeliveryJob {
  tenant: Tenant;
  delivery: Delivery;
  message: { id: MessageId; eventType: string; payload: string; createdAt: number };
  endpoint: JobEndpoint;
  /** Secrets valid at claim time, newest first. */
  secrets: StoredSecret[];
  /**
   * The fence of this claim: every claim of the delivery gets a larger one. `complete` and
   * `release` act only while it is still the delivery's current token, so a send that
   * outlived its lease (and was claimed again elsewhere) cannot overwrite newer state.
   */
  leaseToken: number;
}

/** A claim of claimMany that failed on its own (the others stand): why, as the store's error said. */
export interface FailedClaim {
  failed: string;
}

/** What claimMany answers for one id: its job, null when it is not claimable now, or its failure. */
export type ClaimResult = DeliveryJob | FailedClaim | null;

/**
 * Most ids one `claimMany` takes: a dispatcher's wake-ups of one turn of its event loop, in
 * one store call of bounded size (64 claims hold SQLite's writer ≈ 1 ms in the store bench; as
 * many single claims made in one turn had gone in one post and one group commit too).
 */
export const MAX_CLAIM_BATCH = 64;

/** The answer for a claim that failed on its own, from what it threw. */
export function failedClaim(err: unknown): FailedClaim {
  return { failed: err instanceof Error ? err.message : String(err) };
}

/** @throws RangeError when `ids` is more than one claimMany takes. */
export function checkClaimBatch(ids: readonly DeliveryId[]): void {
  if (ids.length > MAX_CLAIM_BATCH) throw new RangeError(`claimMany takes at most ${MAX_CLAIM_BATCH} ids, got ${ids.length}`);
}

/**
 * The most a store-wide count reads on a scrape (index keys, no rows or documents): the metrics
 * show it as a floor beyond (`wirehook_deliveries_due` of 100,000 means "at least").
 */
export const BACKLOG_COUNT_CAP = 100_000;

/** The whole store's queue, as the metrics show it (DeliveryRepo.backlog). */
export interface Backlog {
  due: number;
  oldestDueAt: number | null;
  retrying: number;
  /** When it was counted, when that was not now (a count another process made and shared). */
  countedAt?: number;
}

/** The shared count is too old to show: its counter stopped. `countedAt`: when it was made (the store's clock). */
export class StaleBacklogError extends Error {
  override readonly name = 'StaleBacklogError';
  readonly countedAt: number;

  constructor(countedAt: number, ageMs: number) {
    super(`the backlog was last counted ${Math.round(ageMs / 1000)} s ago`);
    this.countedAt = countedAt;
  }
}

/**
 * A due delivery, as the sweeper sees it: which endpoint it waits for, and whose it is, decide
 * whether there is room (an endpoint's slots, a tenant's share of a dispatcher's places).
 */
export interface DueDelivery {
  id: DeliveryId;
  endpointId: EndpointId;
  tenant: Tenant;
}

/** The claim an attempt is completed for: plain data, only what `complete` reads. */
export interface ClaimRef {
  tenant: Tenant;
  deliveryId: DeliveryId;
  endpointId: EndpointId;
  leaseToken: number;
  /**
   * The delivery had an ordering key when it was claimed: its end hands its lane over. A hint
   * (MongoDB writes a completion without a transaction only for an unordered one, and its write's
   * filter checks that itself: a stale hint costs a transaction or a missed write, never a lane);
   * absent, the store finds out.
   */
  ordered?: boolean;
}

/**
 * `recentAttempts`'s limit, checked alike by every store: 0 to RECENT_ATTEMPTS, what an
 * endpoint's page lists (SQLite keeps no more for it, schema step 39). @throws RangeError otherwise.
 */
export function checkRecentAttemptsLimit(limit: number): number {
  if (Number.isInteger(limit) && limit >= 0 && limit <= RECENT_ATTEMPTS) return limit;
  throw new RangeError(`limit must be an integer from 0 to ${RECENT_ATTEMPTS} (what an endpoint's page lists), got ${limit}`);
}

/** The claim of `job`, as `complete` and `release` take it. */
export function claimRef(job: DeliveryJob): ClaimRef {
  const ordered = job.delivery.orderingKey !== undefined && job.delivery.orderingKey !== null;
  return { tenant: job.tenant, deliveryId: job.delivery.id, endpointId: job.delivery.endpointId, leaseToken: job.leaseToken, ordered };
}

/** What an attempt did to its delivery and endpoint, written by `complete` (all of it or, on a crash, the attempt alone: never the state without it). */
export interface AttemptOutcome {
  attempt: Attempt;
  /** success, retrying (with nextAttemptAt) or failed. */
  status: DeliveryStatus;
  nextAttemptAt: number | null;
  /** Whether the attempt counts toward the retry policy (false for a manual re-send). */
  countsTowardPolicy: boolean;
  /**
   * The endpoint's failure streak: on success it is cleared; on failure it starts at
   * `attempt.at` unless running. When `disableIfFailingSince` is given and the streak began
   * at or before it and the endpoint is `active`, the endpoint becomes `disabled` with
   * `disabledReason`, and all its pending and retrying deliveries become `failed` — this one
   * too when its outcome was `retrying`. `succeeded: null`: the attempt says nothing about the
   * endpoint (it failed on our side, e.g. the egress relay): its streak is left as it is.
   */
  endpoint: { succeeded: boolean | null; disableIfFailingSince?: number; disabledReason?: string };
}

/** What `complete` did beyond the delivery itself. */
export interface CompletedAttempt {
  /**
   * False when the claim was no longer current (the delivery was claimed again after this
   * lease ran out) or the delivery was no longer open (failed with its deleted or disabled
   * endpoint): the attempt is recorded, as it happened, but the delivery, its message and
   * the endpoint are left as the newer state has them.
   */
  applied: boolean;
  /** This call disabled the endpoint (true for exactly one call per disabling: send the automatic-stop notice). */
  endpointDisabled: boolean;
  /**
   * The delivery this one's end made its lane's head (ordered endpoints), claimable now:
   * the dispatcher may wake it at once rather than wait for a sweep. Absent when none.
   */
  laneNext?: DeliveryId;
}

/** Lanes with a head DeliveryRepo.laneStats reads at most (a scrape counted every lane). */
export const LANE_STATS_LIMIT = 1_000;

/** DeliveryRepo.laneStats: the ordered lanes store-wide. */
export interface LaneStats {
  open: number;
  blocked: number;
  oldestHeadAt: number | null;
}

/** A delivery as the API shows it (DeliveryRepo.show): bounded, whatever its history. */
export interface DeliveryView {
  delivery: Delivery;
  /** The consumer of its message (a portal link sees only its own consumer's). */
  consumerId: ConsumerId;
  /** Its newest DELIVERY_ATTEMPTS_SHOWN attempts, oldest of them first. */
  attempts: Attempt[];
  /** Whether it has attempts older than those (read them with `attempts`). */
  olderAttempts: boolean;
}

/** A page of one delivery's attempts (DeliveryRepo.attempts). */
export interface AttemptPage {
  /** The consumer of its message. */
  consumerId: ConsumerId;
  /** Newest first, strictly older than `beforeId`'s (by time, then id), at most `limit`. */
  attempts: Attempt[];
}

export interface DeliveryRepo {
  /**
   * Ids of deliveries due at `now` whose endpoint is active and whose lease is free, oldest
   * due first, at most `perEndpoint` of any one endpoint and `perTenant` (unset: `limit`) of
   * any one tenant (org and environment), and none of the tenants in `skip` (those the caller
   * cannot send for now): one endpoint's backlog never hides another endpoint's due
   * deliveries, and one tenant's backlog over many endpoints hides another tenant's only beyond
   * what an adapter reads for it (SQLite: 8 pages of the due index, or a walk of every
   * endpoint's oldest; MongoDB: never — a queue of tenants above its queue of endpoints, docs/semantics.md).
   */
  due(now: number, limit: number, perEndpoint: number, perTenant?: number, skip?: readonly Tenant[]): Promise<DueDelivery[]>;
  /**
   * Takes the lease of a due delivery (pending or retrying, due, endpoint active, lease free
   * or expired) until `leaseUntil`. @returns null when it is not claimable now.
   */
  claim(id: DeliveryId, now: number, leaseUntil: number): Promise<DeliveryJob | null>;
  /**
   * Claims each of `ids` as `claim` would (the same checks, the same lease), in one store call:
   * the claims a dispatcher makes together (a sweep's page, a pull of wake-ups). Each stands
   * alone: one that fails (a row that does not read back) is answered `{ failed }` and the
   * others are claimed all the same. Jobs of one message may share one `message` object, those
   * of one endpoint one `endpoint` and `secrets` (read once, copied once across a thread): a
   * fan-out's claims carry its payload once. Callers must not change a job. At most
   * MAX_CLAIM_BATCH ids; one listed twice is claimed once (null the second time).
   * @returns per id, in the order of `ids`: its job, null (not claimable now), or `{ failed }`.
   * @throws RangeError beyond MAX_CLAIM_BATCH ids; the store's error when the call fails as a
   * whole (e.g. a full disk, the write lock past its busy timeout, a closed store; in SQLite
   * nothing is claimed then).
   * Optional: a store that cannot claim several in one step leaves it out, and its callers claim
   * one at a time. MongoDB does: its claims are separate operations, and one call answering for
   * all would hold every job of it back until the slowest claim (a failover: up to the server
   * selection's 30 s, past the lease's margin) and put 64 claims' reads on the pool at once.
   */
  claimMany?(ids: readonly DeliveryId[], now: number, leaseUntil: number): Promise<ClaimResult[]>;
  /** Gives a lease back without an attempt, due again at `nextAttemptAt` (no-op when the claim is no longer current). */
  release(claim: ClaimRef, nextAttemptAt: number): Promise<void>;
  /**
   * Frees every lease (a sole dispatcher at its start: no other dispatcher can hold one), those
   * of the previous run ending after `now`. A store may leave a lease longer than a few minutes
   * to expire by itself. @returns how many it freed.
   */
  releaseAll(now: number): Promise<number>;
  /**
   * Records the attempt and, while `claim` is current and the delivery open, its outcome:
   * frees the lease, updates the message status and the endpoint. When a manual re-send was
   * asked for during the send (`retryNow` while leased), the delivery stays `retrying`, due
   * at once, whatever this attempt's outcome.
   */
  complete(claim: ClaimRef, outcome: AttemptOutcome): Promise<CompletedAttempt>;
  /** A delivery of the tenant with its message id and endpoint status, or null. */
  get(t: Tenant, id: DeliveryId): Promise<{ delivery: Delivery; endpointStatus: Endpoint['status'] | null } | null>;
  /**
   * Schedules a manual re-send now (`manual`, status retrying, due now). When the delivery
   * is being sent at `now` (leased), the re-send follows that send: its completion keeps it
   * due. Its endpoint's Retry-After hold ends (`heldUntil` null, what it put off due now).
   * The endpoint is checked in the same step as the reopening, so a delete cannot come between.
   * @returns the delivery, or null when the tenant has none.
   * @throws ConflictError when its endpoint was deleted or is not active, or the delivery has
   * MAX_ATTEMPTS_FOR_MANUAL_RETRY attempts, a send in flight counted (nothing changed).
   */
  retryNow(t: Tenant, id: DeliveryId, now: number): Promise<Delivery | null>;
  /**
   * The delivery with its newest DELIVERY_ATTEMPTS_SHOWN attempts (one read of bounded
   * size, however many attempts it has). @returns null when the tenant has none.
   */
  show(t: Tenant, id: DeliveryId): Promise<DeliveryView | null>;
  /**
   * A page of the delivery's attempts, newest first: the `limit` (1–MAX_PAGE_SIZE + 1) after
   * attempt `beforeId` of the same delivery (from the newest when absent).
   * @returns null when the tenant has no such delivery.
   * @throws InvalidError when `beforeId` is not an attempt of this delivery (a cursor of another list, or pruned).
   */
  attempts(t: Tenant, id: DeliveryId, page: { beforeId?: AttemptId; limit: number }): Promise<AttemptPage | null>;
  /**
   * On resume: held deliveries (pending or retrying) of the endpoint created at or after
   * `heldSince` become due; older held ones become `failed`. Bounded: the first batch (the
   * adapter's request batch: SQLite ENDPOINT_WALK_BATCH, MongoDB REQUEST_WALK_BATCH) is released
   * here, at `now`; the rest by `walkEndpoints`, due when their batch runs. Nothing when the
   * endpoint is not active. @returns how many this call released.
   */
  releaseHeld(t: Tenant, endpointId: EndpointId, heldSince: number, now: number): Promise<number>;
  /**
   * One round of the endpoint walks that pauses, resumes, disables and deletes leave (see
   * EndpointWalkMode): one batch of at most `batch` deliveries for each of up to `endpoints`
   * endpoints with a walk, each batch its own transaction, taking the endpoints in turn.
   * Every dispatcher runs it; two at once repeat a query, or one's batch runs again on the
   * other's result (a write conflict, MongoDB). @returns deliveries changed,
   * whether walks are left, and what failed of a part left for a later round while the walks
   * went on (MongoDB: a walk asked to run again after a resume; held-recheck.ts).
   */
  walkEndpoints(now: number, batch: number, endpoints: number): Promise<{ changed: number; pending: boolean; leftForLater?: unknown }>;
  /** Deliveries of the endpoint in `retrying`. */
  retryingCount(t: Tenant, endpointId: EndpointId): Promise<number>;
  /**
   * The whole store's queue, for the SRE's metrics (no tenant in it): deliveries due now
   * (not held), the oldest due time (null when none), deliveries in `retrying`. A count that
   * reads index entries (the due ones; MongoDB's retrying ones too) reads at most
   * BACKLOG_COUNT_CAP, and is that cap beyond it. A store whose processes share one count
   * (countBacklog) reads that count, and says when it was made; without `countedAt` it was
   * counted now. @throws Error when no count recent enough can be had.
   */
  backlog(now: number): Promise<Backlog>;
  /**
   * Optional, for a store many processes share (MongoDB): counts the backlog and shares it for
   * every process's `backlog`, when it is this process's turn (one at a time, store-wide). Called
   * on a timer of its own (the dispatcher's BacklogCountJob), never on a scrape. `now` is the
   * caller's; a store with a clock of its own (MongoDB's server) may count by that instead.
   * @returns whether this process's count was written.
   */
  countBacklog?(now: number): Promise<boolean>;
  /**
   * The whole store's ordered lanes, for the SRE's metrics (no tenant in it): lanes with
   * an open head, those whose head waits for a retry (blocked), the oldest open head's creation
   * (null when none). Reads the lanes with a head only, not their waiting deliveries, and of
   * those the first LANE_STATS_LIMIT by head id (the oldest heads: ids are time-ordered), so a
   * scrape costs the same at 10⁶ lanes as at 10: `open` and `blocked` saturate there (a gauge
   * at the limit reads "at least"); `oldestHeadAt` is exact.
   */
  laneStats(): Promise<LaneStats>;
  /**
   * Retention of ordered lanes: removes up to `batch` lanes whose last message was
   * created before `before` (the retention cutoff), oldest first, except any with an open head
   * or a waiting delivery. A pruned key's next message starts its lane again at sequence 1.
   * @returns how many went. @throws RangeError when `batch` is not a non-negative integer.
   */
  pruneLanes(before: number, batch: number): Promise<number>;
  /**
   * The endpoint's latest `limit` attempts, newest first (time, then id). On SQLite each attempt
   * removed with its message by retention leaves the list one shorter until newer ones come. What
   * a deleted endpoint lists is not specified (SQLite: none; MongoDB: its attempts until their
   * month goes): no caller asks for a deleted endpoint's.
   * @throws RangeError unless `limit` is an integer from 0 to RECENT_ATTEMPTS (checkRecentAttemptsLimit).
   */
  recentAttempts(t: Tenant, endpointId: EndpointId, limit: number): Promise<Attempt[]>;
}

/**
 * What an endpoint's walk does to its open deliveries, batch by batch: `hold` takes them out
 * of the due index while the endpoint is not active (paused, disabled); `release` makes the
 * held ones of the months the spec releases due again and fails older ones (resumed);
 * `fail` fails them (deleted). The latest operation on the endpoint replaces its walk.
 */
export type EndpointWalkMode = 'hold' | 'release' | 'fail';
