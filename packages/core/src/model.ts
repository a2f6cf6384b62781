import type { CompatSignature } from './compat-signature.ts';
import type { PlanName } from './plans.ts';
import type { RetryPolicy } from './retry-policy.ts';
import type { Environment, Scope } from './secrets.ts';
import type { AttemptId, ConsumerId, DeliveryId, EndpointId, KeyId, MessageId, OrgId, RecoveryId } from './ids.ts';

// Domain records as the store hands them out. The API's JSON shapes are made from these
// by the gateway's presenters; store documents never leave their adapter.

/** The org and environment every tenant-owned record and store call is scoped to. */
export interface Tenant {
  orgId: OrgId;
  env: Environment;
}

/** One key per tenant, `<org id>/<environment>`: what a tenant's shares, turns and caps are counted under (and a dispatch job's header). */
export function tenantKey(tenant: { orgId: string; env: string }): string {
  return `${tenant.orgId}/${tenant.env}`;
}

export interface Org {
  id: OrgId;
  name: string;
  plan: PlanName;
  ownerEmail: string | null;
  createdAt: number;
}

export interface ApiKey {
  id: KeyId;
  orgId: OrgId;
  env: Environment;
  scopes: Scope[];
  createdAt: number;
  revokedAt: number | null;
  expiresAt: number | null;
}

export interface Consumer {
  id: ConsumerId;
  externalId: string;
  name: string | null;
  createdAt: number;
  endpointCount: number;
}

export const ENDPOINT_STATUSES = ['active', 'paused', 'disabled'] as const;

/** How an endpoint orders its deliveries: `key` sends one delivery at a time per `ordering_key`. */
export const ENDPOINT_ORDERINGS = ['none', 'key'] as const;
export type EndpointOrdering = (typeof ENDPOINT_ORDERINGS)[number];
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

/**
 * `http`: webhooks are POSTed to its URL. `listen`: a listener endpoint, registered by a
 * developer's `wirehook listen` connection; its webhooks go over that connection.
 */
export const ENDPOINT_TYPES = ['http', 'listen'] as const;
export type EndpointType = (typeof ENDPOINT_TYPES)[number];

export interface Endpoint {
  id: EndpointId;
  consumerId: ConsumerId;
  url: string;
  description: string | null;
  /** null: every event type. */
  eventTypes: string[] | null;
  fixedIp: boolean;
  status: EndpointStatus;
  disabledReason: string | null;
  failingSince: number | null;
  createdAt: number;
  retry: RetryPolicy;
  compatSignature: CompatSignature | null;
  /**
   * `key`: deliveries of messages sharing an ordering key go one at a time, in acceptance order.
   * Every store returns it; optional so an endpoint made before ordered delivery (and a test's) reads as `none`.
   */
  ordering?: EndpointOrdering;
  /** Deliveries per second at most; null (or absent): no limit. */
  rateLimit?: number | null;
  /** Unix ms until which the receiver asked (429/503 with Retry-After) that nothing be sent; null (or absent): not held. */
  heldUntil?: number | null;
  /** Absent (an endpoint made before listener endpoints, a test's): `http`. */
  type?: EndpointType;
  /** Headers sent with every webhook to it (the API's `headers`); null (or absent): none. */
  headers?: EndpointHeaders | null;
  /** The client certificate it is sent with (mutual TLS; the API's `tls`); null (or absent): none. */
  tls?: EndpointTls | null;
  /** The OAuth 2.0 client credentials a token is fetched with (the API's `auth`); null (or absent): none. */
  auth?: EndpointAuth | null;
  /** The JavaScript run on each webhook before it is sent (the API's `transformation`); null (or absent): none. */
  transformation?: EndpointTransformation | null;
}

/** An endpoint's transformation as stored (issue 45; endpoint-transformation.ts): the code, whether it runs, the code's hash. */
export interface EndpointTransformation extends TransformationRef {
  code: string;
}

/**
 * What a claimed delivery's job carries of its endpoint's transformation: not the code (up to
 * 32 KB, read once per change by each dispatcher, by its hash), only whether it runs and which.
 */
export interface TransformationRef {
  /** False: kept, not run (webhooks go as if there were none). */
  enabled: boolean;
  /** SHA-256 of the code's UTF-8, hex: which code, so a dispatcher's copy is known current. */
  sha256: string;
}

/** How an OAuth 2.0 client authenticates to its token endpoint (RFC 6749 §2.3.1). */
export const OAUTH_TOKEN_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'] as const;
export type OAuthTokenAuthMethod = (typeof OAUTH_TOKEN_AUTH_METHODS)[number];

/**
 * An endpoint's OAuth 2.0 client credentials as stored (RFC 6749 §4.4): the client secret sealed,
 * bound to the endpoint id; the rest public (the API shows it).
 */
export interface EndpointAuth {
  type: 'oauth2_client_credentials';
  tokenUrl: string;
  clientId: string;
  /** The client secret, sealed by the SecretBox, bound to the endpoint id. */
  sealedSecret: string;
  scope: string | null;
  audience: string | null;
  tokenAuthMethod: OAuthTokenAuthMethod;
}

/** An endpoint's client certificate (mutual TLS) as stored: the key sealed, the rest public. */
export interface EndpointTls {
  /** PEM of the client certificate (with its chain, if given). */
  certificate: string;
  /** PEM of its private key, sealed by the SecretBox, bound to the endpoint id. */
  sealedKey: string;
  /** PEM of CA certificates trusted for this endpoint besides the public roots; null: the public roots alone. */
  serverCa: string | null;
  /** What the API shows, read from the certificates when they were set. */
  info: EndpointTlsInfo;
}

export interface EndpointTlsInfo {
  subject: string;
  issuer: string;
  /** Unix ms: the certificate's notAfter. */
  notAfter: number;
  /** SHA-256 of the certificate's DER, colon-separated upper-case hex (as openssl prints it). */
  fingerprintSha256: string;
  /** The subject of the first `serverCa` certificate; null without one. */
  serverCaSubject: string | null;
}

/**
 * An endpoint's custom headers as stored: the values sealed together (they may be credentials),
 * and what the API shows of each, so a read never opens them.
 */
export interface EndpointHeaders {
  /** The JSON of `{ lower-case name: value }`, sealed by the SecretBox, bound to the endpoint id. */
  sealed: string;
  /** Lower-case name → `…` and the value's last 4 characters (`…` alone for a value shorter than 12). */
  shown: Record<string, string>;
}

/** A signing secret as stored: sealed by a SecretBox, valid until `expiresAt` (null: no end). */
export interface StoredSecret {
  sealed: string;
  createdAt: number;
  expiresAt: number | null;
}

export interface EventType {
  name: string;
  description: string | null;
  archivedAt: number | null;
  createdAt: number;
  /** The event catalog (issue 45): the payload's JSON Schema (draft 2020-12); null: none. Absent on a list's items. */
  schema: Record<string, unknown> | null;
  /** Up to 5 example payloads, each valid against the schema. */
  examples: unknown[];
  /** `enforce`: POST /v1/messages refuses a payload the schema does not take. */
  validation: 'none' | 'enforce';
  deprecated: boolean;
  /** 1 at create; one more each time the schema changes (the earlier ones are kept: versions). */
  version: number;
  /** When the description, schema, examples, validation or deprecated last changed (Unix ms). */
  updatedAt: number;
  /** When `version` became current (the create, or the PATCH that changed the schema). */
  versionAt: number;
  /** One more on every change: what an update compares, so two PATCHes never both apply to one state. */
  rev: number;
}

/** An event type as a list gives it: without its schema and examples (up to ~144 KB each). */
export type EventTypeSummary = Omit<EventType, 'schema' | 'examples'> & { hasSchema: boolean };

/** An earlier schema of an event type: the one its `version` had until `retiredAt`. */
export interface EventTypeVersion {
  version: number;
  schema: Record<string, unknown> | null;
  /** When this version became current (the event type's create, or the PATCH that set it). */
  createdAt: number;
  /** When the next version replaced it. */
  retiredAt: number;
}

/** Status of a delivery, and of a message (derived from its deliveries). */
export const DELIVERY_STATUSES = ['pending', 'retrying', 'success', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface Message {
  id: MessageId;
  consumerId: ConsumerId;
  eventType: string;
  /** The payload's JSON text, exactly as it is put into the webhook body. */
  payload: string;
  idempotencyKey: string | null;
  /** The lane this message's deliveries join on endpoints with `ordering: key`; null (or absent): unordered. */
  orderingKey?: string | null;
  createdAt: number;
  /** Derived from the deliveries by `messageStatus` and kept up to date by the store. */
  status: DeliveryStatus;
}

export interface Delivery {
  id: DeliveryId;
  messageId: MessageId;
  endpointId: EndpointId;
  /** The endpoint URL when the delivery was made (kept after the endpoint changes or goes). */
  url: string;
  status: DeliveryStatus;
  /** Every attempt made, manual re-sends included. */
  attemptCount: number;
  /** Attempts made under the retry policy (manual re-sends excluded). */
  policyAttempts: number;
  /** When the next attempt is due; null when none is scheduled (success, failed). */
  nextAttemptAt: number | null;
  /** The next attempt is a manual re-send (POST /v1/deliveries/{id}/retry). */
  manual: boolean;
  createdAt: number;
  /** The lane (its message's ordering key) when the delivery is ordered; null (or absent) otherwise. */
  orderingKey?: string | null;
  /** Its place in the lane: 1 for the lane's first message, +1 per message after; null (or absent) when unordered. */
  sequence?: number | null;
  /** Waiting behind an earlier open delivery of its lane (the store's lane_wait); absent: not read. */
  laneWait?: boolean;
  /** Held while its endpoint is paused or disabled (the store's held); absent: not read. */
  held?: boolean;
}

export const RECOVERY_STATUSES = ['running', 'done', 'stopped'] as const;
export type RecoveryStatus = (typeof RECOVERY_STATUSES)[number];

/** A bulk re-send of an endpoint's failed deliveries (spec: Recovery). */
export interface Recovery {
  id: RecoveryId;
  endpointId: EndpointId;
  /** Messages created at or after this are targeted. */
  since: number;
  status: RecoveryStatus;
  /** Deliveries targeted: those that had ended `failed` when it started (a snapshot). */
  total: number;
  /** Of `total`, how many have been gone through (re-queued, or skipped when no longer failed). */
  queued: number;
  createdAt: number;
  finishedAt: number | null;
}

export const ATTEMPT_VIA = ['direct', 'relay', 'listen'] as const;
export type AttemptVia = (typeof ATTEMPT_VIA)[number];

export interface Attempt {
  id: AttemptId;
  deliveryId: DeliveryId;
  endpointId: EndpointId;
  at: number;
  responseStatus: number | null;
  responseHead: string | null;
  durationMs: number;
  error: string | null;
  via: AttemptVia;
  sourceIp: string | null;
  /**
   * The URL it was sent to: its endpoint's at that moment (a PATCH of the endpoint's url
   * changes the next attempt's, never a recorded one). Null for attempts recorded before
   * attempts kept their URL (SQLite schema 15; MongoDB documents without the field).
   */
  url: string | null;
}

/**
 * A message's status from its deliveries: work still under way wins (retrying, then
 * pending), then failure, then success. A message with no delivery is a success: there
 * was nothing to deliver and nothing failed.
 */
export function messageStatus(deliveries: readonly { status: DeliveryStatus }[]): DeliveryStatus {
  const has = (s: DeliveryStatus) => deliveries.some((d) => d.status === s);
  if (has('retrying')) return 'retrying';
  if (has('pending')) return 'pending';
  if (has('failed')) return 'failed';
  return 'success';
}
