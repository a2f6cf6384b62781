// 429 answers: thrown by default; with retryOn429, waited for `retry-after` seconds (moved on
// fake timers, not slept) and sent again, the same request, within the retry and wait bounds.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Wirehook } from './client.ts';
import { WirehookApiError } from './errors.ts';
import { fakeFetch, json, rateLimitHeaders } from './testing/fake-fetch.ts';

const tooMany = (seconds: string) =>
  json(
    429,
    { error: 'rate_limited', message: 'rate limit of 600 requests per minute reached' },
    { 'retry-after': seconds, ...rateLimitHeaders(600, 0, 1_800_000_000) },
  );
const accepted = () => json(202, { id: 'msg_1', deliveries: 1 }, { 'x-usage-month': '5', ...rateLimitHeaders(600, 599, 1_800_000_060) });
const message = { consumer: 'acme', event_type: 'order.created', payload: { order: 42 } };

/** The outcome of a call, without an unhandled rejection while timers move. */
const settle = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('429 rate_limited', () => {
  it('without retryOn429 is thrown at once, with retryAfterSeconds', async () => {
    const { fetch, requests } = fakeFetch(() => tooMany('7'));
    const outcome = await settle(new Wirehook({ apiKey: 'k', fetch }).messages.send(message));
    expect(requests).toHaveLength(1);
    expect('error' in outcome && outcome.error).toBeInstanceOf(WirehookApiError);
    expect(outcome).toMatchObject({
      error: { status: 429, code: 'rate_limited', retryAfterSeconds: 7, message: 'rate limit of 600 requests per minute reached' },
    });
  });

  it('with retryOn429 waits retry-after seconds, then sends the same request again', async () => {
    const { fetch, requests } = fakeFetch((_r, i) => (i === 0 ? tooMany('2') : accepted()));
    const client = new Wirehook({ apiKey: 'k', fetch, retryOn429: true });
    let done = false;
    const call = settle(client.messages.send(message, { idempotencyKey: 'order-42' })).finally(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(1_999);
    expect(requests).toHaveLength(1);
    expect(done).toBe(false);
    expect(client.lastRateLimit?.remaining).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(await call).toEqual({ value: { id: 'msg_1', deliveries: 1, usageMonth: 5, idempotentReplayed: false } });
    expect(requests).toHaveLength(2);
    const [first, second] = requests;
    expect(second?.headers.get('idempotency-key')).toBe('order-42');
    expect(second?.body).toBe(first?.body);
    expect(second?.url.href).toBe(first?.url.href);
    expect(client.lastRateLimit?.remaining).toBe(599);
  });

  it('gives up after maxRetries retries and throws the last 429', async () => {
    const { fetch, requests } = fakeFetch(() => tooMany('1'));
    const call = settle(new Wirehook({ apiKey: 'k', fetch, retryOn429: { maxRetries: 2 } }).messages.list());
    await vi.advanceTimersByTimeAsync(10_000);
    expect(requests).toHaveLength(3);
    expect(await call).toMatchObject({ error: { code: 'rate_limited', retryAfterSeconds: 1 } });
  });

  it('retries 3 times by default', async () => {
    const { fetch, requests } = fakeFetch(() => tooMany('1'));
    const call = settle(new Wirehook({ apiKey: 'k', fetch, retryOn429: true }).messages.list());
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await call).toMatchObject({ error: { code: 'rate_limited' } });
    expect(requests).toHaveLength(4);
  });

  it('throws at once when retry-after is longer than maxWaitSeconds (default 60)', async () => {
    const { fetch, requests } = fakeFetch(() => tooMany('61'));
    const outcome = await settle(new Wirehook({ apiKey: 'k', fetch, retryOn429: true }).messages.list());
    expect(requests).toHaveLength(1);
    expect(outcome).toMatchObject({ error: { code: 'rate_limited', retryAfterSeconds: 61 } });

    const bounded = fakeFetch(() => tooMany('6'));
    const short = await settle(new Wirehook({ apiKey: 'k', fetch: bounded.fetch, retryOn429: { maxWaitSeconds: 5 } }).messages.list());
    expect(bounded.requests).toHaveLength(1);
    expect(short).toMatchObject({ error: { retryAfterSeconds: 6 } });
  });

  it('other errors are not waited for as a 429 is (the 5xx retries are off here)', async () => {
    const { fetch, requests } = fakeFetch(() => json(503, { error: 'unavailable', message: 'the store is unavailable' }));
    const outcome = await settle(new Wirehook({ apiKey: 'k', fetch, retryOn429: true, maxRetries: 0 }).messages.list());
    expect(requests).toHaveLength(1);
    expect(outcome).toMatchObject({ error: { code: 'unavailable', status: 503 } });
  });
});
