import {
  newId,
  type Attempt,
  type ConsumerId,
  type Delivery,
  type DeliveryId,
  type DeliveryStatus,
  type Endpoint,
  type EndpointId,
  type Message,
  type MessageId,
  type Recovery,
  type RecoveryId,
  type StoredSecret,
  type Tenant,
} from '@wirehook/core';

// The message half of the Store port: intake writes messages with their deliveries, the
// dispatcher claims, sends and completes deliveries, the API reads them back.

/** A usage counter touched by a send, e.g. live messages of an org this month. */
export interface UsageCounter {
  /** Counter identity, e.g. `live:org_…:2026-11` or `test:org_…:2026-11-22`. */
  key: string;
  /**
   * Refuse the send (PlanLimitError) when the counter already stands at this; null: no limit.
   * Checked only for a counter with `increment`, and never on an idempotent replay.
   */
  limit: number | null;
  /** false: only read the counter (x-usage-month for a test-environment send). */
  increment: boolean;
  /** Message for the PlanLimitError. */
  limitMessage?: string;
  /** When the counter may be forgotten (Unix ms). */
  expiresAt: number;
}

/** What intake hands the store for one send. */
export interface NewMessage {
  id: MessageId;
  eventType: string;
  payload: string;
  createdAt: number;
  /** The consumer by external id; created with `newConsumerId` when it does not exist. */
  consumerExternalId: string;
  newConsumerId: ConsumerId;
  /** With a key: an earlier message of the tenant with the same key created at or after `idempotencySince` is returned instead. */
  idempotencyKey: string | null;
  idempotencySince: number;
  counters: UsageCounter[];
  /** A trial: a delivery to this endpoint of the consumer only (active or paused), whatever event types it takes. */
  onlyEndpointId?: EndpointId;
  /**
   * Claim up to `max` of the new due deliveries in the same transaction, leased until
   * `leaseUntil`, for a dispatcher in the caller's process (embedded mode): they come back
   * as `CreatedMessage.claimed`, ready to send, with no wake-up and no second transaction.
   * Optional for an adapter: one without it claims nothing and intake wakes the dispatchers.
   */
  claim?: { max: number; leaseUntil: number };
}

export interface CreatedMessage {
  message: Message;
  /** Deliveries of the message (of the earlier one on an idempotent replay). */
  deliveryIds: DeliveryId[];
  /**
   * Of the new deliveries, those due now and not claimed: their endpoint is active (a paused
   * one holds its delivery). Intake wakes the dispatchers for these only. Every adapter
   * returns it (the contract checks due + claimed = the deliveries not held); empty on an
   * idempotent replay, which writes nothing.
   */
  dueDeliveryIds: DeliveryId[];
  /**
   * Of the due deliveries, those claimed for the caller (`NewMessage.claim`), as a claim
   * returns them; they are not in `dueDeliveryIds`. Absent when nothing was claimed.
   */
  claimed?: DeliveryJob[];
  /** false: an earlier message with the same Idempotency-Key was returned; nothing was written. */
  created: boolean;
  /** Each counter's value after this send, by key. */
  counters: Record<string, number>;
}

export interface ConsumerRef {
  id: ConsumerId;
  externalId: string;
  name: string | null;
}

/** A message without its payload (up to 1 MB each), as the list reads it. */
export type MessageHead = Omit<Message, 'payload'>;

/** A row of the message list. */
export interface MessageSummary {
  message: MessageHead;
  consumer: ConsumerRef;
  /** URL of the message's first delivery; null when it has none. */
  endpointUrl: string | null;
  attemptCount: number;
  lastAttemptAt: number | null;
}

/** A message with everything about its deliveries. */
export interface MessageDetail {
  message: Message;
  consumer: ConsumerRef;
  deliveries: { delivery: Delivery; attempts: Attempt[] }[];
}

export interface MessageQuery {
  /** Only this consumer's messages (the portal, scoped to one consumer). */
  consumerId?: ConsumerId;
  status?: DeliveryStatus;
  eventType?: string;
  /** Partial match, ignoring (ASCII) case, on message id, event type, consumer external id, Idempotency-Key; `%` and `_` are literal. */
  q?: string;
  /** Only messages created at or after this. */
  since?: number;
  /** Items strictly older than this message id (newest first). */
  afterId?: string;
  limit: number;
}

export interface MessageRepo {
  /**
   * Finds or creates the consumer, then writes the message and one `pending` delivery
   * (next attempt now) per endpoint of that consumer that is not disabled and takes the
   * event type, and bumps the counters — all in one transaction.
   * @throws PlanLimitError when a counter with a limit is already at it (nothing written).
   */
  create(t: Tenant, input: NewMessage): Promise<CreatedMessage>;
  get(t: Tenant, id: MessageId): Promise<MessageDetail | null>;
  /** Newest first. */
  list(t: Tenant, query: MessageQuery): Promise<MessageSummary[]>;
  /** Reads a usage counter (0 when absent). */
  counter(key: string): Promise<number>;
  /** Retention: removes up to `batch` messages created before `before`, with their deliveries and attempts. @returns how many messages went. */
  deleteBefore(before: number, batch: number): Promise<number>;
}

/** Everything the dispatcher needs to send one claimed delivery. */
export interface DeliveryJob {
  tenant: Tenant;
  delivery: Delivery;
  message: { id: MessageId; eventType: string; payload: string; createdAt: number };
  endpoint: Endpoint;
  /** Secrets valid at claim time, newest first. */
  secrets: StoredSecret[];
  /**
   * The fence of this claim: every claim of the delivery gets a larger one. `complete` and
   * `release` act only while it is still the delivery's current token, so a send that
   * outlived its lease (and was claimed again elsewhere) cannot overwrite newer state.
   */
  leaseToken: number;
}

/** A due delivery, as the sweeper sees it: which endpoint it waits for decides whether there is room. */
export interface DueDelivery {
  id: DeliveryId;
  endpointId: EndpointId;
}

/** The claim an attempt is completed for: plain data, only what `complete` reads. */
export interface ClaimRef {
  tenant: Tenant;
  deliveryId: DeliveryId;
  endpointId: EndpointId;
  leaseToken: number;
}

/** The claim of `job`, as `complete` and `release` take it. */
export function claimRef(job: DeliveryJob): ClaimRef {
  return { tenant: job.tenant, deliveryId: job.delivery.id, endpointId: job.delivery.endpointId, leaseToken: job.leaseToken };
}

/** What an attempt did to its delivery and endpoint, written by `complete` in one transaction. */
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
}

export interface DeliveryRepo {
  /**
   * Ids of deliveries due at `now` whose endpoint is active and whose lease is free, oldest
   * due first, at most `perEndpoint` of any one endpoint: one endpoint's backlog never hides
   * another endpoint's due deliveries (fairness between tenants).
   */
  due(now: number, limit: number, perEndpoint: number): Promise<DueDelivery[]>;
  /**
   * Takes the lease of a due delivery (pending or retrying, due, endpoint active, lease free
   * or expired) until `leaseUntil`. @returns null when it is not claimable now.
   */
  claim(id: DeliveryId, now: number, leaseUntil: number): Promise<DeliveryJob | null>;
  /** Gives a lease back without an attempt, due again at `nextAttemptAt` (no-op when the claim is no longer current). */
  release(claim: ClaimRef, nextAttemptAt: number): Promise<void>;
  /** Frees every lease (embedded mode at start: no other dispatcher can hold one). @returns how many. */
  releaseAll(): Promise<number>;
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
   * due. @returns the delivery, or null.
   */
  retryNow(t: Tenant, id: DeliveryId, now: number): Promise<Delivery | null>;
  /**
   * On resume: held deliveries (pending or retrying) of the endpoint created at or after
   * `heldSince` become due; older held ones become `failed`. Bounded: the first
   * ENDPOINT_WALK_BATCH are released here, at `now`; the rest by `walkEndpoints`, due when
   * their batch runs. Nothing when the endpoint is not active. @returns how many this call released.
   */
  releaseHeld(t: Tenant, endpointId: EndpointId, heldSince: number, now: number): Promise<number>;
  /**
   * One round of the endpoint walks that pauses, resumes, disables and deletes leave (see
   * EndpointWalkMode): one batch of at most `batch` deliveries for each of up to `endpoints`
   * endpoints with a walk, each batch its own transaction, taking the endpoints in turn.
   * Every dispatcher runs it; two at once only repeat a query. @returns deliveries changed,
   * and whether walks are left.
   */
  walkEndpoints(now: number, batch: number, endpoints: number): Promise<{ changed: number; pending: boolean }>;
  /** Deliveries of the endpoint in `retrying`. */
  retryingCount(t: Tenant, endpointId: EndpointId): Promise<number>;
  /**
   * The whole store's queue, for the SRE's metrics (no tenant in it): deliveries due now
   * (not held), the oldest due time (null when none), deliveries in `retrying`.
   */
  backlog(now: number): Promise<{ due: number; oldestDueAt: number | null; retrying: number }>;
  /** The endpoint's latest attempts, newest first. */
  recentAttempts(t: Tenant, endpointId: EndpointId, limit: number): Promise<Attempt[]>;
}

/**
 * The id of a delivery a NewMessage creates, made by the store as it matches endpoints and
 * stamped with the message's `createdAt` (the caller's clock): monotonic, so a message's
 * deliveries sort in the order they were made. (Intake used to send one id per possible
 * endpoint, twenty, to use one: 8.6 % of the API thread's allocations.)
 */
export function newDeliveryId(input: Pick<NewMessage, 'createdAt'>): DeliveryId {
  return newId('delivery', { now: () => input.createdAt });
}

/**
 * What an endpoint's walk does to its open deliveries, batch by batch: `hold` takes them out
 * of the due index while the endpoint is not active (paused, disabled); `release` makes the
 * held ones of the months the spec releases due again and fails older ones (resumed);
 * `fail` fails them (deleted). The latest operation on the endpoint replaces its walk.
 */
export type EndpointWalkMode = 'hold' | 'release' | 'fail';

/**
 * A recovery's targets are read up to its start plus this: a delivery made after it was not failed at the
 * start (without the bound, deliveries failing faster than the pace would fill every batch and
 * the recovery would never end); the margin covers intake's and the starter's clocks
 * disagreeing. One made inside it and failed is skipped by rule 4 (attempted after the start).
 */
export const START_SKEW_MS = 60_000;

/** A recovery to start: the store counts its targets as it writes it (they are read as it goes). */
export interface NewRecovery {
  id: RecoveryId;
  endpointId: EndpointId;
  since: number;
  createdAt: number;
}

/** A running recovery taken by one worker until `leaseUntil`, fenced by `leaseToken`. */
export interface RecoveryLease {
  tenant: Tenant;
  recovery: Recovery;
  leaseToken: number;
  /** When its last batch was queued (null: none yet): the pace is counted from it. */
  lastBatchAt: number | null;
}

/** What the next step of a recovery did. */
export interface RecoveryStep {
  recovery: Recovery;
  /** Deliveries made due now by this step: wake the dispatchers for them. */
  queuedIds: DeliveryId[];
  /** False when the lease was no longer this worker's (another took the recovery): nothing was written. */
  applied: boolean;
}

/**
 * Recoveries (spec: Start a recovery). Progress lives here, so a recovery survives any
 * process: one worker at a time drives it under a lease, and each step is one transaction
 * fenced by the lease token, so two workers can never queue the same batch twice.
 */
export interface RecoveryRepo {
  /**
   * In one transaction: checks the endpoint is `active` and has no running recovery, and
   * counts its `failed` deliveries of messages created at or after `since`: the targets, read
   * batch by batch by `step` (those attempted after the start skipped: spec, recover rule 4).
   * @throws NotFoundError when the tenant has no such endpoint; ConflictError when it is not
   * active or a recovery already runs on it.
   */
  start(t: Tenant, input: NewRecovery): Promise<Recovery>;
  get(t: Tenant, endpointId: EndpointId, id: RecoveryId): Promise<Recovery | null>;
  /** The endpoint's most recent recovery, or null. */
  latest(t: Tenant, endpointId: EndpointId): Promise<Recovery | null>;
  /** Takes the lease of one running recovery whose lease is free or expired at `now`. @returns null when none. */
  claim(now: number, leaseUntil: number): Promise<RecoveryLease | null>;
  /**
   * The next step of a leased recovery, while its lease is current: when its endpoint is no
   * longer active it ends `stopped`; when the endpoint has `maxOutstanding` or more
   * deliveries due or being sent, nothing is queued (it waits for free slots); else the next
   * `batch` failed targets after its cursor are met: each not attempted since the start
   * becomes due now (`retrying`, its retry policy counted afresh), the others are skipped;
   * `queued` grows by those met; when fewer than `batch` are left it ends `done` with
   * `queued` = `total`. The lease is extended to `leaseUntil`.
   */
  step(lease: RecoveryLease, now: number, batch: number, maxOutstanding: number, leaseUntil: number): Promise<RecoveryStep>;
  /** Gives the lease back (a worker stopping). */
  release(lease: RecoveryLease): Promise<void>;
  /** Ends the endpoint's running recovery as `stopped` (paused or deleted). @returns whether one was running. */
  stop(t: Tenant, endpointId: EndpointId, now: number): Promise<boolean>;
  /** Frees every lease (embedded mode at start). */
  releaseAll(): Promise<number>;
}

/** A portal link's token, as stored: only its hash, with what it opens. */
export interface PortalToken {
  /** SHA-256 of the token (hex); the token itself is never stored. */
  hash: string;
  tenant: Tenant;
  consumerId: ConsumerId;
  /** The only origin that may frame the page; null: none may. */
  frameOrigin: string | null;
  locale: 'ja' | 'en' | null;
  createdAt: number;
  expiresAt: number;
}

/** Portal link tokens: made by the gateway, checked by the portal on every request. */
export interface PortalTokenRepo {
  create(token: PortalToken): Promise<void>;
  /** The token with this hash, expired or not (the portal says which), or null. */
  find(hash: string): Promise<PortalToken | null>;
  /** Removes tokens that expired before `before`. @returns how many. */
  deleteExpired(before: number, batch: number): Promise<number>;
}
