// Retries after a network error or a 5xx, for what is safe to repeat (GET, PUT, and sends, which
// always carry an idempotency key then: one made per call, the same on each attempt); a per-call
// AbortSignal and timeout; x-request-id on errors and idempotent-replayed on sends. Waits are
// moved on fake timers with Math.random pinned, so the backoff is exact.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Wirehook } from './client.ts';
import { WirehookApiError, WirehookNetworkError } from './errors.ts';
import { fakeFetch, json } from './testing/fake-fetch.ts';

const message = { consumer: 'acme', event_type: 'order.created', payload: { order: 42 } };
const accepted = (headers: Record<string, string> = {}) => json(202, { id: 'msg_1', deliveries: 1 }, { 'x-usage-month': '3', ...headers });
const unavailable = () => json(503, { error: 'unavailable', message: 'the store is unavailable' }, { 'x-request-id': 'req_503' });
const refused = () => Promise.reject(new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:8080') }));

/** The outcome of a call, without an unhandled rejection while timers move. */
const settle = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

beforeEach(() => {
  vi.useFakeTimers();
  vi.spyOn(Math, 'random').mockReturnValue(0); // no jitter: waits of exactly 500, 1000, 2000 … ms
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('retries of sends', () => {
  it('a send without a key gets one, made once: a 503 and a refused connection are retried with the same key', async () => {
    const answers = [unavailable, refused, accepted];
    const { fetch, requests } = fakeFetch((_r, i) => answers[i]!());
    const call = settle(new Wirehook({ apiKey: 'k', fetch }).messages.send(message));
    await vi.advanceTimersByTimeAsync(499);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1); // 0.5 s after the first attempt
    expect(requests).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(999);
    expect(requests).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1); // then 1 s
    expect(await call).toEqual({ value: { id: 'msg_1', deliveries: 1, usageMonth: 3, idempotentReplayed: false } });
    expect(requests).toHaveLength(3);
    const keys = requests.map((r) => r.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
  });

  it('each call makes its own key', async () => {
    const { fetch, requests } = fakeFetch(() => accepted());
    const client = new Wirehook({ apiKey: 'k', fetch });
    await client.messages.send(message);
    await client.messages.send(message);
    expect(requests[0]?.headers.get('idempotency-key')).not.toBe(requests[1]?.headers.get('idempotency-key'));
  });

  it('your own key is the one sent on every attempt', async () => {
    const { fetch, requests } = fakeFetch((_r, i) => (i === 0 ? unavailable() : accepted()));
    const call = settle(new Wirehook({ apiKey: 'k', fetch }).messages.send(message, { idempotencyKey: 'order-42' }));
    await vi.advanceTimersByTimeAsync(500);
    expect(await call).toMatchObject({ value: { id: 'msg_1' } });
    expect(requests.map((r) => r.headers.get('idempotency-key'))).toEqual(['order-42', 'order-42']);
  });

  it('gives up after maxRetries (default 2) and throws the last error, with the server request id', async () => {
    const { fetch, requests } = fakeFetch(() => unavailable());
    const call = settle(new Wirehook({ apiKey: 'k', fetch }).messages.send(message));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(requests).toHaveLength(3);
    const outcome = await call;
    expect('error' in outcome && outcome.error).toBeInstanceOf(WirehookApiError);
    expect(outcome).toMatchObject({ error: { status: 503, code: 'unavailable', requestId: 'req_503' } });
  });

  it('per call, maxRetries: 0 opts out: one attempt, no key made', async () => {
    const { fetch, requests } = fakeFetch(() => unavailable());
    const outcome = await settle(new Wirehook({ apiKey: 'k', fetch }).messages.send(message, { maxRetries: 0 }));
    expect(outcome).toMatchObject({ error: { status: 503 } });
    expect(requests).toHaveLength(1);
    expect(requests[0]?.headers.has('idempotency-key')).toBe(false);
  });

  it('per call, maxRetries raises the client default; the waits double up to 8 s', async () => {
    const { fetch, requests } = fakeFetch(() => unavailable());
    const call = settle(new Wirehook({ apiKey: 'k', fetch, maxRetries: 0 }).messages.send(message, { maxRetries: 6 }));
    const times: number[] = [];
    for (let ms = 0; ms <= 30_000; ms += 100) {
      if (requests.length > times.length) times.push(ms - 100);
      await vi.advanceTimersByTimeAsync(100);
    }
    await call;
    expect(requests).toHaveLength(7);
    expect(times.slice(1).map((t, i) => t - times[i]!)).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
  });

  it('jitter only shortens a wait, by up to a quarter', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    const { fetch, requests } = fakeFetch((_r, i) => (i === 0 ? unavailable() : accepted()));
    const call = settle(new Wirehook({ apiKey: 'k', fetch }).messages.send(message));
    await vi.advanceTimersByTimeAsync(374);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(2);
    expect(requests).toHaveLength(2);
    await call;
  });
});

describe('what is retried', () => {
  it('reads (GET) and PUTs are retried on 5xx and network errors', async () => {
    const answers = [() => json(502, 'bad gateway'), refused, () => json(200, { items: [] })];
    const { fetch, requests } = fakeFetch((_r, i) => answers[i]!());
    const call = settle(new Wirehook({ apiKey: 'k', fetch }).eventTypes.list());
    await vi.advanceTimersByTimeAsync(1_500);
    expect(await call).toEqual({ value: { items: [] } });
    expect(requests).toHaveLength(3);

    const put = fakeFetch((_r, i) => (i === 0 ? unavailable() : json(200, { delivery_failure: '15m', usage: 80 })));
    const updating = settle(new Wirehook({ apiKey: 'k', fetch: put.fetch }).alerts.updateConditions({ usage: 80 }));
    await vi.advanceTimersByTimeAsync(500);
    expect(await updating).toMatchObject({ value: { usage: 80 } });
    expect(put.requests.map((r) => r.method)).toEqual(['PUT', 'PUT']);
  });

  it('other POSTs, PATCH and DELETE are never retried: a second create or rotation is not the same as one', async () => {
    const { fetch, requests } = fakeFetch(() => unavailable());
    const client = new Wirehook({ apiKey: 'k', fetch });
    await settle(client.consumers.create({ external_id: 'acme' }));
    await settle(client.endpoints.rotateSecret('ep_1'));
    await settle(client.endpoints.update('ep_1', { status: 'paused' }));
    await settle(client.endpoints.delete('ep_1'));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(requests.map((r) => r.method)).toEqual(['POST', 'POST', 'PATCH', 'DELETE']);
  });

  it('4xx, 501 and a success that is not JSON are not retried', async () => {
    const answers = [
      () => json(422, { error: 'invalid', message: 'payload: required' }, { 'x-request-id': 'req_422' }),
      () => json(501, { error: 'not_implemented', message: 'no' }),
      () => new Response('<html>captive portal</html>', { status: 200, headers: { 'x-request-id': 'req_html' } }),
    ];
    const { fetch, requests } = fakeFetch((_r, i) => answers[i]!());
    const client = new Wirehook({ apiKey: 'k', fetch });
    expect(await settle(client.messages.send(message))).toMatchObject({ error: { status: 422, requestId: 'req_422' } });
    expect(await settle(client.messages.send(message))).toMatchObject({ error: { status: 501 } });
    const html = await settle(client.messages.send(message));
    expect('error' in html && html.error).toBeInstanceOf(WirehookNetworkError);
    expect(html).toMatchObject({ error: { reason: 'invalid_response', requestId: 'req_html' } });
    expect(requests).toHaveLength(3);
  });

  it('a 429 keeps its own budget: retryOn429 waits do not use up maxRetries', async () => {
    const answers = [() => json(429, { error: 'rate_limited', message: 'slow down' }, { 'retry-after': '1' }), unavailable, accepted];
    const { fetch, requests } = fakeFetch((_r, i) => answers[i]!());
    const call = settle(new Wirehook({ apiKey: 'k', fetch, retryOn429: true, maxRetries: 1 }).messages.send(message));
    await vi.advanceTimersByTimeAsync(1_500);
    expect(await call).toMatchObject({ value: { id: 'msg_1' } });
    expect(requests).toHaveLength(3);
  });

  it('refuses a maxRetries that is not a whole number', () => {
    expect(() => new Wirehook({ apiKey: 'k', maxRetries: -1 })).toThrow('maxRetries must be a whole number, 0 or more (got -1)');
    expect(() => new Wirehook({ apiKey: 'k', maxRetries: 1.5 })).toThrow(TypeError);
  });
});

describe('signal and timeout per call', () => {
  it('aborting during the wait before a retry rejects at once with the reason; nothing more is sent', async () => {
    const { fetch, requests } = fakeFetch(() => unavailable());
    const controller = new AbortController();
    const call = settle(new Wirehook({ apiKey: 'k', fetch }).messages.send(message, { signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    const outcome = await call;
    expect(outcome).toMatchObject({ error: { name: 'AbortError' } });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(requests).toHaveLength(1);
  });

  it('aborting cancels the attempt in flight (the signal reaches fetch) and is not retried', async () => {
    const { fetch, requests } = fakeFetch(
      (request) => new Promise<Response>((_resolve, reject) => request.signal?.addEventListener('abort', () => reject(request.signal?.reason), { once: true })),
    );
    const controller = new AbortController();
    const call = settle(new Wirehook({ apiKey: 'k', fetch }).messages.list({}, { signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(10);
    const reason = new Error('the user left');
    controller.abort(reason);
    expect(await call).toEqual({ error: reason });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(requests).toHaveLength(1);
  });

  it('an already aborted signal sends nothing', async () => {
    const { fetch, requests } = fakeFetch(() => accepted());
    const outcome = await settle(new Wirehook({ apiKey: 'k', fetch }).messages.send(message, { signal: AbortSignal.abort() }));
    expect(outcome).toMatchObject({ error: { name: 'AbortError' } });
    expect(requests).toHaveLength(0);
  });

  it("a call's timeoutMs replaces the client's for each of its attempts", async () => {
    const { fetch, requests } = fakeFetch(
      (request) => new Promise<Response>((_resolve, reject) => request.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true })),
    );
    const call = settle(new Wirehook({ apiKey: 'k', fetch, timeoutMs: 60_000 }).eventTypes.list({ timeoutMs: 200, maxRetries: 1 }));
    await vi.advanceTimersByTimeAsync(200);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(500); // the wait, then the second attempt starts
    expect(requests).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(200);
    expect(await call).toMatchObject({
      error: { reason: 'timeout', message: 'GET http://localhost:8080/v1/event-types failed: no complete answer within 200 ms (timeoutMs)' },
    });
  });
});

describe('what a send answers', () => {
  it('idempotentReplayed: true when the answer says idempotent-replayed: true, false otherwise', async () => {
    const answers = [accepted({ 'idempotent-replayed': 'true', 'x-request-id': 'req_1' }), accepted({ 'idempotent-replayed': 'false' }), accepted()];
    const { fetch } = fakeFetch((_r, i) => answers[i]!);
    const client = new Wirehook({ apiKey: 'k', fetch });
    expect(await client.messages.send(message)).toEqual({ id: 'msg_1', deliveries: 1, usageMonth: 3, idempotentReplayed: true });
    expect((await client.messages.send(message)).idempotentReplayed).toBe(false);
    expect((await client.messages.send(message)).idempotentReplayed).toBe(false);
  });
});
