import { noticeTimestamp, signatureKey, standardWebhookHeaders, USER_AGENT, webhookBody } from '@wirehook/core';

type Json = Record<string, unknown>;

// The example delivery: the sendMessage example's message, signed for real with the Standard
// Webhooks test vector's secret by the same functions the dispatcher signs with.
const EXAMPLE_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const EXAMPLE_ID = 'msg_01JH4Z6Q8R2W7X3Y5Z9A0B1C2D';
const EXAMPLE_CREATED_MS = Date.UTC(2026, 0, 1, 9, 30);
const EXAMPLE_SENT_MS = EXAMPLE_CREATED_MS + 1_000;
const EXAMPLE_BODY = webhookBody('invoice.paid', EXAMPLE_CREATED_MS, JSON.stringify({ invoice: 1001, amount: 4200 }));
const EXAMPLE_HEADERS = standardWebhookHeaders([signatureKey(EXAMPLE_SECRET)], EXAMPLE_ID, EXAMPLE_SENT_MS, EXAMPLE_BODY);

// An ordered delivery's two headers (only such a delivery has them).
const ORDERED_EXAMPLE: Record<string, string> = { 'webhook-ordering-key': 'invoice-1001', 'webhook-sequence': '2' };

// The example failure notice: what the alerting engine builds for one failing endpoint.
const NOTICE_ID = 'ntc_3f1c2a9b8d7e4f60a1b2c3d4e5f60718';
const NOTICE_MS = EXAMPLE_SENT_MS + 60_000;
const NOTICE_BODY = JSON.stringify({
  type: 'alert.delivery_failure',
  timestamp: noticeTimestamp(NOTICE_MS),
  data: {
    environments: ['live'],
    endpoints: [
      {
        id: 'ep_01JH4Z5K2M3N4P5Q6R7S8T9V0W',
        url: 'https://hooks.globex.example/wirehook',
        environment: 'live',
        consumer: { external_id: 'customer-42' },
        failing_since: EXAMPLE_SENT_MS,
        last_error: 'http_status: 500',
        last_status: 500,
        message_id: EXAMPLE_ID,
        delivery_id: 'dlv_01JH4Z6Q8S3X8Y4Z6A0B1C2D3E',
      },
    ],
    summary:
      'Deliveries to an endpoint are failing:\n' +
      '- https://hooks.globex.example/wirehook (live, customer customer-42), failing since 2026-01-01T09:30:01.000Z; ' +
      'last attempt: HTTP 500 (message msg_01JH4Z6Q8R2W7X3Y5Z9A0B1C2D, delivery dlv_01JH4Z6Q8S3X8Y4Z6A0B1C2D3E)',
  },
});
const NOTICE_HEADERS = standardWebhookHeaders([signatureKey(EXAMPLE_SECRET)], NOTICE_ID, NOTICE_MS, NOTICE_BODY);

/** The body of every delivery, a component of the document (`WebhookEvent`). */
export const WEBHOOK_EVENT_SCHEMA: Json = {
  type: 'object',
  description:
    'The body of every webhook: compact JSON in this key order, the exact bytes signed. Parse it only after verifying the signature over the raw bytes.',
  properties: {
    type: { type: 'string', description: 'The message’s event type (`event_type` of the send).', examples: ['invoice.paid'] },
    timestamp: {
      type: 'string',
      format: 'date-time',
      description: 'When the message was created (ISO 8601 UTC, milliseconds): the same on every attempt and retry.',
    },
    data: { $ref: '#/components/schemas/JsonValue', description: 'The message’s payload, exactly as sent.' },
  },
  required: ['type', 'timestamp', 'data'],
  additionalProperties: false,
};

const header = (name: string, description: string, schema: Json, required = true, examples: Record<string, string | undefined> = EXAMPLE_HEADERS) => ({
  name,
  in: 'header',
  required,
  description,
  schema,
  ...(examples[name] === undefined ? {} : { example: examples[name] }),
});

/**
 * The document's `webhooks` (OpenAPI 3.1): the request Wirehook sends to an endpoint for each
 * delivery attempt — Standard Webhooks headers and signature, the `{type, timestamp, data}` body
 * — and what the endpoint's answer means.
 */
export function webhooksJson(): Json {
  return {
    message: {
      post: {
        operationId: 'receiveMessage',
        tags: ['Webhooks'],
        summary: 'A message, delivered to your customer’s endpoint',
        description: [
          'For each delivery attempt Wirehook sends one POST to the endpoint URL (https, port 443 or 8443), signed with the endpoint’s secret (`whsec_…`) ' +
            'as [Standard Webhooks](https://www.standardwebhooks.com/) specifies. ' +
            'Any Standard Webhooks library verifies it; `@wirehook/receiver` does too, and says why when it refuses one.',
          '**Signature.** `webhook-signature` holds `v1,` + base64 of HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}`, ' +
            'keyed with the base64-decoded part of the secret after `whsec_`. ' +
            'During the 24 hours after a secret rotation it holds two signatures, separated by a space (new secret first): ' +
            'accept the request when any one matches. ' +
            'Compare in constant time, over the raw body bytes, and refuse a `webhook-timestamp` more than 5 minutes from your clock (replays).',
          '**Ordered deliveries.** An endpoint with `ordering: key` delivers the messages sharing an `ordering_key` one at a time, in acceptance order; ' +
            'each such delivery also carries `webhook-ordering-key` and `webhook-sequence` (unordered deliveries have neither header).',
          '**Compatible signature.** An endpoint with `compat_signature` also gets that header (its name is configured), ' +
            'carrying `prefix` + hex or base64 of HMAC-SHA256 over the body or `{webhook-timestamp}.{body}`.',
          '**Retries.** `webhook-id` is the message id, the same on every attempt and retry of it: drop ids you have processed. ' +
            '`webhook-timestamp` is the send time of each attempt. A 2xx within 15 s ends the delivery as success; ' +
            'any other status, a redirect (never followed), a timeout or a connection failure is an attempt that failed, ' +
            'retried on the endpoint’s retry policy.',
        ].join('\n\n'),
        security: [],
        parameters: [
          header('webhook-id', 'The message id (`msg_…`): the same on every attempt. De-duplicate on it.', { type: 'string', pattern: '^msg_' }),
          header('webhook-timestamp', 'When this attempt was sent, in Unix seconds. Part of the signed content.', { type: 'string', pattern: '^[0-9]+$' }),
          header('webhook-signature', 'One or more `v1,<base64 HMAC-SHA256>` signatures, space-separated (two for 24 hours after a secret rotation).', {
            type: 'string',
            pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$',
          }),
          header('user-agent', 'Wirehook’s user agent.', { type: 'string', const: USER_AGENT }),
          header(
            'webhook-ordering-key',
            'Only on an ordered delivery (an endpoint with `ordering: key` and a message with an `ordering_key`): the message’s `ordering_key`. ' +
              'A key that is not printable ASCII, has spaces at its ends or holds a `%` is sent percent-encoded as UTF-8 (`encodeURIComponent`): ' +
              '`decodeURIComponent` of the header always gives the key.',
            { type: 'string', minLength: 1 },
            false,
            ORDERED_EXAMPLE,
          ),
          header(
            'webhook-sequence',
            'Only on an ordered delivery, with `webhook-ordering-key`: its place in the lane of that key, 1 for the first message and +1 per message. ' +
              'Delivery n+1 starts only once n has ended, so a receiver that has seen n and gets n+2 knows n+1 ended failed.',
            { type: 'string', pattern: '^[1-9][0-9]*$' },
            false,
            ORDERED_EXAMPLE,
          ),
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookEvent' }, example: JSON.parse(EXAMPLE_BODY) } },
        },
        responses: {
          '2XX': { description: 'Delivered, when it comes within 15 s: any 2xx ends the delivery as success. The first 1,024 bytes of the body are recorded.' },
          '4XX': { description: 'A failed attempt, as is any status but 2xx (and a 3xx: redirects are not followed): retried on the endpoint’s retry policy.' },
          '5XX': { description: 'A failed attempt, as is a timeout or a connection failure: retried on the endpoint’s retry policy.' },
        },
      },
    },
    failureNotice: {
      post: {
        operationId: 'receiveFailureNotice',
        tags: ['Webhooks'],
        summary: 'A failure notice, sent to your webhook alert target',
        description: [
          'When an alert condition fires (`PUT /v1/alert-conditions`), Wirehook POSTs a notice to each `webhook` alert target of the environment, ' +
            'signed like a delivery with the target’s own secret (`whsec_…`, shown when the target was made), ' +
            'so the same Standard Webhooks libraries verify it.',
          '`webhook-id` is the notice’s id (`ntc_…`), the same on every try of it. ' +
            'The body has a delivery’s envelope: `type` (`alert.…`), `timestamp` (ISO 8601 UTC, like a delivery’s) and `data`; ' +
            'the times inside `data` are Unix milliseconds, as everywhere in the API. ' +
            'A try that gets no 2xx within 10 s is repeated after 10 s, 1 min, 5 min and 30 min (a test notice is tried once).',
        ].join('\n\n'),
        security: [],
        parameters: [
          header('webhook-id', 'The notice’s id (`ntc_…`): the same on every try.', { type: 'string', pattern: '^ntc_' }, true, NOTICE_HEADERS),
          header(
            'webhook-timestamp',
            'When this try was sent, in Unix seconds. Part of the signed content.',
            { type: 'string', pattern: '^[0-9]+$' },
            true,
            NOTICE_HEADERS,
          ),
          header(
            'webhook-signature',
            '`v1,<base64 HMAC-SHA256>` with the alert target’s secret.',
            { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}$' },
            true,
            NOTICE_HEADERS,
          ),
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/AlertNotice' }, example: JSON.parse(NOTICE_BODY) } },
        },
        responses: {
          '2XX': { description: 'Received: the notice is done.' },
          default: { description: 'A failed try (as are a timeout or a connection failure): retried as described above, and listed on the target.' },
        },
      },
    },
  };
}
