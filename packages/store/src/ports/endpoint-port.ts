import type {
  CompatSignature,
  ConsumerId,
  Endpoint,
  EndpointHeaders,
  EndpointAuth,
  EndpointTransformation,
  EndpointId,
  EndpointOrdering,
  EndpointStatus,
  EndpointTls,
  RetryPolicy,
  StoredSecret,
  Tenant,
} from '@wirehook/core';

/**
 * Deliveries one hold's end or `rate_limit` change makes due at most, in both stores: a
 * bounded write, as every walk's batch is. The rest keep their later time (a hold lasts an hour
 * at most).
 */
export const PUT_OFF_BATCH = 1_000;

export interface EndpointPatch {
  url?: string;
  eventTypes?: string[] | null;
  status?: EndpointStatus;
  description?: string | null;
  retry?: RetryPolicy;
  compatSignature?: CompatSignature | null;
  /** `none` releases the endpoint's lanes: their waiting deliveries become claimable. */
  ordering?: EndpointOrdering;
  /** Deliveries per second at most; null clears it. */
  rateLimit?: number | null;
  /** Custom headers: the whole set replaced; null removes them. */
  headers?: EndpointHeaders | null;
  /** The client certificate (mutual TLS): replaced; null removes it. */
  tls?: EndpointTls | null;
  /** OAuth client credentials: replaced; null removes them. */
  auth?: EndpointAuth | null;
  /** The transformation: replaced; null removes it. */
  transformation?: EndpointTransformation | null;
  /** Send through the egress relay's fixed addresses from the next attempt on. */
  fixedIp?: boolean;
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
  /**
   * The Retry-After hold ends at this time (the caller's clock): `heldUntil` becomes null
   * and the deliveries it put off are due at it (a new URL, a resume). Applied when the
   * endpoint is found, whatever else the patch changes.
   */
  endHoldAt?: number;
  /**
   * With `rateLimit`: the pending deliveries the old limit spaced out become due at this
   * time, to be spaced by the new limit (or sent at once without one).
   */
  respaceAt?: number;
}

export interface EndpointRepo {
  /**
   * Creates an endpoint with its first signing secret, atomically checking the cap.
   * @throws NotFoundError when the tenant has no consumer `endpoint.consumerId`.
   * @throws InvalidError when the consumer already has `maxPerConsumer` endpoints.
   */
  create(t: Tenant, endpoint: Endpoint, secret: StoredSecret, maxPerConsumer: number): Promise<Endpoint>;
  get(t: Tenant, id: EndpointId): Promise<Endpoint | null>;
  /**
   * The endpoint's transformation with its code (what a claimed job leaves out): one point read,
   * which a dispatcher makes once per change of the code. null: no such endpoint, or none.
   */
  transformation(t: Tenant, id: EndpointId): Promise<EndpointTransformation | null>;
  /** Oldest first; all of the tenant's endpoints, or one consumer's. */
  /**
   * The tenant's endpoints (or a consumer's) by id: after `afterId`, up to `limit` (default:
   * all of a consumer's, bounded by its cap; ENDPOINTS_LIST_CAP of a tenant's on MongoDB).
   */
  list(t: Tenant, filter: { consumerId?: ConsumerId; afterId?: EndpointId; limit?: number }): Promise<Endpoint[]>;
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
  /**
   * Holds every send to the endpoint until `until` (a receiver's Retry-After): its
   * `heldUntil` becomes `until` unless it already holds longer. No-op when there is no endpoint.
   */
  hold(t: Tenant, id: EndpointId, until: number): Promise<void>;
  /** Secrets valid at `now`, newest first (the current one first). */
  secrets(t: Tenant, id: EndpointId, now: number): Promise<StoredSecret[]>;
  /**
   * Listener endpoints (`type: 'listen'`) of every tenant, by id, after `after`, at most
   * `limit`: the page of the janitor that removes listeners whose process crashed. Read by an
   * index holding listeners alone (never the http endpoints).
   */
  listeners(after: EndpointId | null, limit: number): Promise<{ tenant: Tenant; id: EndpointId }[]>;
  /**
   * Endpoints of every tenant whose client certificate expires in [from, to), by (notAfter, id)
   * after `after`, at most `limit`: the certificate-expiry notices' walk (which organizations to
   * look at; a notice's list is certificatesExpiringOf). Read from an index of endpoints with a
   * certificate by its expiry, covering: the cursor's ties by a seek of their own, then the range.
   */
  certificatesExpiring(from: number, to: number, after: ExpiryCursor | null, limit: number): Promise<ExpiryWalkRow[]>;
  /**
   * The tenant's endpoints whose client certificate expires in [from, to), by (notAfter, id), at
   * most `limit`: what one certificate-expiry notice lists. Read by an index of the tenant's
   * endpoints with a certificate by its expiry, so it reads only the tenant's certificates in the window.
   */
  certificatesExpiringOf(t: Tenant, from: number, to: number, limit: number): Promise<ExpiringCertificate[]>;
}

/** Where a walk of expiring certificates stopped. */
export interface ExpiryCursor {
  notAfter: number;
  id: EndpointId;
}

/** A step of the certificate-expiry walk: whose certificate, and when it expires. */
export interface ExpiryWalkRow {
  tenant: Tenant;
  id: EndpointId;
  notAfter: number;
}

/** An endpoint whose client certificate expires soon, with what its notice says. */
export interface ExpiringCertificate {
  tenant: Tenant;
  id: EndpointId;
  consumerId: ConsumerId;
  url: string;
  status: EndpointStatus;
  /** The endpoint's current failure streak's start (Unix ms); null: not failing. */
  failingSince: number | null;
  /** The certificate's subject, notAfter (Unix ms) and SHA-256 fingerprint. */
  subject: string;
  notAfter: number;
  fingerprintSha256: string;
}
