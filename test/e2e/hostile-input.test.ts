// Property-based: malformed ids, bodies, headers and query values thrown at every route of
// the public API never get a 5xx, and every error is the spec's `{ error, message }` body.
// fast-check shrinks a failure to the smallest request that shows it; the seed is fixed so
// a run can be repeated, and the run count is bounded so the file takes seconds.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';

const SPEC_ERRORS = ['invalid', 'unauthorized', 'forbidden', 'not_found', 'conflict', 'too_large', 'plan_limit', 'rate_limited'];
let wh: Harness;
let t: TestTenant;
let ids: Record<string, string>;

beforeAll(async () => {
  wh = await startWirehook();
  t = await wh.tenant();
  const consumer = (await t.api.post('/v1/consumers', { external_id: 'hostile' })).body.id;
  const endpoint = (await t.api.post('/v1/endpoints', { consumer_id: consumer, url: 'https://localhost:8443/hook' })).body.id;
  const message = (await t.api.post('/v1/messages', { consumer: 'hostile', event_type: 'a.b', payload: {} })).body.id;
  const delivery = (await t.api.get(`/v1/messages/${message}`)).body.deliveries[0].id;
  ids = { consumer, endpoint, message, delivery };
});
afterAll(() => wh.close());

/** Every route of the API, with the kind of id its path takes. */
const ROUTES: [method: string, path: string, id?: keyof typeof ids][] = [
  ['GET', '/v1/consumers'],
  ['POST', '/v1/consumers'],
  ['POST', '/v1/consumers/{id}/portal', 'consumer'],
  ['GET', '/v1/endpoints'],
  ['POST', '/v1/endpoints'],
  ['GET', '/v1/endpoints/{id}', 'endpoint'],
  ['PATCH', '/v1/endpoints/{id}', 'endpoint'],
  ['DELETE', '/v1/endpoints/{id}', 'endpoint'],
  ['POST', '/v1/endpoints/{id}/rotate-secret', 'endpoint'],
  ['GET', '/v1/event-types'],
  ['POST', '/v1/event-types'],
  ['POST', '/v1/messages'],
  ['GET', '/v1/messages'],
  ['GET', '/v1/messages/{id}', 'message'],
  ['POST', '/v1/deliveries/{id}/retry', 'delivery'],
];

/** Path ids: real ones bent, lone surrogates, bad percent-encodings, traversal, junk. */
const hostileId = (real: string) =>
  fc.oneof(
    fc.constantFrom('%ED%A0%80', '%E0%A4%A', '%', '%%', '%zz', '..%2F..', '%2e%2e', '%00', '%C0%AE', '%F4%90%80%80', 'x%FFy'),
    fc.string({ unit: 'binary', maxLength: 40 }).map(encodeURIComponent),
    fc.string({ maxLength: 30 }).map((s) => `${real.slice(0, 4)}${encodeURIComponent(s)}`),
    fc.constant(real.toLowerCase()),
    fc.constant(`${real}%ED%A0%80`),
    fc.string({ unit: 'grapheme', maxLength: 60 }).map(encodeURIComponent),
  );

const hostileBody = fc.oneof(
  fc.constant(undefined),
  fc.json({ maxDepth: 3 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.constantFrom('{', '[]', 'null', '"x"', '{"payload":', '{"url":"https://\u0000"}', '\uFEFF{}'),
  fc
    .dictionary(
      fc.constantFrom(
        'consumer',
        'event_type',
        'payload',
        'url',
        'consumer_id',
        'event_types',
        'retry',
        'status',
        'external_id',
        'name',
        'compat_signature',
        'description',
        'fixed_ip',
      ),
      fc.anything({ maxDepth: 2 }),
      { maxKeys: 6 },
    )
    .map((o) => JSON.stringify(o)),
);

const hostileQuery = fc.oneof(
  fc.constant(''),
  fc
    .dictionary(fc.constantFrom('limit', 'cursor', 'status', 'event_type', 'q', 'since', 'consumer_id', 'x'), fc.string({ unit: 'binary', maxLength: 30 }), {
      maxKeys: 4,
    })
    .map(
      (o) =>
        `?${Object.entries(o)
          .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
          .join('&')}`,
    ),
  fc.constantFrom('?limit=-1', '?limit=1e400', '?cursor=%ED%A0%80', '?since=NaN', '?q=%', '?limit=1&limit=2', '?%ZZ=1'),
);

const hostileHeaders = fc.record(
  {
    'content-type': fc.constantFrom('application/json', 'text/plain', 'application/json; charset=utf-16', 'application/x-www-form-urlencoded', ''),
    'idempotency-key': fc.string({ maxLength: 300 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
  },
  { requiredKeys: [] },
);

describe('hostile input on every route', () => {
  it('never answers 5xx, and every error is { error, message } with a spec error code', async () => {
    const request = fc.constantFrom(...ROUTES).chain((route) =>
      fc.record({
        route: fc.constant(route),
        id: hostileId(ids[route[2] ?? 'message']!),
        query: hostileQuery,
        body: hostileBody,
        headers: hostileHeaders,
      }),
    );
    await fc.assert(
      fc.asyncProperty(request, fc.context(), async ({ route: [method, template], id, query, body, headers }, ctx) => {
        const path = template.replace('{id}', id) + query;
        const res = await fetch(wh.url + path, {
          method,
          headers: { authorization: `Bearer ${t.key}`, ...headers },
          body: method === 'GET' || method === 'DELETE' || body === undefined ? undefined : String(body),
        });
        const text = await res.text();
        ctx.log(`${method} ${path} → ${res.status} ${text.slice(0, 200)}`);
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) {
          const parsed = JSON.parse(text) as Record<string, unknown>;
          expect(Object.keys(parsed).sort()).toEqual(['error', 'message']);
          expect(SPEC_ERRORS).toContain(parsed['error']);
          expect(typeof parsed['message']).toBe('string');
        }
      }),
      { numRuns: 600, seed: 20261123 },
    );
  }, 120_000);

  it.each([
    ['GET', '/v1/messages/%ED%A0%80'],
    ['DELETE', '/v1/endpoints/%ED%A0%80'],
    ['POST', '/v1/deliveries/%ED%A0%80/retry'],
    ['GET', '/v1/endpoints/%E0%A4%A'],
    ['PATCH', '/v1/endpoints/%'],
    ['POST', '/v1/consumers/%ED%A0%80/portal'],
  ])('%s %s (a malformed percent-encoding) is 404 not_found', async (method, path) => {
    const res = await t.api.request(method, path, method === 'PATCH' ? {} : undefined);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', message: expect.any(String) });
  });
});

describe('JSON bodies and headers as senders write them', () => {
  const send = (body: string | Buffer, headers: Record<string, string> = {}) =>
    fetch(`${wh.url}/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json', ...headers },
      body: new Uint8Array(typeof body === 'string' ? Buffer.from(body) : body),
    });
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('a payload nested 128 levels deep is taken; 129 or 3,000 deep (6 KB) is 422, not a 500', async () => {
    expect((await send(`{"consumer":"hostile","event_type":"deep","payload":${nested(128)}}`)).status).toBe(202);
    for (const depth of [129, 3_000]) {
      const res = await send(`{"consumer":"hostile","event_type":"deep","payload":${nested(depth)}}`);
      expect({ status: res.status, body: await res.json() }).toEqual({
        status: 422,
        body: { error: 'invalid', message: 'payload: must be JSON nested at most 128 levels deep' },
      });
    }
    // Objects within objects alike, and an event type's examples.
    const objects = `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`;
    expect((await send(`{"consumer":"hostile","event_type":"deep","payload":${objects}}`)).status).toBe(422);
    const examples = await t.api.post('/v1/event-types', { name: 'deep.type', examples: [JSON.parse(nested(3_000))] });
    expect(examples.status).toBe(422);
    expect(examples.body.message).toContain('nested at most 128 levels deep');
  });

  it('a body whose bytes are not UTF-8 is 422, with or without a charset; the same text as UTF-8 is taken as sent', async () => {
    const latin1 = Buffer.from('{"consumer":"hostile","event_type":"latin","payload":{"s":"café"}}', 'latin1');
    for (const type of ['application/json', 'application/json; charset=iso-8859-1', 'text/plain']) {
      const res = await send(latin1, { 'content-type': type });
      expect({ type, status: res.status, body: await res.json() }).toEqual({
        type,
        status: 422,
        body: { error: 'invalid', message: 'request body must be UTF-8 JSON' },
      });
    }
    // UTF-16 named in the content type is another charset, its text ASCII or not (it had been decoded and taken).
    for (const text of ['{"consumer":"hostile","event_type":"u16","payload":{}}', '{"consumer":"hostile","event_type":"u16","payload":{"s":"café"}}']) {
      const res = await send(Buffer.from(text, 'utf16le'), { 'content-type': 'application/json; charset=utf-16le' });
      expect({ status: res.status, body: await res.json() }).toEqual({ status: 422, body: { error: 'invalid', message: 'request body must be UTF-8 JSON' } });
    }
    const utf8 = await send(Buffer.from('{"consumer":"hostile","event_type":"latin","payload":{"s":"café"}}', 'utf8'));
    expect(utf8.status).toBe(202);
    const { id } = (await utf8.json()) as { id: string };
    expect((await t.api.get(`/v1/messages/${id}`)).body.payload).toEqual({ s: 'café' });
  });

  it('a "__proto__" key is kept in the payload, at any depth, as stored and shown', async () => {
    const res = await send('{"consumer":"hostile","event_type":"proto","payload":{"__proto__":{"admin":true},"a":{"__proto__":1,"b":2}}}');
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const shown = await fetch(`${wh.url}/v1/messages/${id}`, { headers: { authorization: `Bearer ${t.key}` } });
    expect(await shown.text()).toContain('"payload":{"__proto__":{"admin":true},"a":{"__proto__":1,"b":2}}');
  });

  it('an Idempotency-Key sent as UTF-8 bytes is the key as written: stored, found by q, and its 256 characters counted as characters', async () => {
    const asBytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1'); // what curl puts on the wire
    const res = await send('{"consumer":"hostile","event_type":"u8","payload":{}}', { 'idempotency-key': asBytes('ключ-1') });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    expect((await t.api.get(`/v1/messages/${id}`)).body.idempotency_key).toBe('ключ-1');
    expect((await t.api.get(`/v1/messages?q=${encodeURIComponent('ключ')}`)).body.items.map((m: { id: string }) => m.id)).toEqual([id]);
    // 256 characters of two bytes each are 256 characters; 257 are too many.
    expect((await send('{"consumer":"hostile","event_type":"u8","payload":{}}', { 'idempotency-key': asBytes('é'.repeat(256)) })).status).toBe(202);
    const long = await send('{"consumer":"hostile","event_type":"u8","payload":{}}', { 'idempotency-key': asBytes('é'.repeat(257)) });
    expect(long.status).toBe(422);
    // Latin-1 bytes that are not UTF-8 (a client that encodes so) are read as Latin-1.
    const latin = await send('{"consumer":"hostile","event_type":"u8","payload":{}}', { 'idempotency-key': 'café-2' });
    const latinId = ((await latin.json()) as { id: string }).id;
    expect((await t.api.get(`/v1/messages/${latinId}`)).body.idempotency_key).toBe('café-2');
  });

  it('a frame_origin with a wildcard, a directive or a list is 422: only an origin may frame the page', async () => {
    // An IPv6 address too: CSP's frame-ancestors cannot name one (a browser reads the policy as 'none').
    for (const origin of [
      'https://*',
      'https://*.example.com',
      'http://*',
      'https://a.com;script-src',
      'https://a.com,b.com',
      "https://'self'",
      'http://[::1]:18241',
    ]) {
      const res = await t.api.post(`/v1/consumers/${ids['consumer']}/portal`, { frame_origin: origin });
      expect({ origin, status: res.status, error: res.body.error }).toEqual({ origin, status: 422, error: 'invalid' });
    }
    for (const origin of ['https://dashboard.example.com', 'http://127.0.0.1:18240', 'https://xn--bcher-kva.example']) {
      expect((await t.api.post(`/v1/consumers/${ids['consumer']}/portal`, { frame_origin: origin })).status).toBe(201);
    }
  });

  it('a cursor naming no id of its list’s kind is 422, and event types refuse unknown query fields as every list does', async () => {
    const forged = Buffer.from(JSON.stringify({ v: 1, after: 'con_ZZZ', at: Date.now() })).toString('base64url');
    expect((await t.api.get(`/v1/consumers?cursor=${forged}`)).status).toBe(422);
    for (const path of ['/v1/event-types?foo=1', '/v1/event-types?limit=1', '/v1/event-types/deep.type/versions?x=1']) {
      const res = await t.api.get(path);
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 422,
        body: { error: 'invalid', message: expect.stringMatching(/^unknown field "/) },
      });
    }
  });
});
