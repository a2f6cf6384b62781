// Headers every response carries, and which carry the rate-limit ones: x-request-id on every
// answer (the caller's own when it is safe, else generated), x-ratelimit-* on every
// authenticated one (a 401 has no environment to count against), and
// `idempotent-replayed: true` on a send answered with an earlier message of its Idempotency-Key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';

let wh: Harness;
let t: TestTenant;

beforeAll(async () => {
  wh = await startWirehook();
  t = await wh.tenant();
});
afterAll(() => wh?.close());

/**
 * A generated id: the request's trace id (32 hex digits, what its log lines carry as trace_id)
 * where a trace context is kept — every Wirehook process, test/e2e/tracing.test.ts — else (this
 * in-process harness starts no tracing; /healthz is traced by nothing) a random UUID.
 */
const GENERATED = /^([0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** A raw request (no ApiClient: it would refuse the undocumented answers, /healthz's). */
const raw = (path: string, headers: Record<string, string> = {}) => fetch(`${wh.url}${path}`, { headers });

describe('x-request-id', () => {
  it('is on every response: 200, 401, 403, 404, 422, the reference page, /healthz — a new one each time when none is sent', async () => {
    const bearer = { authorization: `Bearer ${t.key}` };
    const readOnly = await wh.key(t.orgId, { scopes: ['logs:read'] });
    const answers = [
      await raw('/v1/event-types', bearer),
      await raw('/v1/consumers'), // 401
      await fetch(`${wh.url}/v1/consumers`, { method: 'POST', headers: { authorization: `Bearer ${readOnly.key}` } }), // 403
      await raw('/v1/no-such-route', bearer), // 404
      await raw('/v1/messages?limit=0', bearer), // 422
      await raw('/docs'),
      await raw('/healthz'),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 401, 403, 404, 422, 200, 200]);
    const ids = answers.map((r) => r.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(GENERATED);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('echoes a safe incoming id (letters, digits, . _ : -; 1 to 128 characters) and replaces any other', async () => {
    const echoed = async (incoming: string) => (await raw('/v1/consumers', { 'x-request-id': incoming })).headers.get('x-request-id');
    for (const safe of ['req-1', 'a.b_c:d-E9', 'x'.repeat(128), '0']) expect(await echoed(safe)).toBe(safe);
    for (const unsafe of ['x'.repeat(129), 'a b', '<script>', 'a/b', 'é', '"quoted"']) {
      const id = await echoed(unsafe);
      expect(id).not.toBe(unsafe);
      expect(id).toMatch(GENERATED);
    }
    // Also on an authenticated answer, the trace's own id left alone.
    const res = await raw('/v1/event-types', { authorization: `Bearer ${t.key}`, 'x-request-id': 'caller-42' });
    expect(res.headers.get('x-request-id')).toBe('caller-42');
  });
});

describe('x-ratelimit-*', () => {
  it('are on every authenticated response, errors included; not on a 401, the reference page or /healthz', async () => {
    const bearer = { authorization: `Bearer ${t.key}` };
    for (const res of [await raw('/v1/event-types', bearer), await raw('/v1/no-such-route', bearer), await raw('/v1/messages?limit=0', bearer)]) {
      expect(res.headers.get('x-ratelimit-limit'), `${res.status}`).not.toBeNull();
      expect(res.headers.get('x-ratelimit-remaining')).not.toBeNull();
      expect(res.headers.get('x-ratelimit-reset')).not.toBeNull();
    }
    for (const res of [
      await raw('/v1/consumers'),
      await raw('/v1/consumers', { authorization: 'Bearer sk_test_wrong' }),
      await raw('/v1/openapi.json'),
      await raw('/healthz'),
    ]) {
      expect(res.headers.get('x-ratelimit-limit'), `${res.url} ${res.status}`).toBeNull();
    }
  });
});

describe('idempotent-replayed', () => {
  it('is true on a send answered with an earlier message of its Idempotency-Key, and absent otherwise', async () => {
    const send = (key?: string) =>
      t.api.post('/v1/messages', { consumer: 'replay', event_type: 'x', payload: { a: 1 } }, key ? { 'idempotency-key': key } : {});
    const first = await send('order-1');
    expect(first.status).toBe(202);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await send('order-1');
    expect(again.status).toBe(202);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // Another key, or none, is a new message.
    expect((await send('order-2')).headers.get('idempotent-replayed')).toBeNull();
    expect((await send()).headers.get('idempotent-replayed')).toBeNull();
    expect((await send()).headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('OPTIONS', () => {
  // Express answers OPTIONS on a path its routes know with 200 and the methods in `Allow`; the
  // way routers are mounted (issue 46 keeps the hot POST out of the docs' router) must not change it.
  const options = (path: string, headers: Record<string, string> = {}) => fetch(`${wh.url}${path}`, { method: 'OPTIONS', headers });

  it('names the methods of a path the API serves: the message routes, the documents, another router’s', async () => {
    const bearer = { authorization: `Bearer ${t.key}` };
    const answers = await Promise.all([
      options('/v1/messages', bearer),
      options('/v1/deliveries/dlv_0000000000000000000000000/retry', bearer),
      options('/docs'),
      options('/v1/openapi.json'),
      options('/v1/consumers', bearer),
    ]);
    expect(answers.map((r) => [r.status, r.headers.get('allow')])).toEqual([
      [200, 'GET, HEAD, POST'],
      [200, 'POST'],
      [200, 'GET, HEAD'],
      [200, 'GET, HEAD'],
      [200, 'GET, HEAD, POST'],
    ]);
  });

  it('is a 404 on a path nothing serves, and a POST to the documents is a 404 as before', async () => {
    const answers = [await options('/v1/no-such-route', { authorization: `Bearer ${t.key}` }), await fetch(`${wh.url}/docs`, { method: 'POST' })];
    expect(answers.map((r) => r.status)).toEqual([404, 404]);
  });
});
