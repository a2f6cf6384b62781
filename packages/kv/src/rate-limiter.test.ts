import { ManualClock } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { MemoryKv } from './memory-kv.ts';
import { RateLimiter } from './rate-limiter.ts';

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0); // a minute boundary

function setup(startMs = T0) {
  const clock = new ManualClock(startMs);
  const kv = new MemoryKv({ clock });
  return { clock, kv, limiter: new RateLimiter({ kv, clock }) };
}

describe('RateLimiter', () => {
  it('counts hits and reports what remains', async () => {
    const { limiter } = setup();
    const remaining: number[] = [];
    for (let i = 0; i < 4; i++) remaining.push((await limiter.hit('env_a', 5)).remaining);
    expect(remaining).toEqual([4, 3, 2, 1]);
  });

  it('allows exactly the limit, then refuses, with remaining never below 0', async () => {
    const { limiter } = setup();
    const decisions = [];
    for (let i = 0; i < 5; i++) decisions.push(await limiter.hit('env_a', 3));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0, 0]);
    expect(decisions.every((d) => d.limit === 3)).toBe(true);
  });

  it('starts a new window when the clock reaches the next minute', async () => {
    const { clock, limiter } = setup(T0 + 50_000);
    for (let i = 0; i < 3; i++) await limiter.hit('env_a', 3);
    expect((await limiter.hit('env_a', 3)).allowed).toBe(false);
    clock.advance(9_999);
    expect((await limiter.hit('env_a', 3)).allowed).toBe(false);
    clock.advance(1); // 12:01:00.000
    const next = await limiter.hit('env_a', 3);
    expect(next).toMatchObject({ allowed: true, remaining: 2, resetSeconds: (T0 + 120_000) / 1000 });
  });

  it.each([
    [0, 60],
    [30_000, 30],
    [59_000, 1],
    [59_500, 1],
    [59_999, 1],
    [1_500, 59],
  ])('at %d ms into the minute: reset is the minute end, retry after %d s', async (offsetMs, retryAfter) => {
    const { limiter } = setup(T0 + offsetMs);
    const decision = await limiter.hit('env_a', 10);
    expect(decision.resetSeconds).toBe((T0 + 60_000) / 1000);
    expect(Number.isInteger(decision.resetSeconds)).toBe(true);
    expect(decision.retryAfterSeconds).toBe(retryAfter);
  });

  it('keeps buckets independent', async () => {
    const { limiter } = setup();
    await limiter.hit('env_a', 2);
    await limiter.hit('env_a', 2);
    expect((await limiter.hit('env_a', 2)).allowed).toBe(false);
    const other = await limiter.hit('env_b', 2);
    expect(other).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('counts under rl:<bucket>:<minute> with a TTL a little over the window', async () => {
    const { clock, kv, limiter } = setup(T0 + 10_000);
    await limiter.hit('env_a', 10);
    await limiter.hit('env_a', 10);
    const key = `rl:env_a:${T0 / 60_000}`;
    expect(await kv.get(key)).toBe('2');
    clock.advance(60_000); // past the window end, inside the TTL
    expect(await kv.get(key)).toBe('2');
    clock.advance(15_000);
    expect(await kv.get(key)).toBeNull();
  });

  it.each([0, -1, 2.5, Number.NaN])('rejects the limit %s', async (limit) => {
    const { limiter } = setup();
    await expect(limiter.hit('env_a', limit)).rejects.toThrow(RangeError);
  });

  it('rejects an empty bucket', async () => {
    const { limiter } = setup();
    await expect(limiter.hit('', 10)).rejects.toThrow(RangeError);
  });
});
