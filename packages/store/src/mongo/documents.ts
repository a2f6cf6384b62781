import type {
  AttemptVia,
  CompatSignature,
  DeliveryStatus,
  EndpointAuth,
  EndpointTransformation,
  EndpointOrdering,
  EndpointStatus,
  EndpointTls,
  EndpointType,
  PlanName,
  RecoveryStatus,
  RetryPolicy,
  Scope,
  StatsErrorKind,
} from '@wirehook/core';
import type { TenantFields } from './tenant-fields.ts';

// The documents the Mongo adapter stores, one collection per aggregate. Ids are the domain's
// prefixed ids (plain strings here; the mappers brand them). These types never leave the
// adapter: every repo maps them to the domain records of @wirehook/core.

export type { TenantFields } from './tenant-fields.ts';

/** `orgs`: one per org; not tenant-owned. */
export interface OrgDoc {
  _id: string;
  name: string;
  plan: PlanName;
  ownerEmail: string | null;
  createdAt: number;
}

/** `api_keys`: found by the hash of the key, never its clear text. */
export interface ApiKeyDoc extends TenantFields {
  _id: string;
  keyHash: string;
  scopes: Scope[];
  createdAt: number;
  revokedAt: number | null;
  expiresAt: number | null;
}

/** `consumers`: unique by (orgId, env, externalId). */
export interface ConsumerDoc extends TenantFields {
  _id: string;
  externalId: string;
  name: string | null;
  createdAt: number;
  /** Kept by endpoint create and delete in their transactions; the cap is checked against it. */
  endpointCount: number;
}

/** A signing secret inside its endpoint document. */
export interface SecretDoc {
  sealed: string;
  createdAt: number;
  expiresAt: number | null;
}

/** An endpoint with its signing secrets (oldest first), one aggregate in one document. */
export interface EndpointDoc extends TenantFields {
  _id: string;
  consumerId: string;
  url: string;
  description: string | null;
  eventTypes: string[] | null;
  fixedIp: boolean;
  status: EndpointStatus;
  disabledReason: string | null;
  failingSince: number | null;
  createdAt: number;
  retry: RetryPolicy;
  compatSignature: CompatSignature | null;
  /** Ordered delivery; absent on documents made before it (read as `none`). */
  ordering?: EndpointOrdering;
  /** Bumped by a repair of its stranded deliveries (stranded.ts), so a racing pause or delete conflicts with it. */
  strandedRepairs?: number;
  /** Bumped by a write that must conflict with any other write of the endpoint (retryNow: a delete racing it); older sends bumped it too. */
  heldWrites?: number;
  /** Deliveries per second at most; null or absent (made before): no limit. */
  rateLimit?: number | null;
  /** Unix ms until which a receiver's Retry-After holds every send; null or absent: not held. */
  heldUntil?: number | null;
  /** `listen`: a listener endpoint; absent on documents made before listener endpoints (read as `http`). */
  type?: EndpointType;
  /**
   * Custom headers: `sealed` (the values, sealed for the endpoint id) and `shown` as [name,
   * redacted value] pairs — never names as field names: a header name may hold `.` or start
   * with `$`, which MongoDB reads as paths and operators. null: none. Absent on documents made
   * before custom headers (read as null).
   */
  headers?: EndpointHeadersDoc | null;
  /**
   * The client certificate (mutual TLS): core's EndpointTls as is (`certificate`, `sealedKey`
   * sealed for the endpoint id, `serverCa`, `info`) — every field name is ours, none a user's.
   * null: none. Absent on documents made before client certificates (read as null).
   */
  tls?: EndpointTls | null;
  /**
   * OAuth client credentials: core's EndpointAuth as is (`sealedSecret` sealed for the endpoint id;
   * every field name ours). null: none. Absent on documents made before them (read as null).
   */
  auth?: EndpointAuth | null;
  /** The transformation: core's EndpointTransformation as is. null: none; absent on documents made before them. */
  transformation?: EndpointTransformation | null;
  secrets: SecretDoc[];
}

/** An event type; `_id` is left to the driver (an ObjectId), the name is unique per tenant. */
export interface EventTypeDoc extends TenantFields {
  name: string;
  description: string | null;
  archivedAt: number | null;
  createdAt: number;
  /**
   * The catalog (absent on documents made before it: no schema, no examples, none, not
   * deprecated, version 1). The schema and examples are kept as JSON text: a JSON Schema's keys
   * (`$schema`, `$ref`, `$defs`) would be field names starting with `$` in a document.
   */
  schemaJson?: string | null;
  examplesJson?: string;
  validation?: 'none' | 'enforce';
  deprecated?: boolean;
  version?: number;
  updatedAt?: number;
  /** When `version` became current. */
  versionAt?: number;
  /** One more on every change: an update's compare-and-set. */
  rev?: number;
}

/** `event_type_versions`: an earlier schema of an event type (unique by tenant, name and version). */
export interface EventTypeVersionDoc extends TenantFields {
  name: string;
  version: number;
  schemaJson: string | null;
  createdAt: number;
  retiredAt: number;
}

/**
 * `messages`: what a message is and where its deliveries stand. The payload (up to 1 MB) is
 * kept apart in `message_bodies`: every completion writes this document (its counts), and
 * MongoDB writes a whole document anew on each update.
 */
export interface MessageDoc extends TenantFields {
  _id: string;
  consumerId: string;
  /** Copied from the consumer (external ids never change) so the list's `q` can match it. */
  consumerExternalId: string;
  eventType: string;
  /** Only on documents written before payloads moved to `message_bodies` (read from there first). */
  payload?: string;
  idempotencyKey: string | null;
  /** The lane its ordered deliveries join; absent on documents made before (read as null). */
  orderingKey?: string | null;
  createdAt: number;
  /** core's messageStatus of its deliveries, derived from `counts` by the same write that moves them. */
  status: DeliveryStatus;
  /** Its deliveries by status; absent on documents written before (recounted on their next change). */
  counts?: StatusCounts;
  /** Bumped by every recount, so concurrent recounts of one message conflict (message-status.ts). */
  statusVersion?: number;
  /**
   * Each delivery's status by its id, with the attempt count that set it (a completion's,
   * written after its commit: a later count wins, an equal one does not); `counts` and `status`
   * are derived from it by the same write. Absent on messages written before (recounted).
   */
  statuses?: Record<string, StatusEntry>;
}

/** A delivery's entry in its message's `statuses`: its status, and its attempt count then. */
export interface StatusEntry {
  s: DeliveryStatus;
  v: number;
}

/** How many of a message's deliveries are in each status. */
export type StatusCounts = Record<DeliveryStatus, number>;

/** `message_bodies`: a message's payload, written once with the message and never updated. */
export interface MessageBodyDoc extends TenantFields {
  _id: string;
  payload: string;
}

/** `deliveries`: one per message and matching endpoint; the dispatcher's queue. */
export interface DeliveryDoc extends TenantFields {
  _id: string;
  messageId: string;
  endpointId: string;
  url: string;
  status: DeliveryStatus;
  attemptCount: number;
  policyAttempts: number;
  nextAttemptAt: number | null;
  manual: boolean;
  /** Held by a dispatcher until then; null when free. */
  leaseUntil: number | null;
  /**
   * When it may be claimed: `nextAttemptAt` while free, `leaseUntil` while leased (a leased
   * delivery leaves the due index's head by its key, and is due again if its dispatcher dies).
   * Only open deliveries carry a meaningful one; the due indexes hold open ones only.
   */
  dueAt: number | null;
  /**
   * Held by an endpoint that is not active (paused): out of the due index, so sweeps do not walk
   * it. Absent on documents made before the flag (treated as false once migrated at start).
   */
  held?: boolean;
  /** The fence: every claim adds one; completions and releases act only with the current value (absent: never claimed). */
  leaseToken?: number;
  /** A manual re-send was asked for while the delivery was being sent: its completion keeps it due. */
  resend?: boolean;
  /**
   * Set by a completion's transaction, cleared once its message's `statuses` has the result
   * (message-status.ts, settleMessageStatus): a process that dies in between leaves it for
   * the repair (repairMessageStatuses) to find.
   */
  messageStale?: boolean;
  /** The lane (its message's ordering key) of an ordered delivery; null or absent otherwise. */
  orderingKey?: string | null;
  /** Its place in the lane, from 1; null or absent when not ordered. */
  sequence?: number | null;
  /** Waiting behind its lane's head: out of the due indexes (ordered-lanes.ts). Absent on documents made before (set false at start). */
  laneWait?: boolean;
  createdAt: number;
  /** Time of the latest attempt (for the message list without reading attempts); null before the first. */
  lastAttemptAt: number | null;
}

/** `attempts`: one per send of a delivery. */
export interface AttemptDoc extends TenantFields {
  _id: string;
  deliveryId: string;
  endpointId: string;
  at: number;
  responseStatus: number | null;
  responseHead: string | null;
  durationMs: number;
  error: string | null;
  via: AttemptVia;
  sourceIp: string | null;
  /** Absent on attempts recorded before attempts kept their URL (read as null). */
  url?: string | null;
}

/** A usage counter; `expiresAt` is a Date so a TTL index removes it once it is over. */
export interface CounterDoc {
  _id: string;
  value: number;
  expiresAt: Date;
}

/**
 * One document per tenant and Idempotency-Key (`_id` = `orgId:env:key`). Every message
 * create with the key writes it, so two racing creates with one key conflict and the
 * transaction that retries sees the winner's message. TTL-removed once the window is over.
 */
export interface IdempotencyKeyDoc {
  _id: string;
  messageId: string;
  createdAt: number;
  expiresAt: Date;
}

/** A key ring's check value (see SealingRepo); `_id` is the key id. */
export interface KeyCheckDoc {
  _id: string;
  sealed: string;
  createdAt: number;
}

/** A named job lease (job-lease-repo.ts); `_id` is the job's name. */
export interface JobLeaseDoc {
  _id: string;
  holder: string;
  /** When the lease ends, by the server's clock (`takenAt + leaseMs`; a process's own clock on a lease an earlier release wrote). */
  leaseUntil: number;
  /** When it was taken or renewed, by the server's clock (job leases; missing on one an earlier release wrote). */
  takenAt?: number;
  /** Its length as its holder took it: trusted only while `leaseUntil` is `takenAt + leaseMs` (an earlier release rewrites the end alone). */
  leaseMs?: number;
  /** The backlog count's lease only: its takes, numbered (backlog-read.ts). */
  seq?: number;
}

/**
 * One endpoint's attempts completed in [at, at + grainMs) (endpoint-stats-repo.ts); `_id` is
 * `endpointId:grainMs:at`. Counts are only ever `$inc`ed; `latency` holds a count per
 * LATENCY_BOUNDS_MS bucket that has one, by the bucket's index. Removed by the retention
 * job's prune once `expiresAt` (Unix ms) has passed.
 */
export interface EndpointRollupDoc extends TenantFields {
  _id: string;
  endpointId: string;
  grainMs: number;
  at: number;
  expiresAt: number;
  attempts: number;
  /** Absent until the first success (likewise each error class and latency bucket). */
  succeeded?: number;
  errors?: Partial<Record<StatsErrorKind, number>>;
  latency?: Record<string, number>;
}

/**
 * `delivery_lanes`: one ordered lane, `_id` `endpointId:orderingKey` (ordered-lanes.ts):
 * the last sequence handed out and the head, the one delivery of the lane that may be claimed.
 */
export interface DeliveryLaneDoc extends TenantFields {
  _id: string;
  endpointId: string;
  orderingKey: string;
  lastSequence: number;
  headId: string | null;
  /** Bumped by a recovery that queues a delivery behind the head, so a racing hand-over conflicts with it. */
  rejoins?: number;
  /** The creation of its last joining message (pruneLanes); absent on lanes made before (set at start). */
  lastUsedAt?: number;
}

/**
 * `due_endpoints`: the due queue's endpoint level (delivery-claim.ts), `_id` the endpoint's id.
 * `dueAt` is at most the earliest `dueAt` of the endpoint's deliveries in the due index
 * (lowered with `$min` by whoever makes one due, raised only by a sweep that read the
 * endpoint's first entry); DUE_NEVER when it has none.
 */
export interface DueEndpointDoc extends TenantFields {
  /** `<month>:<endpointId>` (dueEntryId): one entry per endpoint and month of its deliveries. */
  _id: string;
  endpointId: string;
  /** The month (`YYYYMM`) whose `deliveries_<month>` the entry stands for. */
  month: string;
  dueAt: number;
  /**
   * The sweeps' writes of the bound (takes and moves), counted: a sweep's compare-and-set on a bound it read before
   * another sweep took the entry and moved it back to the same value fails on it. Absent until the first.
   */
  seq?: number;
}

/**
 * `due_tenants`: the due queue's tenant level (delivery-claim.ts), `_id` the tenant (`tenantKey`).
 * `dueAt` is at most the least `dueAt` of the tenant's `due_endpoints` entries once no sweep is
 * settling it (lowered with `$min` after an entry is lowered; raised only by a sweep's
 * compare-and-set on the value it read, then mended by its second read of the lowest entry:
 * settleTenant); the document goes when a sweep finds the tenant without entries.
 */
export interface DueTenantDoc extends TenantFields {
  _id: string;
  dueAt: number;
}

/** `meta`: the store's own facts; `_id: 'schema'` holds the layout version (open-mongo-store.ts). */
export interface MetaDoc {
  _id: string;
  version?: number;
  at?: number;
  /** `_id: 'months'`: the months whose collections exist, `YYYYMM` (month-buckets.ts). */
  months?: string[];
  /** `_id: 'months'`: the month whose bucket is the single collections of layouts before 4 (connection.ts, legacyMonth). */
  legacyMonth?: string;
  /** `_id: 'backlog'`: the last shared count of the store's backlog (backlog-read.ts). */
  due?: number;
  oldestDueAt?: number | null;
  retrying?: number;
  countedAt?: number;
  /** `_id: 'backlog'`: the take of the count's lease it came from (backlog-read.ts). */
  seq?: number;
  /** `_id: 'schema'`: an upgrade under way, its layouts and each batched step's last _id done (layout-upgrade.ts, UpgradeProgress). */
  upgrade?: { from: number; to: number; holder?: string; after: Record<string, string> };
  /** `_id: 'heal:due'` and `'heal:tenants'`: where the healer's walk goes on, shared by every dispatcher (heal-cursors.ts). */
  cursor?: string;
}

/** An address of the fixed IP pool as last seen (egress-ip-repo.ts); `_id` is the address. Not tenant-owned. */
export interface EgressIpDoc {
  _id: string;
  family: 4 | 6;
  addedAt: number;
  retiringAt: number | null;
}

/** A change of the fixed IP pool whose notices are being queued (egress-ip-repo.ts). Not tenant-owned. */
export interface EgressChangeDoc {
  _id: string;
  at: number;
  added: string[];
  retiring: string[];
  retiringAt: number | null;
  /** The last organization told; null before the first. */
  cursor: string | null;
  done: boolean;
  /** Only on the `pool-version` document every sync bumps (egress-ip-repo.ts). */
  version?: number;
}

/** A recovery; its targets are read from the deliveries as it goes (recovery-repo.ts). */
export interface RecoveryDoc extends TenantFields {
  _id: string;
  endpointId: string;
  since: number;
  status: RecoveryStatus;
  total: number;
  queued: number;
  /** Where its walk through the endpoint's failed deliveries is: the last target's createdAt and id (absent: none yet). */
  cursorCreatedAt?: number | null;
  cursorId?: string | null;
  createdAt: number;
  finishedAt: number | null;
  lastBatchAt: number | null;
  leaseUntil: number | null;
  leaseToken: number;
}

/**
 * An endpoint's walk (endpoint-walk.ts): a hold or release of its open deliveries, and a fail
 * of those created before `failBefore`, done batch by batch. Keyed by the endpoint's id.
 */
export interface EndpointWalkDoc extends TenantFields {
  _id: string;
  hold: 'hold' | 'release' | null;
  heldSince: number | null;
  failBefore: number | null;
  /**
   * The old end of a Retry-After hold ended early: what it put off beyond the first
   * PUT_OFF_BATCH, due at exactly this time, is made due a batch at a time (absent: none).
   */
  putOffUntil?: number | null;
  /**
   * The old ends of further Retry-After holds ended while the walk had `putOffUntil`'s rest to
   * do, each done after it in turn (hold-ends.ts: at most HOLD_ENDS_KEPT in all; absent: none).
   */
  putOffMore?: number[] | null;
  /**
   * The endpoint stopped ordering (`ordering: none`) with more of its lanes to let go of than the
   * request's batch: the rest are let go of a batch at a time while it still does not order (absent: none).
   */
  unlane?: boolean | null;
  /** The month (`YYYYMM`) the walk has reached, oldest first (absent: it starts at the oldest retained). */
  month?: string | null;
  /** Bumped by every batch, so two writers of one walk conflict. */
  version?: number;
}

/**
 * A walk an endpoint's resume or delete asked to run again later (held-recheck.ts): keyed by
 * the endpoint's id, started once `at` has passed.
 */
export interface EndpointRecheckDoc extends TenantFields {
  _id: string;
  /** When the walk runs again (ms, the scheduling process's clock). */
  at: number;
  /** The release's bound as the resume recorded it (held since then: due; before: failed); null for a delete's. */
  heldSince: number | null;
  /** A delete's: the walk fails what is left open instead of releasing it. */
  fail: boolean;
}

/** A portal link token by its hash; `expiresAtDate` feeds the TTL index. */
export interface PortalTokenDoc extends TenantFields {
  _id: string;
  consumerId: string;
  frameOrigin: string | null;
  locale: 'ja' | 'en' | null;
  createdAt: number;
  expiresAt: number;
  expiresAtDate: Date;
}

// The alerting engine's documents.
export type * from './alert-documents.ts';

/** An endpoint's custom headers as stored (see EndpointDoc.headers). */
export interface EndpointHeadersDoc {
  sealed: string;
  shown: [name: string, shown: string][];
}
