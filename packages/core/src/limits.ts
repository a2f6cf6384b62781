// The spec's numbers, in one place (its Limits table and the rules that carry a number).
// Services import them from here; docs/spec-map.md says, for each, where it is enforced and
// which test proves it. Tests write the spec's numbers out rather than import these, so a
// wrong value here fails them. Plans (rate limits, monthly sends) are their own table in
// plans.ts, the retry schedules in retry-policy.ts.

const MINUTE_MS = 60 * 1000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** Largest accepted request body, bytes (the spec's 1.1 MB); larger is 413. */
export const MAX_BODY_BYTES = 1_100_000;
/** Largest accepted `payload`, bytes of its JSON text (the spec's 1 MB); larger is 422. */
export const MAX_PAYLOAD_BYTES = 1_000_000;
/** Most endpoints one consumer may have (the 21st is 422). */
export const MAX_ENDPOINTS_PER_CONSUMER = 20;
/** Most event types an environment has: the catalog's export and the unpaged list stay bounded. */
export const MAX_EVENT_TYPES = 1_000;
/** Longest Idempotency-Key, characters. */
export const MAX_IDEMPOTENCY_KEY_CHARS = 256;
/** Longest `ordering_key` of a message, characters; longer is 422. */
export const MAX_ORDERING_KEY_CHARS = 200;
/**
 * Longest `webhook-ordering-key` header value a key of MAX_ORDERING_KEY_CHARS can make. A key
 * that is not plain printable ASCII goes percent-encoded (UTF-8, encodeURIComponent): one UTF-16
 * unit (what the length counts) is at most 3 UTF-8 bytes, `%XX%XX%XX`, 9 characters; a
 * surrogate pair is 4 bytes, 12 characters for 2 units. The egress relay refuses longer values.
 */
export const MAX_ORDERING_KEY_HEADER_CHARS = MAX_ORDERING_KEY_CHARS * 9;
/** How long an Idempotency-Key returns the first message. */
export const IDEMPOTENCY_WINDOW_MS = DAY_MS;
/** Test-environment sends per environment per UTC day (then 402). */
export const TEST_SENDS_PER_DAY = 1_000;
/**
 * Ours, within the spec's 1,000: portal trial sends per consumer per UTC day (then 402), so
 * one customer's links cannot spend the environment's test sends.
 */
export const TRIAL_SENDS_PER_CONSUMER_PER_DAY = 100;
/** How far back message filters look without `since`. */
export const SEARCH_WINDOW_MS = 7 * DAY_MS;
/** Page size of lists without `limit`, and the largest `limit`. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;
/**
 * GET /v1/endpoints' page: the spec shows the list whole (`{ items }`, no cursor), so a page
 * holds up to this many by default and at most — all of nearly every tenant's — with a
 * `next_cursor` for the rest.
 */
export const ENDPOINTS_PAGE_SIZE = 1_000;
/** Attempts GET /v1/endpoints/{id} shows in `recent`. */
export const RECENT_ATTEMPTS = 20;
/** How long the secrets valid at a rotation stay valid after it. */
export const OLD_SECRET_VALIDITY_MS = DAY_MS;
/** Signing secrets valid at once (ours: each adds a signature to every webhook). */
export const MAX_LIVE_SECRETS = 3;
/** An endpoint failing this long is disabled at its next failed attempt. */
export const DISABLE_AFTER_MS = 5 * DAY_MS;
/** Longest span of a retry policy, first send to last re-send. */
export const MAX_RETRY_SPAN_MS = 3 * DAY_MS;
/** Whole UTC months of messages kept by default, the current one included. */
export const DEFAULT_RETENTION_MONTHS = 3;
/** One delivery attempt's default timeout (DELIVERY_TIMEOUT_MS). */
export const ATTEMPT_TIMEOUT_MS = 15_000;

/**
 * The longest a relay call (Relay.Deliver) takes: a whole send — the wait for a connection and
 * the attempt, each bounded by the delivery timeout — and 5 s for the call. The dispatcher's
 * deadline for it, and how long a stopping relay lets the calls it holds finish (a call cut
 * short would be an attempt recorded as failed that the relay may have sent: sent again).
 */
export function relayCallMs(deliveryTimeoutMs: number): number {
  return 2 * deliveryTimeoutMs + 5_000;
}

/**
 * The most a stop waits for `wirehook listen` CLIs to answer the webhooks they hold (each also
 * ends at the attempt's own limit), unless told. Embedded mode's stop adds it to its senderStopMs:
 * its dispatcher's sends go on meanwhile, each up to 2 × the timeout after it.
 */
export const LISTEN_DRAIN_MS = 5_000;

/** How long a service's stop may take before it exits anyway (runComponents' deadline), unless it says. */
export const SERVICE_STOP_MS = 20_000;

/**
 * How long a process that sends webhooks (dispatcher, egress relay) may take to stop: its sends
 * in flight finish — a relay call the longest single step — and 5 s more; never less than every
 * other service's 20 s. Its pod's grace period (the Helm chart, the kustomize base: 5 s of preStop
 * before it, 5 to spare) and the cluster launcher's wait before SIGKILL are this and 10 s.
 */
export function senderStopMs(deliveryTimeoutMs: number): number {
  return Math.max(SERVICE_STOP_MS, relayCallMs(deliveryTimeoutMs) + 5_000);
}

/** How long embedded mode may take to stop: a sender's (senderStopMs), after `wirehook listen`'s drain (LISTEN_DRAIN_MS). */
export function embeddedStopMs(deliveryTimeoutMs: number): number {
  return senderStopMs(deliveryTimeoutMs) + LISTEN_DRAIN_MS;
}
/** Bytes of a response body kept as `response_head`. */
export const RESPONSE_HEAD_BYTES = 1024;

/** How long a portal link opens the page (spec: Create a portal link). */
export const PORTAL_LINK_TTL_MS = 15 * 60 * 1000;

/**
 * How long an expired link's token is kept (the page then says "expired", 410, rather than "not a
 * link"): an hour, as MongoDB's TTL index keeps it (`portal_tokens_ttl`); retention removes older ones.
 */
export const PORTAL_TOKEN_KEPT_AFTER_EXPIRY_MS = 60 * 60 * 1000;
// Changed, MongoDB's TTL index would no longer match its definition (every start: IndexOptionsConflict):
// a new value needs a collMod of portal_tokens_ttl's expireAfterSeconds in the release's migration.

/** Requests a minute one portal link's consumer may make (its own budget, apart from the sender's). */
export const PORTAL_REQUESTS_PER_MINUTE = 300;

/** The spec's recovery pace: a recovery queues this many deliveries ... */
export const RECOVERY_BATCH = 50;
/** ... every this long. */
export const RECOVERY_INTERVAL_MS = 10_000;
/**
 * Most deliveries one transaction of an endpoint's walk changes (the bookkeeping a pause,
 * resume, disable or delete leaves: holding, releasing or failing its open deliveries). A
 * request does the first batch (on MongoDB a smaller one: its REQUEST_WALK_BATCH); the
 * dispatchers' walk job does the rest, batch by batch, so
 * no call and no transaction grows with an endpoint's backlog.
 */
export const ENDPOINT_WALK_BATCH = 1_000;

/** Lowest and highest `rate_limit` of an endpoint, deliveries per second; outside is 422. */
export const MIN_RATE_LIMIT = 1;
export const MAX_RATE_LIMIT = 10_000;
/** The window a `rate_limit` counts over: any such span (sliding, not calendar seconds) holds at most the limit. */
export const RATE_LIMIT_WINDOW_MS = 1_000;
/** Longest hold a receiver's `Retry-After` (on a 429 or 503) puts on its endpoint; longer is cut to this. */
export const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;
/**
 * Ours: a manual retry (API, portal, MCP) is refused with 409 `conflict` once its delivery
 * has this many attempts (a send in flight counted): what a caller can add to one delivery's
 * history. The default policy makes 8; the retry schedule may still add its own after it.
 */
export const MAX_ATTEMPTS_FOR_MANUAL_RETRY = 100;
/** Ours: the newest attempts a Delivery shows in `attempts`; older ones are paged (GET /v1/deliveries/{id}/attempts). */
export const DELIVERY_ATTEMPTS_SHOWN = 20;
