import type { AlertConditions, AlertTargetId, EndpointId, Environment, OrgId, Tenant } from '@wirehook/core';

/** Where an organization's failure notices of one environment go (a key reads and writes only its own environment's). */
export interface AlertTarget {
  id: AlertTargetId;
  /** The environment whose notices it receives. */
  env: Environment;
  type: 'webhook' | 'chat' | 'email';
  /** webhook and chat. */
  url: string | null;
  /** email. */
  address: string | null;
  /** webhook: the signing secret, sealed (bound to the target id). */
  sealedSecret: string | null;
  createdAt: number;
}

/**
 * What happened that a notice may be about, written by `deliveries.complete` in the same
 * transaction as the change itself (an outbox): nothing that should notify is lost, even if
 * the process dies right after. An endpoint has at most one queued event of each kind: a
 * repeat while one waits is collapsed into it (the first stays).
 */
export interface AlertEvent {
  /** Opaque: what commitStep takes back to consume it. */
  id: string;
  tenant: Tenant;
  /** failing: the endpoint's failure streak began; exhausted: a delivery ran out of retries; disabled: the endpoint was stopped automatically. */
  kind: 'failing' | 'exhausted' | 'disabled';
  endpointId: EndpointId;
  at: number;
  error: string | null;
  responseStatus: number | null;
  /** The delivery whose attempt wrote it (null in events written before it was kept). */
  deliveryId: string | null;
}

/** An endpoint a delivery-failure notice is about. */
export interface NoticeEndpoint {
  env: Environment;
  endpointId: EndpointId;
  url: string;
  consumerExternalId: string;
  failingSince: number | null;
  lastError: string | null;
  lastStatus: number | null;
  /** The message and delivery of the attempt that failed last, when known. */
  messageId?: string | null;
  deliveryId?: string | null;
}

/** One environment's hour of delivery-failure notices. */
export interface AlertWindow {
  /** When the hour began (its first notice); null: none running. */
  windowStart: number | null;
  /** Endpoints that began failing in that hour, sent together at its end. */
  pending: NoticeEndpoint[];
}

/** The alerting throttle of one organization (spec: at most one notice per endpoint per hour, one per hour at once, the rest combined). */
export interface AlertState {
  /** Bumped by every commit: a step decided on an older state is refused (two workers, one decision). */
  version: number;
  /** The hour of delivery-failure notices per environment (targets belong to one). */
  windows: Partial<Record<Environment, AlertWindow>>;
  /** The last delivery-failure notice per endpoint. */
  lastNoticeAt: Record<string, number>;
  /** The failure streak (its failing_since) each endpoint was last notified for. */
  notifiedStreaks: Record<string, number>;
  /** The UTC day each environment's pending-retries notice last went (once a day). */
  pendingRetriesDay?: Record<string, string>;
  /** The UTC day each environment's certificate-expiry notice last went (once a day). */
  certificatesDay?: Record<string, string>;
  /** The usage notices of a month that went: `target:80`, `owner:100`, … (once each per month). */
  usage?: { month: string; sent: string[] };
}

/** A notice to send to one target, queued in the same transaction that decided it. */
export interface NoticeDelivery {
  id: string;
  orgId: OrgId;
  targetId: AlertTargetId;
  /** alert.delivery_failure, alert.endpoint_disabled, … */
  type: string;
  /** The notice as JSON: `{ type, timestamp, data }`. */
  body: string;
  createdAt: number;
}

/** A notice taken to send: its tries so far, and the claim that took it. */
export interface ClaimedNotice extends NoticeDelivery {
  attempts: number;
  /** Names this claim: only its holder records the outcome (see recordNoticeAttempt). */
  claim: string;
}

/** An organization's share of one claim (see AlertSettingsRepo.claimNotices); plain data. */
export interface NoticeClaimFairness {
  /** The most notices of one organization in flight at once. */
  perOrg: number;
  /** Notices of each organization (by id) the caller has in flight now. */
  inFlight: Record<string, number>;
}

/** Alert targets one environment of an organization may have (spec style: 422 beyond, like the 20 endpoints per consumer). */
export const MAX_ALERT_TARGETS_PER_ENV = 20;

/** The refusal of a target past the cap (both adapters'), saying what is allowed. */
export function targetCapMessage(t: Tenant, count: number, max: number): string {
  return `the ${t.env} environment already has ${count} alert targets; the limit is ${max} per environment (delete one to add another)`;
}

/** One try at sending a notice. */
export interface NoticeAttempt {
  at: number;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}

/** A page of the walk over the organizations with deliveries waiting to retry (AlertSettingsRepo.retryingCounts). */
export interface RetryingPage {
  counts: { tenant: Tenant; count: number; exact: boolean }[];
  /** Where the next page starts (the last organization this one read); null once the walk has ended. */
  next: OrgId | null;
}

/** Where the failing-endpoint walk of one organization stands: after this streak. */
export interface FailingCursor {
  failingSince: number;
  endpointId: EndpointId;
}

/** An organization's alert conditions and targets (each per environment), and the alerting engine's queues (spec: Failure notifications). */
export interface AlertSettingsRepo {
  /**
   * The environment's conditions, or null when never chosen for it (the defaults apply). Each
   * environment has its own: a key of one never reads or changes the other's.
   */
  conditions(t: Tenant): Promise<AlertConditions | null>;
  /** Sets the environment's conditions (the other environment's stay as they are). */
  setConditions(t: Tenant, conditions: AlertConditions, at: number): Promise<void>;
  /**
   * Adds a target to the tenant's environment.
   * @throws InvalidError when the environment already has `max` targets (MAX_ALERT_TARGETS_PER_ENV at the API).
   */
  createTarget(t: Tenant, target: Omit<AlertTarget, 'env'>, max?: number): Promise<AlertTarget>;
  /** The environment's targets, oldest first. */
  targets(t: Tenant): Promise<AlertTarget[]>;
  /** One target of the organization, whatever its environment (the sender's look-up); null when gone. */
  target(orgId: OrgId, id: AlertTargetId): Promise<AlertTarget | null>;
  /** @returns false when the environment has no such target. */
  deleteTarget(t: Tenant, id: AlertTargetId): Promise<boolean>;

  /** Organizations with queued events, the one whose oldest event is oldest first. */
  eventOrgs(limit: number): Promise<OrgId[]>;
  /** The organization's oldest queued events. */
  events(orgId: OrgId, limit: number): Promise<AlertEvent[]>;
  /** Organizations with an active endpoint whose failure streak began between `since` and `before`, by id after `afterOrgId`. */
  failingOrgs(since: number, before: number, afterOrgId: OrgId | null, limit: number): Promise<OrgId[]>;
  /** The organization's active endpoints whose streak began between `since` and `before`, oldest streak first, after `after`. */
  failingEndpoints(
    orgId: OrgId,
    since: number,
    before: number,
    after: FailingCursor | null,
    limit: number,
  ): Promise<{ tenant: Tenant; endpointId: EndpointId; failingSince: number }[]>;
  /**
   * A page of the walk over the organizations with deliveries waiting to retry (the alerting
   * engine's, a pass at most once a minute): of at most `orgs` (≥ 1) of them after `after` in id order
   * (null: from the first), the environments with at least `min`. `count` is their number when
   * `exact` (SQLite, from per-endpoint counts kept by triggers); otherwise at least that (MongoDB
   * counts each only up to `min` here), and retryingCount reads the number of the few
   * environments that may be notified. `next`: where the next page starts; null once the walk has
   * ended. An adapter may answer the whole walk at once (SQLite: one read of a row per endpoint).
   */
  retryingCounts(min: number, after: OrgId | null, orgs: number): Promise<RetryingPage>;
  /**
   * One environment's deliveries waiting to retry, counted up to `upTo` (at most
   * PENDING_RETRIES_COUNTED_UP_TO): a larger total reads as `upTo`.
   */
  retryingCount(t: Tenant, upTo: number): Promise<number>;
  /**
   * Organizations' live messages in a UTC month (`YYYY-MM`), from the usage counters as they stand
   * at `now`: every organization whose count reached its plan's first usage threshold (50 % of its
   * monthly messages) is listed, none under USAGE_NOTICE_FLOOR (5,000); between the two a store may
   * list it or not (SQLite lists every one at the floor; MongoDB those a send or a plan change
   * marked, so one whose mark failed to be written is listed from its next send on). The read is
   * bounded by the organizations listed, not by every one.
   */
  liveMonthUsage(month: string, now: number): Promise<{ orgId: OrgId; used: number }[]>;
  /** Organizations whose hour of notices (of an environment) ended at or before `now` with endpoints waiting in it. */
  statesDue(now: number, limit: number): Promise<OrgId[]>;
  state(orgId: OrgId): Promise<AlertState | null>;
  /**
   * One step of the alerting engine for an organization, in one transaction: the events it
   * consumed leave the outbox, its throttle state is written (`state.version` must be one more
   * than the stored one, 0 when none is stored), its notices are queued.
   * @throws ConflictError when an event was already consumed or the state moved on (another
   * worker decided meanwhile): nothing is written. A step must read the state before the events
   * it consumes: an event's id may come back once consumed (MongoDB's is its endpoint and kind),
   * and the state's version is what refuses a step that read an older queue.
   */
  commitStep(orgId: OrgId, consumed: string[], state: AlertState, notices: NoticeDelivery[]): Promise<void>;
  /** Queues one notice, due at its `createdAt` (a sample a sender asked for: POST /v1/alert-targets/{id}/test). */
  queueNotice(notice: NoticeDelivery): Promise<void>;
  /**
   * Takes up to `limit` notices due at `now` (leased until `leaseUntil`, under the new claim
   * `claim`: a leased notice is not due again before its lease ends), round-robin: one of each
   * organization with a due notice in turn, from where the last claim stopped, and within one
   * organization one of each target in turn. `fair` bounds an organization's share: at most
   * `perOrg` in flight, counting `inFlight` (what the caller already sends of it). So a notice
   * fanned out to many targets, or an organization's retries, take only its own turns.
   */
  claimNotices(now: number, leaseUntil: number, claim: string, limit: number, fair?: NoticeClaimFairness): Promise<ClaimedNotice[]>;
  /**
   * Removes up to `batch` done notices created before `before` and up to `batch` notice tries
   * made before `attemptsBefore` (a store whose TTL indexes do it removes nothing here).
   * @returns how many rows went.
   */
  pruneNotices(before: number, attemptsBefore: number, batch: number): Promise<number>;
  /**
   * Records a try; `next`: when to try again, or null when done (sent, or given up). The try
   * is listed whatever happens; the notice's schedule changes only while `claim` still holds
   * it (a replica that re-claimed it after the lease ran out decides). Atomic: after an error
   * (a failover whose outcome is unknown) the caller may record the same try again, and it is
   * kept once (SQLite: an error wrote nothing; MongoDB: the try's id is its claim's).
   */
  recordNoticeAttempt(id: string, claim: string, attempt: NoticeAttempt, sent: boolean, next: number | null): Promise<void>;
  /** The target's latest tries, newest first. */
  noticeAttempts(orgId: OrgId, targetId: AlertTargetId, limit: number): Promise<(NoticeAttempt & { noticeId: string; type: string })[]>;
}

/** When the earliest hour with waiting endpoints ends (null: none waits): what `statesDue` finds. */
export function alertStateDue(state: AlertState): { windowEnd: number | null; hasPending: boolean } {
  const ends = Object.values(state.windows)
    .filter((w) => w.pending.length > 0 && w.windowStart !== null)
    .map((w) => w.windowStart! + 3_600_000);
  return ends.length === 0 ? { windowEnd: null, hasPending: false } : { windowEnd: Math.min(...ends), hasPending: true };
}

/**
 * A stored state as the current shape: states written before targets had an environment
 * held one window for the organization (`windowStart`, `pending`); it becomes each waiting
 * endpoint's environment's window (live when none waits).
 */
export function readAlertState(stored: AlertState & { windowStart?: number | null; pending?: NoticeEndpoint[] }): AlertState {
  if (stored.windows !== undefined) return stored;
  const { windowStart = null, pending = [], ...rest } = stored;
  const windows: AlertState['windows'] = {};
  for (const p of pending) (windows[p.env] ??= { windowStart, pending: [] }).pending.push(p);
  if (pending.length === 0 && windowStart !== null) windows.live = { windowStart, pending: [] };
  return { ...rest, windows };
}
