import { z } from 'zod';
import {
  alertNoticeSchema,
  alertTargetResponse,
  attemptResponse,
  consumerResponse,
  deliveryResponse,
  endpointResponse,
  ERROR_STATUS,
  errorResponse,
  eventTypeResponse,
  MAX_IDEMPOTENCY_KEY_CHARS,
  MAX_PAGE_SIZE,
  DEFAULT_PAGE_SIZE,
  messageRowResponse,
  noticeAttemptResponse,
  recoveryResponse,
  retryPolicySchema,
  compatSignatureSchema,
  jsonValue,
  type ErrorCode,
  UnauthorizedError,
} from '@wirehook/core';
import { codeSamples } from './code-samples.ts';
import { OPERATIONS, type Operation } from './operations.ts';
import { WEBHOOK_EVENT_SCHEMA, webhooksJson } from './webhooks.ts';

type Json = Record<string, unknown>;

/** The version of the API the document describes (the path says v1; this moves with additions). */
export const API_VERSION = '1.0.0';

const REF = (name: string) => `#/components/schemas/${name}`;

/** Response schemas that several operations share, named so the document and the client refer to them. */
const SHARED_RESPONSES: Record<string, z.ZodType> = {
  JsonValue: jsonValue,
  Error: errorResponse,
  RetryPolicy: retryPolicySchema,
  CompatSignature: compatSignatureSchema,
  Consumer: consumerResponse,
  Endpoint: endpointResponse,
  AttemptRow: attemptResponse,
  Recovery: recoveryResponse,
  Delivery: deliveryResponse,
  MessageRow: messageRowResponse,
  EventType: eventTypeResponse,
  AlertTarget: alertTargetResponse,
  NoticeAttempt: noticeAttemptResponse,
  AlertNotice: alertNoticeSchema,
};

const ERROR_MEANING: Record<ErrorCode, string> = {
  unauthorized: 'Missing, wrong, revoked or expired API key',
  plan_limit: 'A plan limit was reached',
  forbidden: 'The key lacks the scope this operation needs',
  not_found: 'Not found (or outside the retention window)',
  conflict: 'Conflicts with existing data',
  too_large: 'The request body is larger than 1.1 MB',
  invalid: 'Invalid input: the message names the field and what is allowed',
  rate_limited: "The environment's requests per minute are used up; retry after `retry-after` seconds",
  unavailable: 'A dependency is unavailable; retry later',
  internal: 'Unexpected server error',
};

const HEADERS: Json = {
  'x-request-id': {
    description:
      'The request’s id, on every response: yours when you sent an `x-request-id` of 1–128 letters, digits or `. _ : -`, else one Wirehook made. ' +
      'Quote it when asking about a request.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
  'x-ratelimit-limit': { description: 'Requests per minute allowed for the environment (all its keys together)', schema: { type: 'integer' } },
  'x-ratelimit-remaining': { description: 'Requests left in the current minute', schema: { type: 'integer' } },
  'x-ratelimit-reset': { description: 'When the current minute ends (Unix seconds)', schema: { type: 'integer' } },
  'retry-after': { description: 'Seconds until a request is allowed again', schema: { type: 'integer' } },
  'x-usage-month': { description: "The organization's live messages this month (UTC)", schema: { type: 'integer' } },
};

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
const requestIdHeader = { 'x-request-id': header('x-request-id') };
const rateLimitHeaders = {
  ...requestIdHeader,
  'x-ratelimit-limit': header('x-ratelimit-limit'),
  'x-ratelimit-remaining': header('x-ratelimit-remaining'),
  'x-ratelimit-reset': header('x-ratelimit-reset'),
};

/**
 * The OpenAPI 3.1 document of the public API, generated from the operation table and the zod
 * schemas the routes parse with and the presenters are typed by. Deterministic: the same code
 * gives the same document, byte for byte (docs/openapi.json is checked against it).
 */
export function openApiDocument(): Json {
  const components = { ...schemasOf('output', responseSchemas()), ...schemasOf('input', requestSchemas()) };
  // Any JSON value is JSON Schema's empty schema; zod's recursive union says the same at length,
  // and type generators cannot follow its self-reference.
  components['JsonValue'] = { description: 'Any JSON value: an object, array, string, number, boolean or null.' };
  components['WebhookEvent'] = WEBHOOK_EVENT_SCHEMA;
  const paths: Record<string, Record<string, Json>> = {};
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method] = operationJson(op);
  return {
    openapi: '3.1.1',
    info: {
      title: 'Wirehook API',
      version: API_VERSION,
      summary: 'Webhook delivery: signed, retried, recorded.',
      description:
        "Send messages; Wirehook delivers each as a signed HTTP POST (Standard Webhooks) to your customers' endpoints, " +
        'retries what fails and records every attempt. ' +
        'Every request carries `Authorization: Bearer sk_live_…` or `sk_test_…`; a key reads and writes only its own environment. ' +
        'Times are Unix milliseconds. Every error is `{ "error": code, "message": text }`. ' +
        'This document is served by every Wirehook at `GET /v1/openapi.json` (no key needed), and as a reference page at `/docs`.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // A placeholder: GET /v1/openapi.json replaces it with the server it is served from.
    servers: [
      {
        url: '{base_url}',
        description:
          'Your Wirehook. A placeholder in this file: the document each Wirehook serves at `GET /v1/openapi.json` names that Wirehook ' +
          '(its `API_PUBLIC_URL`, else the origin the document was asked from).',
        variables: { base_url: { default: 'http://localhost:8080', description: 'where your Wirehook’s API is reached' } },
      },
    ],
    security: [{ apiKey: [] }],
    tags: [
      { name: 'Messages', description: 'Send messages and read their deliveries and attempts.' },
      { name: 'Consumers', description: 'Your customers, and links to their settings page.' },
      { name: 'Endpoints', description: "Your customers' URLs, their signing secrets and recoveries." },
      { name: 'Event types', description: 'The registry of event types endpoints can choose from.' },
      { name: 'Alerts', description: 'Failure notifications: conditions and targets.' },
      { name: 'Webhooks', description: 'What Wirehook sends to your customers’ endpoints, and how they verify it.' },
    ],
    paths,
    webhooks: webhooksJson(),
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (`sk_live_…` or `sk_test_…`). Each operation names the scope it needs; a key without it gets 403.',
        },
      },
      headers: HEADERS,
      schemas: components,
    },
  };
}

function responseSchemas(): Record<string, z.ZodType> {
  const named: Record<string, z.ZodType> = { ...SHARED_RESPONSES };
  for (const op of OPERATIONS) if (op.success.schema) named[op.success.schema.name] ??= op.success.schema.schema;
  return named;
}

function requestSchemas(): Record<string, z.ZodType> {
  // JsonValue again: the same recursive schema, so both sides refer to one component.
  return { JsonValue: jsonValue, ...Object.fromEntries(OPERATIONS.flatMap((op) => (op.body ? [[op.body.name, op.body.schema]] : []))) };
}

/** zod → JSON Schema 2020-12 (OpenAPI 3.1's dialect), one component per name, references between them. */
function schemasOf(io: 'input' | 'output', named: Record<string, z.ZodType>): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [name, schema] of Object.entries(named)) if (!registry.has(schema)) registry.add(schema, { id: name });
  const { schemas } = z.toJSONSchema(registry, { io, uri: REF, unrepresentable: 'any', cycles: 'ref', reused: 'inline' }) as { schemas: Record<string, Json> };
  return Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, tidy(schema) as Json]));
}

/** Drops what OpenAPI does not need ($schema, $id) and the safe-integer bounds zod puts on every integer. */
function tidy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(tidy);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === '$schema' || key === '$id') continue;
    if ((key === 'minimum' || key === 'maximum') && Math.abs(v as number) === Number.MAX_SAFE_INTEGER) continue;
    out[key] = tidy(v);
  }
  return out;
}

function operationJson(op: Operation): Json {
  const scopeLine = op.scope ? `Scope: \`${op.scope}\`.` : 'Any key of the environment (no scope).';
  const parameters: Json[] = [
    ...(op.params ?? []).map((p) => ({ name: p.name, in: 'path', required: true, description: p.description, schema: { type: 'string' } })),
    ...queryParameters(op),
  ];
  if (op.idempotencyKey) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'The same key returns the same message id for 24 hours; the first message wins.',
      schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_CHARS },
    });
  }
  return {
    operationId: op.id,
    tags: [op.tag],
    summary: op.summary,
    description: [op.description, scopeLine].filter(Boolean).join('\n\n'),
    'x-scope': op.scope,
    security: [{ apiKey: op.scope ? [op.scope] : [] }],
    ...(parameters.length ? { parameters } : {}),
    ...(op.body ? { requestBody: { required: op.body.required, content: { 'application/json': media(op.body.name, op.body.example) } } } : {}),
    responses: responsesJson(op),
    'x-codeSamples': codeSamples(op),
  };
}

function queryParameters(op: Operation): Json[] {
  if (!op.query) return [];
  const schema = tidy(z.toJSONSchema(op.query, { io: 'input', unrepresentable: 'any' })) as { properties: Record<string, Json>; required?: string[] };
  return Object.entries(schema.properties).map(([name, s]) => {
    const { description, ...rest } = s;
    return {
      name,
      in: 'query',
      required: schema.required?.includes(name) ?? false,
      ...(description ? { description } : {}),
      schema: NUMERIC_QUERY[name] ?? rest,
    };
  });
}

/**
 * Query values the routes parse from digits (zod's input side is the text). Callers and
 * generated clients send numbers, so the document says what the number may be.
 */
const NUMERIC_QUERY: Record<string, Json> = {
  limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
  since: { type: 'integer', minimum: 0, maximum: 999_999_999_999_999 },
};

function responsesJson(op: Operation): Json {
  const { success } = op;
  const successHeaders = { ...rateLimitHeaders, ...Object.fromEntries((success.headers ?? []).map((h) => [h, header(h)])) };
  const responses: Json = {
    [success.status]: {
      description: success.description,
      headers: successHeaders,
      ...(success.schema ? { content: { 'application/json': media(success.schema.name, success.example) } } : {}),
    },
  };
  // A scoped route reads a JSON body whatever its method (requireScope: scope first, then the
  // body), so each can answer 413 and 422 for a body it was sent, even one it does not use.
  const scoped: ErrorCode[] = op.scope ? ['forbidden', 'too_large', 'invalid'] : [];
  const codes: ErrorCode[] = ['unauthorized', ...scoped, ...op.errors, 'rate_limited'];
  for (const code of [...new Set(codes)].sort((a, b) => ERROR_STATUS[a] - ERROR_STATUS[b])) {
    // A 401 has no environment to count against: only the request id.
    const headers =
      code === 'unauthorized' ? requestIdHeader : code === 'rate_limited' ? { ...rateLimitHeaders, 'retry-after': header('retry-after') } : rateLimitHeaders;
    responses[ERROR_STATUS[code]] = errorJson(ERROR_MEANING[code], headers, code);
  }
  responses['default'] = errorJson('Unexpected server error (500), or a dependency unavailable (503)', requestIdHeader);
  return responses;
}

function errorJson(description: string, headers?: Json, code?: ErrorCode): Json {
  const example = code && { error: code, message: ERROR_EXAMPLE[code] ?? ERROR_MEANING[code] };
  return { description, ...(headers ? { headers } : {}), content: { 'application/json': media('Error', example) } };
}

/** A JSON media type: the named component's schema, and a sample body when there is one. */
function media(schema: string, example: unknown): Json {
  return { schema: { $ref: REF(schema) }, ...(example ? { example } : {}) };
}

const ERROR_EXAMPLE: Partial<Record<ErrorCode, string>> = {
  unauthorized: new UnauthorizedError().message,
  forbidden: 'this API key lacks the scope endpoints:write',
  invalid: 'retry.count: must be one of 0, 1, 2, 3, 5, 7, 12',
  rate_limited: 'rate limit of 600 requests per minute for this environment reached; retry in 12 s',
};

/** docs/openapi.json's text: the document, two-space indented, with a final newline. */
export function openApiDocumentText(): string {
  return `${JSON.stringify(openApiDocument(), null, 2)}\n`;
}
