// What the client sends and how it reads answers, with an injected fetch: key, JSON, query
// numbers, encoded ids, idempotency keys, usage and rate-limit headers, typed errors.
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { Wirehook } from './client.ts';
import { isWirehookApiError, WirehookApiError } from './errors.ts';
import { idempotencyKey } from './idempotency-key.ts';
import { fakeFetch, json, rateLimitHeaders } from './testing/fake-fetch.ts';

const message = { consumer: 'acme', event_type: 'order.created', payload: { order: 42 } };

async function thrown(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected the call to throw'),
    (err: unknown) => err,
  );
}

describe('requests', () => {
  it('carries the key, JSON in and out, and goes to baseUrl (default http://localhost:8080)', async () => {
    const { fetch, requests } = fakeFetch(() => json(201, { id: 'con_1', external_id: 'acme', name: null, created_at: 1, endpoint_count: 0 }));
    const consumer = await new Wirehook({ apiKey: 'sk_test_abc', fetch }).consumers.create({ external_id: 'acme', name: 'Acme' });
    expect(consumer.id).toBe('con_1');
    const [sent] = requests;
    expect(sent?.url.href).toBe('http://localhost:8080/v1/consumers');
    expect(sent?.method).toBe('POST');
    expect(sent?.headers.get('authorization')).toBe('Bearer sk_test_abc');
    expect(sent?.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(sent?.body ?? '')).toEqual({ external_id: 'acme', name: 'Acme' });
  });

  it('keeps a base path, drops trailing slashes, and sends no content-type without a body', async () => {
    const { fetch, requests } = fakeFetch(() => json(200, { items: [] }));
    const client = new Wirehook({ apiKey: 'sk_test_abc', baseUrl: 'https://hooks.example.com/wirehook//', fetch });
    expect(client.baseUrl).toBe('https://hooks.example.com/wirehook');
    await client.eventTypes.list();
    expect(requests[0]?.url.href).toBe('https://hooks.example.com/wirehook/v1/event-types');
    expect(requests[0]?.headers.has('content-type')).toBe(false);
    expect(requests[0]?.body).toBeUndefined();
  });

  it('serializes numeric query parameters and leaves out undefined ones', async () => {
    const { fetch, requests } = fakeFetch(() => json(200, { items: [], next_cursor: null }));
    await new Wirehook({ apiKey: 'k', fetch }).messages.list({ limit: 2, since: 1_700_000_000_000, status: 'failed', q: undefined });
    expect(Object.fromEntries(requests[0]!.url.searchParams)).toEqual({ limit: '2', since: '1700000000000', status: 'failed' });
  });

  it('percent-encodes every path id', async () => {
    const { fetch, requests } = fakeFetch(() => json(200, {}));
    const client = new Wirehook({ apiKey: 'k', fetch });
    await client.messages.get('../consumers');
    await client.endpoints.getRecovery('ep/1', 'rcv?x=1#y');
    expect(requests.map((r) => r.url.pathname)).toEqual(['/v1/messages/..%2Fconsumers', '/v1/endpoints/ep%2F1/recoveries/rcv%3Fx%3D1%23y']);
    expect(requests[1]?.url.search).toBe('');
  });

  it('a 204 resolves with nothing', async () => {
    const { fetch } = fakeFetch(() => new Response(null, { status: 204 }));
    await expect(new Wirehook({ apiKey: 'k', fetch }).endpoints.delete('ep_1')).resolves.toBeUndefined();
  });

  it('refuses to start without a key', () => {
    expect(() => new Wirehook({ apiKey: '' })).toThrow(/apiKey is required/);
  });
});

describe('messages.send', () => {
  it('sends the idempotency key as the Idempotency-Key header, and returns x-usage-month', async () => {
    const { fetch, requests } = fakeFetch(() =>
      json(202, { id: 'msg_1', deliveries: 2 }, { 'x-usage-month': '1234', ...rateLimitHeaders(3000, 2999, 1_800_000_060) }),
    );
    const key = idempotencyKey();
    const sent = await new Wirehook({ apiKey: 'k', fetch }).messages.send(message, { idempotencyKey: key });
    expect(sent).toEqual({ id: 'msg_1', deliveries: 2, usageMonth: 1234, idempotentReplayed: false });
    expect(requests[0]?.headers.get('idempotency-key')).toBe(key);
    expect(JSON.parse(requests[0]?.body ?? '')).toEqual(message);
  });

  it('sends no Idempotency-Key without one when retries are off; usageMonth is null when the header is absent', async () => {
    const { fetch, requests } = fakeFetch(() => json(202, { id: 'msg_1', deliveries: 0 }));
    expect(await new Wirehook({ apiKey: 'k', fetch }).messages.send(message, { maxRetries: 0 })).toEqual({
      id: 'msg_1',
      deliveries: 0,
      usageMonth: null,
      idempotentReplayed: false,
    });
    expect(requests[0]?.headers.has('idempotency-key')).toBe(false);
  });
});

describe('lastRateLimit', () => {
  it('holds the latest x-ratelimit-* headers; an answer without them (401) keeps the previous', async () => {
    let n = 0;
    const { fetch } = fakeFetch(() => {
      n++;
      if (n === 3) return json(401, { error: 'unauthorized', message: 'missing, wrong, revoked or expired API key' });
      return json(200, { items: [] }, rateLimitHeaders(600, 600 - n, 1_800_000_000 + n));
    });
    const client = new Wirehook({ apiKey: 'k', fetch });
    expect(client.lastRateLimit).toBeUndefined();
    await client.eventTypes.list();
    expect(client.lastRateLimit).toEqual({ limit: 600, remaining: 599, reset: 1_800_000_001 });
    await client.eventTypes.list();
    expect(client.lastRateLimit).toEqual({ limit: 600, remaining: 598, reset: 1_800_000_002 });
    await expect(client.eventTypes.list()).rejects.toMatchObject({ code: 'unauthorized' });
    expect(client.lastRateLimit?.remaining).toBe(598);
  });
});

describe('errors', () => {
  it('an error body becomes a WirehookApiError with status, code and the server message', async () => {
    const { fetch } = fakeFetch(() => json(409, { error: 'conflict', message: 'endpoint ep_1 is paused; resume it first' }, rateLimitHeaders(600, 10, 5)));
    const err = await thrown(new Wirehook({ apiKey: 'k', baseUrl: 'http://wh.test', fetch }).endpoints.recover('ep_1', { since: 1 }));
    expect(err).toBeInstanceOf(WirehookApiError);
    expect(err).toMatchObject({
      name: 'WirehookApiError',
      status: 409,
      code: 'conflict',
      message: 'endpoint ep_1 is paused; resume it first',
      retryAfterSeconds: undefined,
      rateLimit: { limit: 600, remaining: 10, reset: 5 },
      method: 'POST',
      url: 'http://wh.test/v1/endpoints/ep_1/recover',
    });
    expect(isWirehookApiError(err, 'conflict')).toBe(true);
    expect(isWirehookApiError(err, 'not_found')).toBe(false);
    expect(isWirehookApiError(new Error('x'))).toBe(false);
  });

  it('narrows on the code: a rate_limited error always has retryAfterSeconds', async () => {
    const { fetch } = fakeFetch(() => json(429, { error: 'rate_limited', message: 'slow down' }, { 'retry-after': '7' }));
    const err = await thrown(new Wirehook({ apiKey: 'k', fetch }).messages.list());
    if (!isWirehookApiError(err, 'rate_limited')) return expect.fail('not a rate_limited error');
    expectTypeOf(err.code).toEqualTypeOf<'rate_limited'>();
    expectTypeOf(err.retryAfterSeconds).toEqualTypeOf<number>();
    expect(err.retryAfterSeconds).toBe(7);
    if (err instanceof WirehookApiError && err.code === 'rate_limited') expectTypeOf(err.code).toEqualTypeOf<'rate_limited'>();
  });

  it('a body that is not an error body gets the code of its status, and the text in the message', async () => {
    const answers = [new Response('<html>Bad gateway</html>', { status: 502 }), new Response('busy', { status: 503 }), json(404, { error: 'gone_fishing' })];
    const { fetch } = fakeFetch((_r, i) => answers[i]!);
    const client = new Wirehook({ apiKey: 'k', baseUrl: 'http://wh.test', fetch, maxRetries: 0 });
    expect(await thrown(client.eventTypes.list())).toMatchObject({
      status: 502,
      code: 'internal',
      message: 'GET http://wh.test/v1/event-types answered 502: <html>Bad gateway</html>',
      body: '<html>Bad gateway</html>',
    });
    expect(await thrown(client.eventTypes.list())).toMatchObject({ status: 503, code: 'unavailable' });
    expect(await thrown(client.eventTypes.list())).toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe('idempotencyKey()', () => {
  const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('gives a fresh random UUID each call', () => {
    const keys = Array.from({ length: 1000 }, idempotencyKey);
    for (const key of keys) expect(key).toMatch(UUID_V4);
    expect(new Set(keys).size).toBe(1000);
  });

  it('still gives UUIDs where crypto.randomUUID is missing', () => {
    vi.stubGlobal('crypto', { getRandomValues: (a: Uint8Array) => a.fill(0xff) });
    try {
      expect(idempotencyKey()).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
    } finally {
      vi.unstubAllGlobals();
    }
    vi.stubGlobal('crypto', undefined);
    try {
      expect(idempotencyKey()).toMatch(UUID_V4);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
