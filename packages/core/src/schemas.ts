import { z } from 'zod';
import { compatSignatureSchema } from './compat-signature.ts';
import { endpointHeadersInput } from './endpoint-headers.ts';
import { endpointTransformationInput, transformationCode } from './endpoint-transformation.ts';
import { endpointAuthInput } from './endpoint-auth.ts';
import { eventTypeExamplesInput, eventTypeSchemaInput, eventTypeValidationInput } from './event-catalog.ts';
import { endpointTlsInput } from './endpoint-tls.ts';
import { DEFAULT_STATS_WINDOW, STATS_WINDOWS } from './endpoint-stats.ts';
import { endpointUrl } from './endpoint-url.ts';
import { InvalidError } from './errors.ts';
import { jsonValue } from './json-value.ts';
import { DELIVERY_FAILURE_AFTER, PENDING_RETRIES_THRESHOLDS, USAGE_THRESHOLDS } from './alert-thresholds.ts';
import {
  ENDPOINTS_PAGE_SIZE,
  MAX_IDEMPOTENCY_KEY_CHARS,
  MAX_ORDERING_KEY_CHARS,
  MAX_PAGE_SIZE,
  MAX_RATE_LIMIT,
  MAX_RETRY_SPAN_MS,
  MIN_RATE_LIMIT,
} from './limits.ts';
import { ENDPOINT_ORDERINGS } from './model.ts';
import { RETRY_COUNTS, RETRY_INTERVALS, retrySpanMs } from './retry-policy.ts';
import { requiredText, text } from './text-fields.ts';

export { endpointUrl } from './endpoint-url.ts';

// Every request body and query of the public API, as zod schemas. Types come from z.infer.
// Objects are strict: an unknown field is refused (422) rather than silently dropped, so a
// misspelt field never looks accepted.

export const eventTypeName = requiredText(100).regex(/^[A-Za-z0-9_.:-]+$/, {
  error: 'may contain only letters, digits and _ . : -',
});
export const externalId = requiredText(200);

export const retryPolicySchema = z
  .strictObject({
    count: z.literal(RETRY_COUNTS, { error: `must be one of ${RETRY_COUNTS.join(', ')}` }).describe('re-sends after the first send; 0 means none'),
    interval: z.enum(RETRY_INTERVALS, { error: `must be one of ${RETRY_INTERVALS.join(', ')}` }),
  })
  .refine((p) => retrySpanMs(p) <= MAX_RETRY_SPAN_MS, {
    error: (iss) => {
      const p = iss.input as { count: number; interval: string };
      return `count ${p.count} with interval ${p.interval} spans more than 3 days from the first send to the last re-send`;
    },
  });

/** An endpoint's `ordering`: `none` (the default) or `key`. */
export const endpointOrdering = z
  .enum(ENDPOINT_ORDERINGS, { error: 'must be none or key' })
  .describe('key: deliveries of messages with the same ordering_key are sent one at a time, in acceptance order');

/** A message's `ordering_key`: 1–200 characters, no control characters, well-formed Unicode (it is sent as a header). */
export const orderingKey = requiredText(MAX_ORDERING_KEY_CHARS)
  .regex(/^[^\p{Cc}]*$/u, { error: 'must not contain control characters' })
  // A lone surrogate (\ud800 in the JSON) is no character: it cannot be encoded into the
  // webhook-ordering-key header, so it is refused here rather than fail every send.
  .refine((key) => key.isWellFormed(), { error: 'must be well-formed Unicode (no lone surrogate such as \\ud800)' })
  .describe('the lane of an endpoint with ordering key: messages sharing it are delivered in acceptance order');

/** An endpoint's `rate_limit`: whole deliveries per second, 1–10,000; null (the default) is no limit. */
export const rateLimit = z
  .number({ error: `must be a whole number from ${MIN_RATE_LIMIT} to ${MAX_RATE_LIMIT}, or null` })
  .int({ error: `must be a whole number from ${MIN_RATE_LIMIT} to ${MAX_RATE_LIMIT}, or null` })
  .min(MIN_RATE_LIMIT, { error: `must be a whole number from ${MIN_RATE_LIMIT} to ${MAX_RATE_LIMIT}, or null` })
  .max(MAX_RATE_LIMIT, { error: `must be a whole number from ${MIN_RATE_LIMIT} to ${MAX_RATE_LIMIT}, or null` })
  .nullable()
  .describe('deliveries per second at most, over any one-second window (first attempts, retries and recovery together); null: no limit');

const eventTypeList = z
  .array(eventTypeName)
  .min(1, { error: 'must list at least one event type; use null (or omit it) for all types' })
  .max(100, { error: 'may list at most 100 event types' });

export const createConsumerBody = z.strictObject({
  external_id: externalId,
  name: text(200).optional(),
});

export const createEndpointBody = z.strictObject({
  consumer_id: requiredText(64),
  url: endpointUrl,
  event_types: eventTypeList.nullable().optional(),
  fixed_ip: z.boolean().optional(),
  description: text(200).optional(),
  retry: retryPolicySchema.optional(),
  compat_signature: compatSignatureSchema.nullable().optional(),
  ordering: endpointOrdering.optional(),
  rate_limit: rateLimit.optional(),
  headers: endpointHeadersInput.nullable().optional(),
  tls: endpointTlsInput.nullable().optional(),
  auth: endpointAuthInput.nullable().optional(),
  transformation: endpointTransformationInput.nullable().optional(),
});

export const patchEndpointBody = z.strictObject({
  url: endpointUrl.optional(),
  event_types: eventTypeList.nullable().optional(),
  status: z.enum(['active', 'paused'], { error: 'must be active or paused' }).optional(),
  // null clears it (as an event type's): GET shows `description: null` for none.
  description: text(200).nullable().optional(),
  retry: retryPolicySchema.nullable().optional(),
  compat_signature: compatSignatureSchema.nullable().optional(),
  ordering: endpointOrdering.optional(),
  rate_limit: rateLimit.optional(),
  headers: endpointHeadersInput.nullable().optional(),
  tls: endpointTlsInput.nullable().optional(),
  auth: endpointAuthInput.nullable().optional(),
  transformation: endpointTransformationInput.nullable().optional(),
  // Not among the spec's PATCH inputs: a customer who must allow-list the addresses switches it
  // (docs/semantics.md, "fixed_ip by PATCH").
  fixed_ip: z.boolean().optional(),
});

export const createEventTypeBody = z.strictObject({
  // GET /v1/event-types/openapi.json is the catalog's export: no event type may take that name.
  name: eventTypeName.refine((name) => name !== 'openapi.json', { error: 'openapi.json is reserved (GET /v1/event-types/openapi.json is the catalog export)' }),
  description: text(200).optional(),
  schema: eventTypeSchemaInput.nullable().optional(),
  examples: eventTypeExamplesInput.optional(),
  validation: eventTypeValidationInput.optional(),
  deprecated: z.boolean({ error: 'must be true or false' }).optional(),
});

/** PATCH /v1/event-types/{name}: the catalog's fields; absent ones stay. */
export const patchEventTypeBody = z.strictObject({
  description: text(200).nullable().optional(),
  schema: eventTypeSchemaInput.nullable().optional(),
  examples: eventTypeExamplesInput.optional(),
  validation: eventTypeValidationInput.optional(),
  deprecated: z.boolean({ error: 'must be true or false' }).optional(),
});

export { jsonValue } from './json-value.ts';

export const sendMessageBody = z.strictObject({
  consumer: externalId,
  event_type: eventTypeName,
  payload: jsonValue,
  ordering_key: orderingKey.optional(),
});

/**
 * POST /v1/endpoints/{id}/transformation/simulate: a webhook of `event_type` with `payload`, run
 * through `code` (else the endpoint's stored transformation), nothing sent.
 */
export const simulateTransformationBody = z.strictObject({
  event_type: eventTypeName,
  payload: jsonValue,
  code: transformationCode.optional().describe("the code to try; omitted: the endpoint's stored transformation (run even when not enabled)"),
});

/** A trial send from the portal: to one endpoint of the link's consumer. */
export const trialSendBody = sendMessageBody.omit({ consumer: true });

export const idempotencyKey = requiredText(MAX_IDEMPOTENCY_KEY_CHARS);

/**
 * A frame origin's host: DNS labels (letters, digits, inner hyphens; an IPv4 address is labels of
 * digits). Not an IPv6 address: CSP's host-source has no bracketed form, so a browser drops it
 * and frame-ancestors reads 'none' — the sender's embedding would never show.
 */
const ORIGIN_HOST = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

export const portalLinkBody = z.strictObject({
  frame_origin: text(300)
    .refine(
      (v) => {
        try {
          const u = new URL(v);
          // A host of letters, digits and hyphens (IDNs as their xn-- form) or an IPv4 address (ORIGIN_HOST):
          // the URL parser lets `*`, `;`, `,` and quotes through, which the page's Content-Security-Policy
          // would read as a wildcard (any site could frame it) or a directive of the caller's.
          return (u.protocol === 'https:' || u.protocol === 'http:') && u.origin === v.replace(/\/$/, '') && ORIGIN_HOST.test(u.hostname);
        } catch {
          return false;
        }
      },
      { error: 'must be an origin: scheme and host (and port), no path; the host a name or an IPv4 address (a page cannot name an IPv6 one as its framer)' },
    )
    .optional(),
  locale: z.enum(['ja', 'en'], { error: 'must be ja or en' }).optional(),
});

export const recoverBody = z.strictObject({
  since: z.number({ error: 'must be a Unix time in milliseconds' }).int({ error: 'must be a whole number of milliseconds' }),
});

/** A query's `limit`: a whole number from 1 to `max`. */
const limitUpTo = (max: number) =>
  z
    .string()
    .regex(/^\d+$/, { error: `must be a whole number from 1 to ${max}` })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(1, { error: `must be from 1 to ${max}` })
        .max(max, { error: `must be from 1 to ${max}` }),
    );
const limitParam = limitUpTo(MAX_PAGE_SIZE);

const timeParam = z
  .string()
  .regex(/^\d{1,15}$/, { error: 'must be a Unix time in milliseconds' })
  .transform(Number);

/** The query of a list that takes none (event types, their versions: whole lists, by name): any field is unknown. */
export const noQuery = z.strictObject({});

export const pageQuery = z.strictObject({
  cursor: requiredText(200).optional().describe("the previous page's next_cursor"),
  limit: limitParam.optional().describe(`items per page, 1 to ${MAX_PAGE_SIZE} (default 50)`),
});

export const listEndpointsQuery = z.strictObject({
  consumer_id: requiredText(64).optional().describe("only this consumer's endpoints (con_…)"),
  cursor: requiredText(200).optional().describe("the previous page's next_cursor"),
  limit: limitUpTo(ENDPOINTS_PAGE_SIZE).optional().describe(`endpoints per page, 1 to ${ENDPOINTS_PAGE_SIZE} (default ${ENDPOINTS_PAGE_SIZE})`),
});

export const listMessagesQuery = pageQuery.extend({
  status: z
    .enum(['pending', 'retrying', 'success', 'failed'], {
      error: 'must be one of pending, retrying, success, failed',
    })
    .optional()
    .describe('only messages with this status'),
  event_type: eventTypeName.optional().describe('only messages of this event type'),
  q: requiredText(256).optional().describe('part of the message id, event type, consumer external_id or Idempotency-Key'),
  since: timeParam.optional().describe('only messages created at or after it (Unix ms); with a filter and no since, the last 7 days'),
});

export type CreateConsumerBody = z.infer<typeof createConsumerBody>;
export type CreateEndpointBody = z.infer<typeof createEndpointBody>;
export type PatchEndpointBody = z.infer<typeof patchEndpointBody>;
export type CreateEventTypeBody = z.infer<typeof createEventTypeBody>;
export type PatchEventTypeBody = z.infer<typeof patchEventTypeBody>;
export type SendMessageBody = z.infer<typeof sendMessageBody>;
export type PortalLinkBody = z.infer<typeof portalLinkBody>;
export type RecoverBody = z.infer<typeof recoverBody>;
export type PageQuery = z.infer<typeof pageQuery>;
export type ListMessagesQuery = z.infer<typeof listMessagesQuery>;

/**
 * Parses `value` with `schema`.
 * @throws InvalidError naming the first offending field, e.g. "retry.count: must be one of …".
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new InvalidError(describeIssues(result.error.issues, value, what));
}

function describeIssues(issues: readonly z.core.$ZodIssue[], value: unknown, what: string): string {
  // One problem per field (the first), at most three fields.
  const seen = new Set<string>();
  const firstPerField = issues.filter((issue) => {
    const key = issue.path.join('.');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return firstPerField
    .slice(0, 3)
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') {
        const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
        return `${where}unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
      }
      if (issue.path.length === 0) {
        return issue.code === 'invalid_type' ? `${what} must be a JSON object` : `${what}: ${issue.message}`;
      }
      const message = valueAt(value, issue.path) === undefined ? 'is required' : issue.message;
      return `${issue.path.join('.')}: ${message}`;
    })
    .join('; ');
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

/** An organization's alert conditions, shared by all its targets and both environments. */
export const alertConditionsSchema = z.strictObject({
  delivery_failure: z.enum(DELIVERY_FAILURE_AFTER, { error: 'must be one of first, 5m, 15m, 60m' }),
  automatic_stop: z.boolean({ error: 'must be true or false' }),
  pending_retries: z.union(
    PENDING_RETRIES_THRESHOLDS.map((n) => z.literal(n)),
    { error: 'must be one of 100, 1000, 10000' },
  ),
  usage: z.union(
    USAGE_THRESHOLDS.map((n) => z.literal(n)),
    { error: 'must be one of 50, 80, 100' },
  ),
});
export type AlertConditions = z.infer<typeof alertConditionsSchema>;

/** PUT /v1/alert-conditions: a partial body changes only what it names. */
export const alertConditionsPatch = alertConditionsSchema.partial();

/** What an organization that never chose has. */
export const DEFAULT_ALERT_CONDITIONS: Readonly<AlertConditions> = Object.freeze({
  delivery_failure: '60m',
  automatic_stop: true,
  pending_retries: 1_000,
  usage: 80,
});

/** One e-mail address (an alert target's, an organization owner's): at most 320 characters, no line break to inject a header with. */
export const emailAddress = z.email({ error: 'must be an e-mail address' }).max(320);

/** POST /v1/alert-targets: where failure notices go. */
export const createAlertTargetBody = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('webhook'), url: endpointUrl }),
    z.strictObject({ type: z.literal('chat'), url: endpointUrl }),
    z.strictObject({ type: z.literal('email'), address: emailAddress }),
  ],
  { error: 'type: must be webhook, chat or email' },
);
export type CreateAlertTargetBody = z.infer<typeof createAlertTargetBody>;

/** GET /v1/endpoints/{id}/stats's query. */
export const endpointStatsQuery = z.strictObject({
  window: z
    .enum(STATS_WINDOWS, { error: 'must be one of 1h, 24h, 7d' })
    .default(DEFAULT_STATS_WINDOW)
    .describe('how far back: 1h (12 five-minute buckets), 24h (24 hourly, the default) or 7d (28 six-hourly)'),
});
