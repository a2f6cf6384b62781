import type {
  AlertConditions,
  AlertTargetId,
  Environment,
  ApiKey,
  Consumer,
  ConsumerId,
  Endpoint,
  EndpointId,
  EventType,
  KeyId,
  Org,
  OrgId,
  PlanName,
  RetryPolicy,
  CompatSignature,
  EndpointStatus,
  StoredSecret,
  Tenant,
} from '@wirehook/core';

import type { DeliveryRepo, MessageRepo, PortalTokenRepo, RecoveryRepo } from './message-ports.ts';

// The Store port. Every tenant-owned call takes the Tenant first, and adapters build their
// queries from it, so a key of one org or environment can never reach another's records.
// Adapters throw the core error types for the outcomes the API reports (ConflictError,
// InvalidError); anything else is a fault.

export interface OrgRepo {
  create(org: Org): Promise<Org>;
  get(id: OrgId): Promise<Org | null>;
  /** @returns the updated org, or null when there is none with that id. */
  setPlan(id: OrgId, plan: PlanName): Promise<Org | null>;
}

/** An API key together with its org, as authentication needs them. */
export interface KeyWithOrg {
  key: ApiKey;
  org: Org;
}

export interface ApiKeyRepo {
  /** Stores a key by the hash of its clear text; the clear text never reaches the store. */
  create(key: ApiKey, hash: string): Promise<ApiKey>;
  findByHash(hash: string): Promise<KeyWithOrg | null>;
  /** Marks the key revoked at `at` (the first revocation time is kept). Null when unknown. */
  revoke(id: KeyId, at: number): Promise<ApiKey | null>;
}

/** A page request: items strictly older than the item `afterId` (newest first). */
export interface PageRequest {
  afterId?: string;
  limit: number;
}

export interface ConsumerRepo {
  /** @throws ConflictError when the tenant already has a consumer with this external id. */
  create(t: Tenant, consumer: Omit<Consumer, 'endpointCount'>): Promise<Consumer>;
  get(t: Tenant, id: ConsumerId): Promise<Consumer | null>;
  getByExternalId(t: Tenant, externalId: string): Promise<Consumer | null>;
  /** Newest first (by id, compared as text). */
  list(t: Tenant, page: PageRequest): Promise<Consumer[]>;
}

export interface EndpointPatch {
  url?: string;
  eventTypes?: string[] | null;
  status?: EndpointStatus;
  description?: string | null;
  retry?: RetryPolicy;
  compatSignature?: CompatSignature | null;
  disabledReason?: string | null;
  failingSince?: number | null;
  /**
   * With `status`: when the change is made (the caller's clock). Leaving `disabled`, the
   * disabling's fail walk stops at it: deliveries made from now on are the endpoint's new work.
   */
  changedAt?: number;
  /**
   * With `status: 'active'`: the resume's release, recorded in the same transaction, so a
   * crash before `releaseHeld` runs still leaves it for the walk (held deliveries created at
   * or after this are released, older ones fail).
   */
  releaseHeldSince?: number;
}

export interface EndpointRepo {
  /**
   * Creates an endpoint with its first signing secret, atomically checking the cap.
   * @throws NotFoundError when the tenant has no consumer `endpoint.consumerId`.
   * @throws InvalidError when the consumer already has `maxPerConsumer` endpoints.
   */
  create(t: Tenant, endpoint: Endpoint, secret: StoredSecret, maxPerConsumer: number): Promise<Endpoint>;
  get(t: Tenant, id: EndpointId): Promise<Endpoint | null>;
  /** Oldest first; all of the tenant's endpoints, or one consumer's. */
  list(t: Tenant, filter: { consumerId?: ConsumerId }): Promise<Endpoint[]>;
  /** @returns the updated endpoint, or null when there is none. */
  update(t: Tenant, id: EndpointId, patch: EndpointPatch): Promise<Endpoint | null>;
  /**
   * Deletes the endpoint and its secrets, and fails its pending and retrying deliveries, in
   * one transaction: no message or completion in between can leave a delivery open for an
   * endpoint that is gone. @returns false when there was none.
   */
  delete(t: Tenant, id: EndpointId): Promise<boolean>;
  /**
   * Adds `secret` as the current secret; every other secret still valid at `now` gets
   * `expiresAt = oldValidUntil` (unless it expires sooner). At most `maxLive` secrets stay
   * valid: the oldest of the others end now (each rotation within the overlap window would
   * otherwise add a signature to every webhook). @returns false when no endpoint.
   */
  rotateSecret(t: Tenant, id: EndpointId, secret: StoredSecret, now: number, oldValidUntil: number, maxLive: number): Promise<boolean>;
  /** Secrets valid at `now`, newest first (the current one first). */
  secrets(t: Tenant, id: EndpointId, now: number): Promise<StoredSecret[]>;
}

export interface EventTypeRepo {
  /** @throws ConflictError when the name exists in the tenant. */
  create(t: Tenant, eventType: EventType): Promise<EventType>;
  /** Ordered by name. */
  list(t: Tenant): Promise<EventType[]>;
}

/** A key of the ring that seals signing secrets has sealed something here: its check value. */
export interface KeyCheck {
  keyId: string;
  /** A known text sealed with that key (see packages/platform/src/sealing-keys.ts). */
  sealed: string;
  createdAt: number;
}

/**
 * Every stored column that holds a sealed secret, and what its sealing is bound to (the
 * owner id passed to `SecretBox.seal`). `secrets reseal` walks each of them before it
 * retires a key, so a column missing here is lost at the next rotation: a new sealed column
 * is added here, both adapters must then walk it (they map every entry), and
 * sealed-columns.test.ts fails on a SQLite column holding sealed text that is not listed.
 */
export const SEALED_COLUMNS = {
  /** Endpoints' signing secrets (current and rotated-out), bound to the endpoint id. */
  endpoint_secrets: { sqlite: 'endpoint_secrets.sealed', mongo: 'endpoints.secrets.sealed', boundTo: 'endpoint id' },
  /** Webhook alert targets' signing secrets, bound to the target id. */
  alert_target_secrets: { sqlite: 'alert_targets.sealed_secret', mongo: 'alert_targets.sealedSecret', boundTo: 'alert target id' },
} as const;
export type SealedColumn = keyof typeof SEALED_COLUMNS;

/** The sealed texts of one owner (an endpoint, an alert target) in one sealed column, as re-sealing walks them. */
export interface SealedSecrets {
  /** What the texts are bound to (see SEALED_COLUMNS). */
  ownerId: string;
  sealed: string[];
}

/**
 * What the key ring needs of the store, across tenants: the check values that tell a wrong
 * WIREHOOK_SECRET_KEY at start, and a walk over every sealed secret of every sealed column
 * to re-seal them with the newest key (admin `secrets reseal`).
 */
export interface SealingRepo {
  keyChecks(): Promise<KeyCheck[]>;
  /** Adds the check unless one for the key exists (the first stays). */
  addKeyCheck(check: KeyCheck): Promise<void>;
  removeKeyCheck(keyId: string): Promise<void>;
  /** Owners with sealed texts in `column`, by owner id, after `afterOwnerId`. */
  sealedSecrets(column: SealedColumn, afterOwnerId: string | null, limit: number): Promise<SealedSecrets[]>;
  /**
   * Replaces one sealed text of the owner in `column`, only if it still reads `expected` (a
   * rotation meanwhile wins). @returns whether it was replaced.
   */
  reseal(column: SealedColumn, ownerId: string, expected: string, sealed: string): Promise<boolean>;
}

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
  seq: number;
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

/** One try at sending a notice. */
export interface NoticeAttempt {
  at: number;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}

/** Where the failing-endpoint walk of one organization stands: after this streak. */
export interface FailingCursor {
  failingSince: number;
  endpointId: EndpointId;
}

/** An organization's alert conditions and targets, and the alerting engine's queues (spec: Failure notifications). */
export interface AlertSettingsRepo {
  /** The conditions chosen, or null when the organization never chose (the defaults apply). */
  conditions(orgId: OrgId): Promise<AlertConditions | null>;
  setConditions(orgId: OrgId, conditions: AlertConditions, at: number): Promise<void>;
  /** Adds a target to the tenant's environment. */
  createTarget(t: Tenant, target: Omit<AlertTarget, 'env'>): Promise<AlertTarget>;
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
  /** Environments with at least `min` deliveries waiting to retry, with their count. */
  retryingCounts(min: number): Promise<{ tenant: Tenant; count: number }[]>;
  /** Each organization's live messages of a UTC month (`YYYY-MM`), from the usage counters. */
  liveMonthUsage(month: string): Promise<{ orgId: OrgId; used: number }[]>;
  /** Organizations whose hour of notices (of an environment) ended at or before `now` with endpoints waiting in it. */
  statesDue(now: number, limit: number): Promise<OrgId[]>;
  state(orgId: OrgId): Promise<AlertState | null>;
  /**
   * One step of the alerting engine for an organization, in one transaction: the events it
   * consumed leave the outbox, its throttle state is written (`state.version` must be one more
   * than the stored one, 0 when none is stored), its notices are queued.
   * @throws ConflictError when an event was already consumed or the state moved on (another
   * worker decided meanwhile): nothing is written.
   */
  commitStep(orgId: OrgId, consumed: number[], state: AlertState, notices: NoticeDelivery[]): Promise<void>;
  /** Queues one notice, due at its `createdAt` (a sample a sender asked for: POST /v1/alert-targets/{id}/test). */
  queueNotice(notice: NoticeDelivery): Promise<void>;
  /** Takes notices due at `now` (lease until `leaseUntil`, under the new claim `claim`), oldest first. */
  claimNotices(now: number, leaseUntil: number, claim: string, limit: number): Promise<ClaimedNotice[]>;
  /**
   * Records a try; `next`: when to try again, or null when done (sent, or given up). The try
   * is listed whatever happens; the notice's schedule changes only while `claim` still holds
   * it (a replica that re-claimed it after the lease ran out decides).
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

/** Everything Wirehook keeps. One adapter per database; all pass the same contract suite. */
/**
 * Named leases for work one process should do at a time across every replica (retention):
 * `take` gives the lease to `holder` until `until` when it is free, expired, or already
 * that holder's (a renewal). @returns whether `holder` holds it now.
 */
export interface JobLeaseRepo {
  take(name: string, holder: string, now: number, until: number): Promise<boolean>;
}

export interface Store {
  readonly orgs: OrgRepo;
  readonly apiKeys: ApiKeyRepo;
  readonly consumers: ConsumerRepo;
  readonly endpoints: EndpointRepo;
  readonly eventTypes: EventTypeRepo;
  readonly messages: MessageRepo;
  readonly deliveries: DeliveryRepo;
  readonly sealing: SealingRepo;
  readonly recoveries: RecoveryRepo;
  readonly portalTokens: PortalTokenRepo;
  readonly alerts: AlertSettingsRepo;
  readonly jobs: JobLeaseRepo;
  close(): Promise<void>;
}
