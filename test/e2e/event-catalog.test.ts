// The event catalog (issue 45): an event type's JSON Schema, examples, enforcement and versions
// through the API, and its OpenAPI export linted by Redocly and turned into types by
// openapi-typescript — what a customer does with it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SCHEMA_BYTES } from '@wirehook/core';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';

let wh: Harness;
let t: TestTenant;
beforeAll(async () => {
  wh = await startWirehook({ allowHosts: 'localhost' });
  t = await wh.tenant();
  await t.api.post('/v1/consumers', { external_id: 'catalog-customer' });
});
afterAll(() => wh.close());

const ORDER_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    order_id: { type: 'string' },
    items: { type: 'array', items: { $ref: '#/$defs/item' } },
  },
  required: ['order_id', 'items'],
  $defs: { item: { type: 'object', properties: { sku: { type: 'string' }, price: { type: 'number' } }, required: ['sku', 'price'] } },
};
/** `props` string properties in one definition, referred to `refs` times. */
function referredSchema(props: number, refs: number) {
  const leaf = { type: 'object', properties: Object.fromEntries(Array.from({ length: props }, (_, i) => [`p${i}`, { type: 'string' }])) };
  return { $defs: { leaf }, type: 'object', properties: Object.fromEntries(Array.from({ length: refs }, (_, i) => [`a${i}`, { $ref: '#/$defs/leaf' }])) };
}
const GOOD = { order_id: 'o_1', items: [{ sku: 'A-1', price: 9.5 }] };
const send = (event_type: string, payload: unknown) => t.api.post('/v1/messages', { consumer: 'catalog-customer', event_type, payload });
const messageCount = async () => (await t.api.get('/v1/messages?limit=100')).body.items.length as number;

describe('an enforcing event type', () => {
  it('refuses a payload that does not match with 422 naming the first failing path and rule, stores nothing, and takes a good one', async () => {
    const made = await t.api.post('/v1/event-types', { name: 'order.created', schema: ORDER_SCHEMA, examples: [GOOD], validation: 'enforce' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'order.created', version: 1, validation: 'enforce', deprecated: false, schema: ORDER_SCHEMA, examples: [GOOD] });
    const before = await messageCount();
    const bad = await send('order.created', { order_id: 'o_2', items: [{ sku: 'A-1', price: 'cheap' }] });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      error: 'invalid',
      message: "payload/items/0/price: must be number (type): the payload does not match event type order.created's schema (validation: enforce)",
    });
    const missing = await send('order.created', { items: [] });
    expect(missing.body.message).toMatch(/^payload: must have required property 'order_id' \(required\)/);
    expect(await messageCount()).toBe(before);
    expect((await send('order.created', GOOD)).status).toBe(202);
    // An event type that does not enforce (or is not registered) takes anything.
    await t.api.post('/v1/event-types', { name: 'order.noted', schema: ORDER_SCHEMA });
    expect((await send('order.noted', { anything: true })).status).toBe(202);
    expect((await send('not.registered', { anything: true })).status).toBe(202);
    expect(await messageCount()).toBe(before + 3);
  });

  it('a PATCH to enforce takes effect on the next message; back to none, the payload is taken again', async () => {
    await t.api.post('/v1/event-types', { name: 'invoice.paid', schema: { type: 'object', required: ['invoice'] } });
    expect((await send('invoice.paid', {})).status).toBe(202);
    expect((await t.api.patch('/v1/event-types/invoice.paid', { validation: 'enforce' })).status).toBe(200);
    expect((await send('invoice.paid', {})).status).toBe(422);
    await t.api.patch('/v1/event-types/invoice.paid', { validation: 'none' });
    expect((await send('invoice.paid', {})).status).toBe(202);
  });
});

describe('references (compiled as calls, each definition once)', () => {
  it('takes and enforces the schema that froze every tenant when references were copied: 200 references to 100 properties', async () => {
    const made = await t.api.post('/v1/event-types', { name: 'referred.wide', schema: referredSchema(100, 200), validation: 'enforce' });
    expect(made.status).toBe(201);
    expect((await send('referred.wide', { a0: { p0: 'x' } })).status).toBe(202);
    expect((await send('referred.wide', { a199: { p99: 1 } })).body.message).toMatch(/^payload\/a199\/p99: must be string \(type\)/);
    expect((await t.api.patch('/v1/event-types/referred.wide', { deprecated: true })).status).toBe(200);
  });
});

describe('uniqueItems (checked in linear time, not pairwise)', () => {
  it('refuses an array with an item repeated, objects in any key order, naming both; takes distinct items', async () => {
    const made = await t.api.post('/v1/event-types', { name: 'tags.set', schema: { type: 'array', uniqueItems: true }, validation: 'enforce' });
    expect(made.status).toBe(201);
    const twice = await send('tags.set', [{ a: 1, b: 2 }, [0], { b: 2, a: 1 }]);
    expect(twice.status).toBe(422);
    expect(twice.body.message).toBe(
      'payload: must NOT have duplicate items (items ## 0 and 2 are identical) (uniqueItems): ' +
        "the payload does not match event type tags.set's schema (validation: enforce)",
    );
    expect((await send('tags.set', [{ a: 1 }, { a: '1' }, [0], [1], 0, '0'])).status).toBe(202);
  });
});

describe('catalog entries', () => {
  it('a changed schema is a new version, the earlier one listed; other changes keep the version', async () => {
    await t.api.post('/v1/event-types', { name: 'user.signed_up', description: 'A user signed up', schema: { type: 'object' } });
    const deprecated = await t.api.patch('/v1/event-types/user.signed_up', { deprecated: true, description: 'Use user.created' });
    expect(deprecated.body).toMatchObject({ version: 1, deprecated: true, description: 'Use user.created' });
    const v2 = { type: 'object', required: ['user_id'] };
    expect((await t.api.patch('/v1/event-types/user.signed_up', { schema: v2 })).body).toMatchObject({ version: 2, schema: v2 });
    const versions = await t.api.get('/v1/event-types/user.signed_up/versions');
    expect(versions.body.items).toEqual([{ version: 1, schema: { type: 'object' }, created_at: expect.any(Number), retired_at: expect.any(Number) }]);
    const list = (await t.api.get('/v1/event-types')).body.items.find((e: { name: string }) => e.name === 'user.signed_up');
    expect(list).toEqual({
      name: 'user.signed_up',
      description: 'Use user.created',
      archived_at: null,
      validation: 'none',
      deprecated: true,
      version: 2,
      has_schema: true,
      updated_at: expect.any(Number),
    });
    expect((await t.api.get('/v1/event-types/no.such')).status).toBe(404);
    expect((await t.api.get('/v1/event-types/no.such/versions')).status).toBe(404);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    [
      'an example the schema refuses',
      { schema: { type: 'object', required: ['a'] }, examples: [{ b: 1 }] },
      /^examples\.0: payload: must have required property 'a'/,
    ],
    ['enforce without a schema', { validation: 'enforce' }, /^validation: enforce needs a schema/],
    ['a schema that is not JSON Schema', { schema: { type: 'no-such-type' } }, /^schema: not a JSON Schema Wirehook can use/],
    ['an unknown keyword (strict)', { schema: { type: 'object', requried: ['a'] } }, /^schema: not a JSON Schema Wirehook can use .*requried/],
    ['six examples', { schema: { type: 'object' }, examples: [{}, {}, {}, {}, {}, {}] }, /^examples: may have at most 5 examples/],
    ['the reserved name openapi.json', { name: 'openapi.json' }, /openapi\.json is reserved/],
  ])('refuses %s with 422 and stores nothing', async (_, body, message) => {
    const name = (body['name'] as string | undefined) ?? `bad.${Math.random().toString(36).slice(2, 8)}`;
    const res = await t.api.post('/v1/event-types', { name, ...body });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(message);
    expect((await t.api.get('/v1/event-types')).body.items.map((e: { name: string }) => e.name)).not.toContain(name);
  });

  it(`takes a schema of ${MAX_SCHEMA_BYTES} bytes and refuses ${MAX_SCHEMA_BYTES + 1}`, async () => {
    const sized = (bytes: number) => {
      const base = { type: 'object', description: '' };
      return { ...base, description: 'x'.repeat(bytes - Buffer.byteLength(JSON.stringify(base))) };
    };
    expect(Buffer.byteLength(JSON.stringify(sized(MAX_SCHEMA_BYTES)))).toBe(65_536);
    expect((await t.api.post('/v1/event-types', { name: 'big.fits', schema: sized(65_536) })).status).toBe(201);
    const over = await t.api.post('/v1/event-types', { name: 'big.over', schema: sized(65_537) });
    expect(over.status).toBe(422);
    expect(over.body.message).toBe('schema: must be at most 65536 bytes as JSON');
  });
});

describe('the OpenAPI export', () => {
  it('has one webhook per event type, lints clean with Redocly and gives types with openapi-typescript', async () => {
    // A name that folds onto another's operationId (order.created, order_created): each keeps one of its own.
    await t.api.post('/v1/event-types', { name: 'order_created' });
    const res = await t.api.get('/v1/event-types/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.webhooks['order.created'].post.requestBody.content['application/json'].schema.properties.data).toEqual({
      $ref: '#/components/schemas/order.created',
    });
    // The schema's own reference, rebased into the document.
    expect(doc.components.schemas['order.created'].properties.items.items).toEqual({ $ref: '#/components/schemas/order.created/$defs/item' });
    expect(doc.webhooks['user.signed_up'].post.deprecated).toBe(true);
    expect(doc.webhooks['not.registered']).toBeUndefined();
    expect([doc.webhooks['order.created'].post.operationId, doc.webhooks['order_created'].post.operationId].sort()).toEqual([
      'on_order_created',
      'on_order_created_2',
    ]);

    const dir = mkdtempSync(join(tmpdir(), 'wirehook-catalog-'));
    const file = join(dir, 'catalog.json');
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const lint = spawnSync('pnpm', ['exec', 'redocly', 'lint', file, '--format', 'stylish', '--extends', 'recommended'], {
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    expect(lint.status, `${lint.stdout}\n${lint.stderr}`).toBe(0);

    const fromClient = createRequire(new URL('../../packages/client/package.json', import.meta.url));
    const { default: openapiTS, astToString } = fromClient('openapi-typescript') as {
      default: (schema: object) => Promise<unknown>;
      astToString: (ast: unknown) => string;
    };
    const types = astToString(await openapiTS(doc));
    expect(types).toMatch(/"order\.created": \{/);
    expect(types).toMatch(/order_id: string;/);
    expect(types).toMatch(/price: number;/);
  }, 60_000);
});

describe('who may change it', () => {
  it('any key reads the catalog; a key without endpoints:write cannot change it (403)', async () => {
    const reader = await wh.key(t.orgId, { scopes: ['logs:read'] });
    expect((await reader.api.get('/v1/event-types/order.created')).status).toBe(200);
    expect((await reader.api.patch('/v1/event-types/order.created', { deprecated: true })).status).toBe(403);
  });
});
