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
