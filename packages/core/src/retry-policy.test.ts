import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, nextAttemptAt, retryDelayMs, retrySpanMs, RETRY_COUNTS, RETRY_INTERVALS, type RetryPolicy } from './retry-policy.ts';

const S = 1_000;
const M = 60 * S;
const H = 60 * M;

describe('retry schedule', () => {
  it.each([
    [1, 5 * S],
    [2, 5 * M],
    [3, 30 * M],
    [4, 2 * H],
    [5, 5 * H],
    [6, 10 * H],
    [7, 10 * H],
    [8, 10 * H],
    [12, 10 * H],
  ])('progressive re-send %i waits %i ms', (retryNo, delay) => {
    expect(retryDelayMs('progressive', retryNo)).toBe(delay);
  });

  it.each([
    ['1m', M],
    ['5m', 5 * M],
    ['30m', 30 * M],
    ['1h', H],
    ['6h', 6 * H],
  ] as const)('fixed %s waits %i ms every time', (interval, delay) => {
    expect(retryDelayMs(interval, 1)).toBe(delay);
    expect(retryDelayMs(interval, 9)).toBe(delay);
  });

  it('the default is 7 progressive re-sends spanning about 28 hours (8 sends)', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({ count: 7, interval: 'progressive' });
    const span = retrySpanMs(DEFAULT_RETRY_POLICY);
    expect(span).toBe(5 * S + 5 * M + 30 * M + 2 * H + 5 * H + 10 * H + 10 * H);
    expect(Math.round(span / H)).toBe(28);
  });

  it('only progressive with 12 spans more than 3 days', () => {
    const tooLong: RetryPolicy[] = [];
    for (const count of RETRY_COUNTS) {
      for (const interval of RETRY_INTERVALS) {
        if (retrySpanMs({ count, interval }) > 3 * 24 * H) tooLong.push({ count, interval });
      }
    }
    expect(tooLong).toEqual([{ count: 12, interval: 'progressive' }]);
    expect(retrySpanMs({ count: 12, interval: '6h' })).toBe(3 * 24 * H);
  });

  it('nextAttemptAt returns null once the re-sends are used up', () => {
    const policy: RetryPolicy = { count: 2, interval: '1m' };
    expect(nextAttemptAt(policy, 1, 1_000)).toBe(1_000 + M);
    expect(nextAttemptAt(policy, 2, 1_000)).toBe(1_000 + M);
    expect(nextAttemptAt(policy, 3, 1_000)).toBeNull();
    expect(nextAttemptAt({ count: 0, interval: 'progressive' }, 1, 0)).toBeNull();
  });
});
