// docs/openapi.json describes what Wirehook sends as well as what it answers: its `webhooks`
// section is checked against a real delivery (headers by their schemas, body by WebhookEvent,
// the signature as described), its example is a request @wirehook/receiver accepts, and every
// operation carries generated curl and TypeScript samples that say what the operation is. (That
// the TypeScript samples type-check against the packed client: test/packages/install.test.ts.)
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verify } from '@wirehook/receiver';
import { eventually, type RecordedRequest } from '@wirehook/testkit';
import { startWirehook, type Harness } from '../support/harness.ts';
import { type NamedReceiver, reachingReceivers, startReceiver } from '../support/receivers.ts';

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  schema: Record<string, unknown>;
  example: string;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: { 'application/json': { schema: { $ref: string }; example: unknown } } };
  responses: Record<string, unknown>;
  'x-codeSamples'?: { lang: string; label: string; source: string }[];
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Record<string, Operation>>;
  components: Record<string, unknown>;
}

const doc = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as Doc;
const webhook = doc.webhooks['message']!['post']!;

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
ajv.addSchema({ $id: 'doc', components: doc.components });

/** What is wrong with `value` by `schema` (inline, or a $ref into the document); empty when nothing is. */
function problems(schema: Record<string, unknown>, value: unknown): string[] {
  const ref = schema['$ref'];
  const validate = ajv.compile(typeof ref === 'string' ? { $ref: `doc${ref}` } : schema);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

describe('the webhooks section', () => {
  let wh: Harness;
  let rx: NamedReceiver;
  let secret: string;
  let delivered: RecordedRequest;
  let ordered: RecordedRequest;

  beforeAll(async () => {
    wh = await startWirehook(await reachingReceivers());
    rx = await startReceiver();
    const t = await wh.tenant({ plan: 'starter' });
    const consumer = await t.api.post('/v1/consumers', { external_id: 'acme' });
    secret = (await t.api.post('/v1/endpoints', { consumer_id: consumer.body.id, url: rx.url() })).body.secret;
    const sent = await t.api.post('/v1/messages', { consumer: 'acme', event_type: 'invoice.paid', payload: { invoice: 1001, amount: 4200, note: 'ünïcode' } });
    delivered = await eventually(() => {
      const found = rx.receiver.requests.find((r) => r.headers['webhook-id'] === sent.body.id);
      expect(found).toBeDefined();
      return found!;
    });
    // An ordered delivery: an endpoint with ordering key, a message with an ordering_key.
    const globex = await t.api.post('/v1/consumers', { external_id: 'globex' });
    await t.api.post('/v1/endpoints', { consumer_id: globex.body.id, url: rx.url('/ordered'), ordering: 'key' });
    const sentOrdered = await t.api.post('/v1/messages', {
      consumer: 'globex',
      event_type: 'invoice.paid',
      payload: { invoice: 1002 },
      ordering_key: 'invoice-1002',
    });
    ordered = await eventually(() => {
      const found = rx.receiver.requests.find((r) => r.headers['webhook-id'] === sentOrdered.body.id);
      expect(found).toBeDefined();
      return found!;
    });
  });
  afterAll(async () => {
    await wh?.close();
    await rx?.receiver.close();
  });

  it('is a POST of JSON with every documented header, each as its schema says', () => {
    expect(delivered.method).toBe('POST');
    expect(delivered.headers['content-type']).toBe('application/json');
    const headers = webhook.parameters!.filter((p) => p.in === 'header' && p.required);
    expect(headers.map((h) => h.name).sort()).toEqual(['user-agent', 'webhook-id', 'webhook-signature', 'webhook-timestamp']);
    for (const h of headers) {
      expect(delivered.headers[h.name], h.name).toBeDefined();
      expect(problems(h.schema, delivered.headers[h.name]), h.name).toEqual([]);
    }
  });

  it('documents the two headers only an ordered delivery carries, each as its schema says', () => {
    const optional = webhook.parameters!.filter((p) => p.in === 'header' && !p.required);
    expect(optional.map((h) => h.name).sort()).toEqual(['webhook-ordering-key', 'webhook-sequence']);
    for (const h of optional) {
      expect(delivered.headers[h.name], `${h.name} on an unordered delivery`).toBeUndefined();
      expect(problems(h.schema, ordered.headers[h.name]), h.name).toEqual([]);
    }
    expect(ordered.headers['webhook-ordering-key']).toBe('invoice-1002');
    expect(ordered.headers['webhook-sequence']).toBe('1');
  });

  it('carries the body the WebhookEvent schema describes, and a tampered one fails its schema', () => {
    const schema = webhook.requestBody!.content['application/json'].schema;
    expect(schema.$ref).toBe('#/components/schemas/WebhookEvent');
    const body = JSON.parse(delivered.body) as Record<string, unknown>;
    expect(problems(schema, body)).toEqual([]);
    expect(Object.keys(body)).toEqual(['type', 'timestamp', 'data']); // "in this key order"
    expect(problems(schema, { ...body, extra: 1 })).not.toEqual([]);
    expect(problems(schema, { type: 'a.b', data: 1 })).not.toEqual([]);
  });

  it('is signed as described: v1, base64 HMAC-SHA256 of {webhook-id}.{webhook-timestamp}.{body} with the whsec_ key', async () => {
    const { createHmac } = await import('node:crypto');
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const h = delivered.headers;
    const expected = createHmac('sha256', key).update(`${h['webhook-id']}.${h['webhook-timestamp']}.`).update(delivered.rawBody).digest('base64');
    expect(h['webhook-signature']).toBe(`v1,${expected}`);
    expect(verify(delivered.rawBody, h, secret).event).toEqual(JSON.parse(delivered.body));
  });

  it("its example is a request @wirehook/receiver accepts with the Standard Webhooks test vector's secret", () => {
    const headers = Object.fromEntries(webhook.parameters!.map((p) => [p.name, p.example]));
    const body = JSON.stringify(webhook.requestBody!.content['application/json'].example);
    const now = () => Number(headers['webhook-timestamp']) * 1000;
    const verified = verify(body, headers, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', { now });
    expect(verified).toMatchObject({ id: headers['webhook-id'], event: { type: 'invoice.paid' } });
    expect(problems(webhook.requestBody!.content['application/json'].schema, verified.event)).toEqual([]);
  });

  it('documents what an answer means: 2xx delivered, 4xx and 5xx failed attempts', () => {
    expect(Object.keys(webhook.responses).sort()).toEqual(['2XX', '4XX', '5XX']);
  });
});

describe('x-codeSamples', () => {
  const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

  it('every operation has a curl sample and a @wirehook/client sample', () => {
    expect(operations.length).toBeGreaterThan(20);
    for (const { op } of operations) {
      expect(
        (op['x-codeSamples'] ?? []).map((s) => `${s.lang} ${s.label}`),
        op.operationId,
      ).toEqual(['Shell curl', 'TypeScript @wirehook/client']);
    }
  });

  it('each curl sample sends the operation: its method, its path with ids filled in, its example body, the key', () => {
    for (const { path, method, op } of operations) {
      const source = op['x-codeSamples']![0]!.source;
      const line = /^curl -X (\w+) "\$WIREHOOK_URL([^"]+)"/.exec(source);
      expect(line?.[1], op.operationId).toBe(method.toUpperCase());
      // Ids filled in as ids; an event type's {name} as a name.
      const filled = path.replace('{name}', '[a-z]+\\.[a-z]+').replace(/\{[^}]+\}/g, '[a-z]+_[0-9A-Z]{26}');
      expect(line?.[2], op.operationId).toMatch(new RegExp(`^${filled}$`));
      expect(source).toContain('-H "Authorization: Bearer $WIREHOOK_API_KEY"');
      const data = /-d '(.*)'$/m.exec(source)?.[1];
      const example = op.requestBody?.content['application/json'].example;
      expect(data === undefined ? undefined : JSON.parse(data.replaceAll("'\\''", "'")), op.operationId).toEqual(example);
    }
  });
});

describe('webhooks.failureNotice', () => {
  const notice = doc.webhooks['failureNotice']!['post']!;
  const schema = notice.requestBody!.content['application/json'].schema;

  it('its example is a notice @wirehook/receiver accepts, and matches AlertNotice', () => {
    const headers = Object.fromEntries(notice.parameters!.map((p) => [p.name, p.example]));
    const body = JSON.stringify(notice.requestBody!.content['application/json'].example);
    const verified = verify(body, headers, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', { now: () => Number(headers['webhook-timestamp']) * 1000 });
    expect(verified.id).toMatch(/^ntc_/);
    expect(problems(schema, verified.event)).toEqual([]);
  });

  it("its timestamp is a delivery's ISO 8601 string: Unix milliseconds fail the schema", () => {
    const example = notice.requestBody!.content['application/json'].example as Record<string, unknown>;
    expect(problems(schema, { ...example, timestamp: Date.UTC(2026, 0, 1) })).not.toEqual([]);
    expect(problems(schema, example)).toEqual([]);
  });
});
