import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWirehook, type Harness } from '../support/harness.ts';

let gw: Harness;

beforeAll(async () => {
  gw = await startWirehook();
  // Start at the beginning of a minute so one test's requests fall in one window.
  gw.clock.set(Math.ceil(gw.clock.now() / 60_000) * 60_000 + 60_000);
});
afterAll(() => gw.close());

const windowEnd = () => Math.floor(gw.clock.now() / 60_000) * 60 + 60;

// The spec's Rate limits table, written out (not read from PLANS). Business is 20,000: the
// spec notes one statement of 60,000 and takes 20,000.
const PER_MINUTE = { free: 600, starter: 3_000, pro: 12_000, business: 20_000 } as const;

describe('rate limits', () => {
  it.each(Object.entries(PER_MINUTE))('the %s plan allows %i requests a minute and tells it on every response', async (plan, perMinute) => {
    const t = await gw.tenant({ plan: plan as keyof typeof PER_MINUTE });
    const res = await t.api.get('/v1/event-types');
    expect(res.headers.get('x-ratelimit-limit')).toBe(String(perMinute));
    expect(res.headers.get('x-ratelimit-remaining')).toBe(String(perMinute - 1));
    expect(res.headers.get('x-ratelimit-reset')).toBe(String(windowEnd()));
    // Error responses count and carry the headers too.
    const bad = await t.api.post('/v1/consumers', { nope: 1 });
    expect(bad.status).toBe(422);
    expect(bad.headers.get('x-ratelimit-remaining')).toBe(String(perMinute - 2));
  });

  it('counts all keys of an environment together, answers 429 with retry-after, and resets next minute', async () => {
    gw.clock.set(Math.floor(gw.clock.now() / 60_000) * 60_000 + 60_000 + 15_000); // 15 s into a minute
    const a = await gw.tenant({ plan: 'free' });
    const b = await gw.key(a.orgId);
    const testEnv = await gw.key(a.orgId, { env: 'test' });
    const limit = PER_MINUTE.free;
    for (let i = 0; i < limit; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => ((i + j) % 2 ? a : b).api.get('/v1/event-types')));
    }
    for (const t of [a, b]) {
      const res = await t.api.get('/v1/event-types');
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ error: 'rate_limited', message: expect.stringContaining('600 requests per minute') });
      expect(res.headers.get('retry-after')).toBe('45');
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    }
    // The test environment has a budget of its own; another org too.
    expect((await testEnv.api.get('/v1/event-types')).status).toBe(200);
    expect((await (await gw.tenant({ plan: 'free' })).api.get('/v1/event-types')).status).toBe(200);

    gw.clock.advance(45_000);
    const next = await a.api.get('/v1/event-types');
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining')).toBe(String(limit - 1));
  });

  it('follows a plan change at once', async () => {
    const t = await gw.tenant({ plan: 'free' });
    expect((await t.api.get('/v1/event-types')).headers.get('x-ratelimit-limit')).toBe('600');
    const changed = await gw.admin('org', 'set-plan', '--org', t.orgId, '--plan', 'pro');
    expect(changed).toEqual({ id: t.orgId, name: 'Test org', plan: 'pro' });
    expect((await t.api.get('/v1/event-types')).headers.get('x-ratelimit-limit')).toBe('12000');
  });
});
