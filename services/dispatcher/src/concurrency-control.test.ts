import { describe, expect, it } from 'vitest';
import { loadSignal, nextConcurrency } from './concurrency-control.ts';

const result = (status: number | null, error: string | null = null) => ({ ok: status !== null && status < 300, status, error });

describe('loadSignal', () => {
  it.each([
    [200, null, 'success'],
    [429, 'http_status: 429', 'congestion'],
    [503, 'http_status: 503', 'congestion'],
    [null, 'timeout: no response within 15 s', 'congestion'],
    [500, 'http_status: 500', 'neutral'],
    [null, 'connection: ECONNREFUSED', 'neutral'],
  ] as const)('%s %s is %s', (status, error, signal) => {
    expect(loadSignal(result(status, error))).toBe(signal);
  });
});

describe('nextConcurrency (AIMD)', () => {
  it('halves from the slots on the first congestion, not below 1', () => {
    expect(nextConcurrency(null, 'congestion', 16, 0, 10, true)).toEqual({ limit: 8, ceiling: 16, successes: 0, cutAt: 10 });
    expect(nextConcurrency({ limit: 1, ceiling: 2, successes: 0, cutAt: 0 }, 'congestion', 16, 5, 10, true)?.limit).toBe(1);
  });

  it('a failed probe (at or above the last cut) steps back to the step below; congestion below it halves', () => {
    expect(nextConcurrency({ limit: 5, ceiling: 5, successes: 3, cutAt: 0 }, 'congestion', 16, 1, 2, true)).toEqual({
      limit: 4,
      ceiling: 5,
      successes: 0,
      cutAt: 2,
    });
    expect(nextConcurrency({ limit: 7, ceiling: 5, successes: 0, cutAt: 0 }, 'congestion', 16, 1, 2, true)?.limit).toBe(6);
    // At the last cut less one (reached fast, not a probe): the receiver can take less than before.
    expect(nextConcurrency({ limit: 4, ceiling: 5, successes: 0, cutAt: 0 }, 'congestion', 16, 1, 2, true)).toEqual({
      limit: 2,
      ceiling: 4,
      successes: 0,
      cutAt: 2,
    });
  });

  it('cuts once per episode: a send let in under an earlier cut, or none, does not cut again', () => {
    const state = { limit: 8, ceiling: 16, successes: 0, cutAt: 100 };
    expect(nextConcurrency(state, 'congestion', 16, 99, 150, true)).toBeUndefined();
    expect(nextConcurrency(state, 'congestion', 16, 0, 150, true)).toBeUndefined();
    expect(nextConcurrency(state, 'congestion', 16, 100, 150, true)?.limit).toBe(4);
  });

  it('climbs back one per success below the last cut less one, then one per 16 windows', () => {
    let state = { limit: 4, ceiling: 9, successes: 0, cutAt: 0 };
    for (let i = 0; i < 4; i++) state = nextConcurrency(state, 'success', 16, 1, 2, true) as typeof state;
    expect(state.limit).toBe(8);
    for (let i = 0; i < 127; i++) state = nextConcurrency(state, 'success', 16, 1, 2, true) as typeof state;
    expect(state.limit).toBe(8);
    state = nextConcurrency(state, 'success', 16, 1, 2, true) as typeof state;
    expect(state.limit).toBe(9);
  });

  it('never goes above the slots: back at them it keeps no limit', () => {
    expect(nextConcurrency({ limit: 15, ceiling: 16, successes: 239, cutAt: 0 }, 'success', 16, 1, 2, true)).toBeNull();
  });

  it('grows only on successes of sends that found the flight at its limit: an endpoint using less of it stays where it is', () => {
    const state = { limit: 4, ceiling: 5, successes: 63, cutAt: 0 };
    expect(nextConcurrency(state, 'success', 16, 1, 2, false)).toBeUndefined();
    expect(nextConcurrency(state, 'success', 16, 1, 2, true)?.limit).toBe(5);
    const below = { limit: 2, ceiling: 8, successes: 0, cutAt: 0 };
    expect(nextConcurrency(below, 'success', 16, 1, 2, false)).toBeUndefined();
    expect(nextConcurrency(below, 'success', 16, 1, 2, true)?.limit).toBe(3);
    // Congestion cuts whatever the flight held.
    expect(nextConcurrency(state, 'congestion', 16, 1, 2, false)?.limit).toBe(2);
  });

  it('keeps nothing for successes without a limit, and ignores other failures', () => {
    expect(nextConcurrency(null, 'success', 16, 1, 2, true)).toBeUndefined();
    expect(nextConcurrency({ limit: 4, ceiling: 8, successes: 1, cutAt: 0 }, 'neutral', 16, 1, 2, true)).toBeUndefined();
  });
});
