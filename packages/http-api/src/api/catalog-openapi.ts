// The event catalog as an OpenAPI 3.1 document a customer can generate receiver types from:
// one `webhooks` entry per event type, its request body the webhook envelope with the event
// type's schema as `data`, its examples, and the Standard Webhooks headers. Read 50 event types a
// store call; the document holds them all — bounded by MAX_EVENT_TYPES (1,000) an environment.
import type { EventType, Tenant } from '@wirehook/core';
import type { Store } from '@wirehook/store';

type Json = Record<string, unknown>;

/** Event types read per store call. */
const PAGE = 50;
/** Most bytes of schemas and examples the document holds; past it, event types are listed without them. */
export const CATALOG_EXPORT_MAX_BYTES = 16 * 1024 * 1024;

export async function catalogOpenApi(store: Store, t: Tenant): Promise<Json> {
  const webhooks: Json = {};
  const schemas: Json = {};
  const taken = new Set<string>();
  const operationIds = new Set<string>();
  let bytes = 0;
  let left = 0;
  for (let after: string | null = null; ; ) {
    const page: EventType[] = await store.eventTypes.page(t, after, PAGE);
    for (const e of page) {
      const key = componentKey(e.name, taken);
      // A bounded document: past CATALOG_EXPORT_MAX_BYTES an event type is listed without its schema and examples.
      const size = Buffer.byteLength(JSON.stringify(e.schema) ?? '') + Buffer.byteLength(JSON.stringify(e.examples));
      const whole = bytes + size <= CATALOG_EXPORT_MAX_BYTES;
      if (whole) bytes += size;
      else left++;
      const shown = whole ? e : { ...e, schema: null, examples: [] };
      if (shown.schema !== null) schemas[key] = rebase(shown.schema, `#/components/schemas/${key}`) as Json;
      webhooks[e.name] = {
        post: operation(shown, shown.schema === null ? null : key, componentKey(`on_${e.name.replace(/[^A-Za-z0-9_]/g, '_')}`, operationIds)),
      };
    }
    if (page.length < PAGE) break;
    after = page.at(-1)!.name;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Webhooks',
      version: '1',
      description:
        'The webhooks this sender delivers, one per event type. Each is a signed POST (Standard Webhooks): verify webhook-signature over the raw body ' +
        'with your endpoint’s secret before parsing it.' +
        (left > 0
          ? ` ${left} event types are listed without their schemas (the document is kept under 16 MB): read them with GET /v1/event-types/{name}.`
          : ''),
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    // Webhooks are sent to each endpoint's own URL: this server stands for the receiver's.
    servers: [{ url: 'https://receiver.example', description: 'Your endpoint: webhooks go to the URL you registered' }],
    webhooks,
    components: { schemas, parameters: HEADERS },
  };
}

function operation(e: EventType, schemaKey: string | null, operationId: string): Json {
  const data =
    schemaKey === null ? { description: 'The payload (no schema is registered for this event type).' } : { $ref: `#/components/schemas/${schemaKey}` };
  const examples = Object.fromEntries(
    e.examples.map((example, i) => [`example${i + 1}`, { value: { type: e.name, timestamp: '2026-01-01T09:30:00.000Z', data: example } }]),
  );
  return {
    operationId,
    // No credentials: a receiver checks webhook-signature (HMAC of the body with its endpoint's secret).
    security: [],
    summary: e.description ?? e.name,
    ...(e.deprecated ? { deprecated: true } : {}),
    parameters: ['WebhookId', 'WebhookTimestamp', 'WebhookSignature'].map((p) => ({ $ref: `#/components/parameters/${p}` })),
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['type', 'timestamp', 'data'],
            properties: {
              type: { const: e.name },
              timestamp: { type: 'string', format: 'date-time', description: 'When the message was created (ISO 8601 UTC)' },
              data,
            },
          },
          ...(e.examples.length > 0 ? { examples } : {}),
        },
      },
    },
    responses: { '200': { description: 'Received: answer any 2xx within 15 seconds; anything else is retried' } },
  };
}

const header = (name: string, description: string, example: string): Json => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
  example,
});

const HEADERS: Json = {
  WebhookId: header('webhook-id', 'The message id: the same on every retry (deduplicate on it)', 'msg_01JH4Z6Q8R2W7X3Y5Z9A0B1C2D'),
  WebhookTimestamp: header('webhook-timestamp', 'Unix seconds when this attempt was signed', '1767259801'),
  WebhookSignature: header('webhook-signature', 'Space-separated v1,<base64 HMAC-SHA256> signatures', 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4='),
};

/** A component name for `name` (letters, digits, `.`, `-`, `_`), unique in the document. */
function componentKey(name: string, taken: Set<string>): string {
  const base = name.replace(/[^A-Za-z0-9._-]/g, '_');
  let key = base;
  for (let n = 2; taken.has(key); n++) key = `${base}_${n}`;
  taken.add(key);
  return key;
}

/** `schema` with its local references (`#/$defs/x`) pointing into its new place in the document. */
function rebase(schema: unknown, at: string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => rebase(s, at));
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && v.startsWith('#') ? `${at}${v.slice(1)}` : rebase(v, at)]),
  );
}
