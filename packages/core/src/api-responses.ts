import { z } from 'zod';
import { STATS_ERROR_KINDS, STATS_WINDOWS } from './endpoint-stats.ts';
import { ERROR_STATUS } from './errors.ts';
import { ID_PREFIX, type IdKind } from './ids.ts';
import { ATTEMPT_VIA, DELIVERY_STATUSES, ENDPOINT_ORDERINGS, ENDPOINT_STATUSES, ENDPOINT_TYPES, RECOVERY_STATUSES } from './model.ts';
import { compatSignatureSchema } from './compat-signature.ts';
import { endpointHeadersShown } from './endpoint-headers.ts';
import { endpointTransformationShown } from './endpoint-transformation.ts';
import { endpointAuthShown } from './endpoint-auth.ts';
import { endpointTlsShown } from './endpoint-tls.ts';
import { jsonValue, retryPolicySchema } from './schemas.ts';

// Every response body of the public API, as zod schemas: the gateway's presenters are typed
// by them, and the OpenAPI document is generated from them (with the request schemas in
// schemas.ts), so the document, the code and the client's types have one source.

// Each field's `examples` (zod metadata, into the document's JSON Schema): the reference page
// builds its response samples from them, so they show ids and times as Wirehook gives them.
const EXAMPLE_MS = Date.UTC(2026, 0, 1, 9, 30);
const EXAMPLE_ID_BODY: Partial<Record<IdKind, string>> = {
  consumer: '01JH4Z3A7K2M3N4P5Q6R7S8T9V',
  endpoint: '01JH4Z5K2M3N4P5Q6R7S8T9V0W',
  message: '01JH4Z6Q8R2W7X3Y5Z9A0B1C2D',
  delivery: '01JH4Z6Q8S3X8Y4Z6A0B1C2D3E',
  attempt: '01JH4Z6R1T4Y9Z5A7B1C2D3E4F',
  recovery: '01JH4Z7S2V5Z0A6B8C2D3E4F5G',
  alertTarget: '01JH4Z8T3W6A1B7C9D3E4F5G6H',
};
/** An id of `kind` (`ep_…`), with an example. */
const idOf = (kind: IdKind, description = `${ID_PREFIX[kind]}…`) =>
  z
    .string()
    .describe(description)
    .meta({ examples: [`${ID_PREFIX[kind]}${EXAMPLE_ID_BODY[kind]}`] });
/** A URL of a customer's endpoint, with an example. */
const endpointUrl = (description = 'the endpoint’s URL') =>
  z
    .string()
    .describe(description)
    .meta({ examples: ['https://hooks.globex.example/wirehook'] });
const externalId = () =>
  z
    .string()
    .describe("the sender's own id for the customer")
    .meta({ examples: ['customer-42'] });
const eventType = () =>
  z
    .string()
    .describe('the event type')
    .meta({ examples: ['invoice.paid'] });

const unixMs = (description: string) =>
  z
    .number()
    .int()
    .describe(`${description} (Unix milliseconds)`)
    .meta({ examples: [EXAMPLE_MS] });
const nullableUnixMs = (description: string) => unixMs(description).nullable();

export const errorResponse = z
  .object({
    error: z.enum(Object.keys(ERROR_STATUS) as [keyof typeof ERROR_STATUS]).describe('the error code'),
    message: z.string().describe('what was wrong, in words a person understands'),
  })
  .describe('The body of every error response.');

export const consumerResponse = z.object({
  id: idOf('consumer'),
  external_id: externalId(),
  name: z
    .string()
    .nullable()
    .meta({ examples: ['Globex'] }),
  created_at: unixMs('when it was created'),
  endpoint_count: z.number().int(),
});

export const endpointResponse = z.object({
  id: idOf('endpoint'),
  consumer_id: idOf('consumer', 'the consumer it belongs to (con_…)'),
  url: endpointUrl(),
  description: z.string().nullable(),
  event_types: z.array(z.string()).nullable().describe('null: every event type'),
  fixed_ip: z.boolean().describe('sent from the fixed source addresses (the egress relay)'),
  type: z
    .enum(ENDPOINT_TYPES)
    .describe('http: webhooks are POSTed to url; listen: a `wirehook listen` connection receives them (url is where the CLI forwards them)'),
  status: z.enum(ENDPOINT_STATUSES),
  disabled_reason: z.string().nullable().describe('why Wirehook stopped the endpoint, when disabled'),
  failing_since: nullableUnixMs('since when its deliveries fail'),
  created_at: unixMs('when it was created'),
  retry: retryPolicySchema,
  compat_signature: compatSignatureSchema.nullable(),
  headers: endpointHeadersShown,
  tls: endpointTlsShown,
  auth: endpointAuthShown,
  transformation: endpointTransformationShown,
  ordering: z.enum(ENDPOINT_ORDERINGS).describe('key: deliveries of messages sharing an ordering_key go one at a time, in acceptance order'),
  rate_limit: z
    .number()
    .int()
    .nullable()
    .describe('deliveries per second at most, over any one-second window (first attempts, retries and recovery together); null: no limit'),
});

/** An endpoint's throughput now, on GET /v1/endpoints/{id}. */
export const endpointThroughputResponse = z
  .object({
    rate_limit: z.number().int().nullable().describe('the endpoint’s rate_limit (deliveries per second); null: none'),
    concurrency: z
      .number()
      .int()
      .nullable()
      .describe(
        'sends in flight allowed at once, cut by the receiver’s 429, 503 and timeouts and grown back by its successes; null: not cut (its connection slots)',
      ),
    in_flight: z.number().int().describe('sends to the endpoint in flight now, across dispatchers'),
    held_until: nullableUnixMs('until when the receiver’s Retry-After (on a 429 or 503) holds every send; null: not held'),
  })
  .describe('How fast Wirehook sends to the endpoint now.');

export const signingSecret = z
  .string()
  .describe('whsec_… — shown only here; give it to the customer')
  .meta({ examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] });

export const endpointWithSecretResponse = endpointResponse
  .extend({ secret: signingSecret })
  .describe('An endpoint with its signing secret, returned once at creation.');

export const attemptResponse = z.object({
  id: idOf('attempt'),
  at: unixMs('when the attempt was made'),
  response_status: z.number().int().nullable().describe("the receiver's HTTP status; null when none came"),
  response_head: z.string().nullable().describe("the start of the receiver's response"),
  duration_ms: z.number(),
  error: z.string().nullable().describe('why the attempt failed, e.g. "timeout: no response within 15 s"'),
  via: z.enum(ATTEMPT_VIA),
  source_ip: z
    .string()
    .nullable()
    .meta({ examples: ['203.0.113.7'] }),
  url: endpointUrl().nullable().describe('the URL this attempt was sent to (the endpoint’s at the time); null for attempts recorded before Wirehook kept it'),
});

export const recoveryResponse = z.object({
  id: idOf('recovery'),
  endpoint_id: idOf('endpoint'),
  since: unixMs('messages created at or after it are targeted'),
  status: z.enum(RECOVERY_STATUSES),
  total: z.number().int().describe('deliveries to re-send'),
  queued: z.number().int().describe('queued so far'),
  created_at: unixMs('when it started'),
  finished_at: nullableUnixMs('when it finished'),
});

export const endpointDetailResponse = endpointResponse.extend({
  recent: z.array(attemptResponse).describe('the latest attempts to this endpoint, newest first'),
  retrying_count: z.number().int(),
  recovery: recoveryResponse.nullable().describe('the latest recovery, or null'),
  throughput: endpointThroughputResponse,
});

/** PATCH /v1/endpoints/{id}: the endpoint as changed, with its throughput now. */
export const endpointUpdatedResponse = endpointResponse.extend({ throughput: endpointThroughputResponse });

/** An event type in a list: its catalog entry without the schema and examples (GET /v1/event-types/{name} has them). */
export const eventTypeSummaryResponse = z.object({
  name: eventType(),
  description: z
    .string()
    .nullable()
    .meta({ examples: ['An invoice was paid'] }),
  archived_at: nullableUnixMs('when it was archived'),
  validation: z.enum(['none', 'enforce']).describe('enforce: a message whose payload does not match the schema is refused (422)'),
  deprecated: z.boolean(),
  version: z.number().int().describe('1 at registration; one more each time the schema changes'),
  has_schema: z.boolean().describe('whether it has a schema (GET /v1/event-types/{name} returns it)'),
  updated_at: unixMs('when its catalog entry last changed'),
});

/** An event type with its schema and examples. */
export const eventTypeResponse = eventTypeSummaryResponse.omit({ has_schema: true }).extend({
  schema: z.record(z.string(), z.unknown()).nullable().describe('the payload’s JSON Schema (draft 2020-12); null: none'),
  examples: z.array(z.unknown()).describe('example payloads, each valid against the schema'),
});

/** GET /v1/event-types/{name}/versions: the earlier schemas, newest first. */
export const eventTypeVersionResponse = z.object({
  version: z.number().int(),
  schema: z.record(z.string(), z.unknown()).nullable(),
  created_at: unixMs('when this version became current'),
  retired_at: unixMs('when the next version replaced it'),
});

/** Why an open delivery is not being sent now; null when it is not waiting on anything. */
export const waitingOnResponse = z
  .discriminatedUnion('reason', [
    z.object({
      reason: z.literal('lane'),
      sequence: z.number().int().describe('its own place in the lane: it waits for the earlier ones of its ordering_key'),
    }),
    z.object({ reason: z.literal('hold').describe('the receiver’s Retry-After holds its endpoint (the endpoint’s throughput.held_until)') }),
    z.object({ reason: z.literal('rate_limit').describe('due, and spaced by its endpoint’s rate_limit') }),
    z.object({ reason: z.literal('paused').describe('its endpoint is paused or disabled') }),
    z.object({ reason: z.literal('concurrency').describe('due, and waiting for one of its endpoint’s connection slots') }),
  ])
  .nullable()
  .describe(
    'why the delivery, open (pending or retrying), is not being sent now; ' +
      'null when it is done or only waits for the time next_attempt_at names (docs/semantics.md: waiting_on)',
  )
  .meta({ examples: [{ reason: 'lane', sequence: 2 }] });

export const deliveryResponse = z.object({
  id: idOf('delivery', 'dlv_… — the id the retry operation takes'),
  endpoint_id: idOf('endpoint'),
  url: endpointUrl('where its next attempt goes: its endpoint’s current URL'),
  status: z.enum(DELIVERY_STATUSES),
  attempt_count: z.number().int(),
  next_attempt_at: nullableUnixMs('when the next attempt is due'),
  ordering_key: z
    .string()
    .meta({ examples: ['invoice-1001'] })
    .nullable()
    .describe("the lane's key when the delivery is ordered (its endpoint had ordering key); null otherwise"),
  sequence: z
    .number()
    .int()
    .meta({ examples: [2] })
    .nullable()
    .describe('its place in the lane (webhook-sequence): 1 for the first message, +1 per message; null when unordered'),
  waiting_on: waitingOnResponse,
  attempts: z
    .array(attemptResponse)
    .describe('its newest attempts, at most 20, oldest of them first (older ones: GET /v1/deliveries/{id}/attempts with attempts_next_cursor)'),
  attempts_next_cursor: z
    .string()
    .nullable()
    .describe('null when `attempts` holds every attempt; otherwise the cursor of GET /v1/deliveries/{id}/attempts for the attempts older than those shown'),
});

const consumerRef = z.object({
  id: idOf('consumer'),
  external_id: externalId(),
  name: z
    .string()
    .nullable()
    .meta({ examples: ['Globex'] }),
});

const messageHead = {
  id: idOf('message', 'msg_… — also the webhook-id header of every delivery'),
  event_type: eventType(),
  consumer: consumerRef,
  created_at: unixMs('when it was accepted'),
  status: z.enum(DELIVERY_STATUSES),
};

export const messageRowResponse = z.object({
  ...messageHead,
  attempts: z.object({ count: z.number().int(), last_at: nullableUnixMs('the latest attempt') }),
  endpoint_url: endpointUrl().nullable().describe("the first delivery's URL; null when it has none"),
});

export const messageDetailResponse = z.object({
  ...messageHead,
  idempotency_key: z.string().nullable(),
  ordering_key: z.string().nullable().describe('the ordering key it was sent with; null: none'),
  payload: jsonValue,
  deliveries: z.array(deliveryResponse),
});

export const sendMessageResponse = z.object({
  id: idOf('message'),
  deliveries: z.number().int().describe('deliveries created (0 when the consumer has no matching endpoint)'),
});

export const portalLinkResponse = z.object({
  url: z
    .string()
    .describe('the portal link to give the customer')
    .meta({ examples: ['https://portal.wirehook.example/#token=pl_…'] }),
  expires_at: unixMs('when the link stops working'),
});

export const rotatedSecretResponse = z.object({ secret: signingSecret });

export const transformationSimulationResponse = z
  .object({
    cancel: z.boolean().describe('true: the code returned {cancel: true}, so nothing would be sent to this endpoint'),
    request: z
      .object({
        url: z.string().describe('where it would be POSTed (the endpoint URL rules apply to a changed one)'),
        headers: z
          .record(z.string(), z.string())
          .describe(
            'the headers it would carry besides webhook-id, webhook-timestamp, webhook-signature and user-agent (made at the send): ' +
              'content-type and the custom headers as the code left them (a stored value the code was given is shown redacted, as it was given)',
          ),
        body: z.string().describe('the exact body, {type, timestamp, data} with data the returned payload (timestamp: now)'),
      })
      .nullable()
      .describe('the request that would be sent; null when cancelled or failed'),
    error: z
      .string()
      .nullable()
      .describe('why the attempt would fail (kind transformation, with line and column where known); null when it would be sent or cancelled'),
    duration_ms: z.number().int().describe('how long the run took, its wait for a sandbox included'),
  })
  .meta({
    examples: [
      {
        cancel: false,
        request: {
          url: 'https://hooks.example.com/in',
          headers: { 'content-type': 'application/json', 'x-tenant': 'cus_7' },
          body: '{"type":"invoice.paid","timestamp":"2026-11-29T12:00:00.000Z","data":{"invoiceId":"in_1"}}',
        },
        error: null,
        duration_ms: 2,
      },
    ],
  });

export const noticeAttemptResponse = z.object({
  notice_id: z.string().meta({ examples: ['ntc_3f1c2a9b8d7e4f60a1b2c3d4e5f60718'] }),
  type: z.string().meta({ examples: ['alert.delivery_failure'] }),
  at: unixMs('when it was tried'),
  response_status: z.number().int().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number(),
});

/** The three kinds of alert target, each with `extra` fields: one discriminated union. */
const alertTargetOf = <E extends z.ZodRawShape>(extra: E) =>
  z.discriminatedUnion('type', [
    z.object({
      id: idOf('alertTarget'),
      type: z.literal('webhook'),
      url: z.string().meta({ examples: ['https://alerts.acme.example/wirehook'] }),
      created_at: unixMs('when it was created'),
      ...extra,
    }),
    z.object({
      id: idOf('alertTarget'),
      type: z.literal('chat'),
      url: z.string().meta({ examples: ['https://hooks.slack.example/services/T000/B000/XXXX'] }),
      created_at: unixMs('when it was created'),
      ...extra,
    }),
    z.object({
      id: idOf('alertTarget'),
      type: z.literal('email'),
      address: z.string().meta({ examples: ['oncall@acme.example'] }),
      created_at: unixMs('when it was created'),
      ...extra,
    }),
  ]);

export const alertTargetResponse = alertTargetOf({});

export const alertTargetCreatedResponse = alertTargetOf({
  secret: signingSecret.optional().describe('webhook targets: whsec_…, shown only here'),
});

export const alertTargetDetailResponse = alertTargetOf({ recent: z.array(noticeAttemptResponse).describe('the latest notice attempts, newest first') });

/** POST /v1/alert-targets/{id}/test: the sample notice and its first try. */
export const alertTestResponse = z.object({
  notice_id: z
    .string()
    .meta({ examples: ['ntc_3f1c2a9b8d7e4f60a1b2c3d4e5f60718'] })
    .describe('the sample notice (its webhook-id for a webhook target)'),
  attempt: noticeAttemptResponse.nullable().describe('its first try, or null when the alerting engine has not tried it within 15 seconds (it still will)'),
});

const latencyMs = (what: string) =>
  z.number().int().nullable().describe(`${what} (ms; the bound of its latency-histogram bucket, at most ~41 % above the true value); null without attempts`);

/** GET /v1/endpoints/{id}/stats: an endpoint's health over a window, from rollups kept as attempts complete. */
export const endpointStatsResponse = z.object({
  endpoint_id: idOf('endpoint'),
  window: z.enum(STATS_WINDOWS),
  from: unixMs('start of the first bucket'),
  to: unixMs('end of the last bucket (the one holding now, still filling)'),
  attempts: z.number().int().describe('attempts made in the window, every try counted'),
  succeeded: z.number().int().describe('of those, answered 2xx'),
  failed: z.number().int().describe('the rest'),
  success_rate: z.number().nullable().describe('succeeded / attempts, 0 to 1; null without attempts'),
  latency_ms: z.object({ p50: latencyMs('median duration'), p95: latencyMs('95th percentile'), p99: latencyMs('99th percentile') }),
  errors: z
    .object(Object.fromEntries(STATS_ERROR_KINDS.map((k) => [k, z.number().int()])) as Record<(typeof STATS_ERROR_KINDS)[number], z.ZodNumber>)
    .describe('failed attempts by class; they add up to failed (docs/semantics.md: Endpoint stats)'),
  pending: z.number().int().describe('deliveries waiting now (pending or retrying)'),
  oldest_pending_at: nullableUnixMs('when the oldest waiting delivery was created; null when none waits'),
  series: z
    .array(
      z.object({
        at: unixMs('start of the bucket'),
        attempts: z.number().int(),
        succeeded: z.number().int(),
        failed: z.number().int(),
        p95_ms: latencyMs('the bucket’s 95th percentile'),
      }),
    )
    .describe('oldest first: 12 five-minute buckets (1h), 24 hourly (24h) or 28 six-hourly (7d); their counts add up to the totals'),
});

/** GET /v1/egress-ips: one address fixed_ip endpoints are sent from. */
export const egressIpResponse = z.object({
  ip: z.string().meta({ examples: ['203.0.113.7'] }),
  family: z.union([z.literal(4), z.literal(6)]).describe('IPv4 or IPv6'),
  retiring_at: nullableUnixMs('when a removed address stops being used for good: until then it stays listed (a notice period); null for a current one'),
});

/** `{ items, next_cursor }`: a page of a cursor-paged list. */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), next_cursor: z.string().nullable().describe('pass as cursor for the next page; null on the last') });

/** `{ items }`: a list without paging. */
export const listOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item) });

export type ConsumerResponse = z.infer<typeof consumerResponse>;
export type EndpointResponse = z.infer<typeof endpointResponse>;
export type TransformationSimulationResponse = z.infer<typeof transformationSimulationResponse>;
export type AttemptResponse = z.infer<typeof attemptResponse>;
export type RecoveryResponse = z.infer<typeof recoveryResponse>;
export type EventTypeResponse = z.infer<typeof eventTypeResponse>;
export type EventTypeSummaryResponse = z.infer<typeof eventTypeSummaryResponse>;
export type EventTypeVersionResponse = z.infer<typeof eventTypeVersionResponse>;
export type DeliveryResponse = z.infer<typeof deliveryResponse>;
export type MessageRowResponse = z.infer<typeof messageRowResponse>;
export type MessageDetailResponse = z.infer<typeof messageDetailResponse>;
export type AlertTargetResponse = z.infer<typeof alertTargetResponse>;
export type AlertTestResponse = z.infer<typeof alertTestResponse>;
export type EndpointStatsResponse = z.infer<typeof endpointStatsResponse>;
export type EgressIpResponse = z.infer<typeof egressIpResponse>;
