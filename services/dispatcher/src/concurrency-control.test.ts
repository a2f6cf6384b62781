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
    expect(nextConcurrency(null, 'congestion', 16, 0, 10)).toEqual({ limit: 8, ceiling: 16, successes: 0, cutAt: 10 });
    expect(nextConcurrency({ limit: 1, ceiling: 2, successes: 0, cutAt: 0 }, 'congestion', 16, 5, 10)?.limit).toBe(1);
  });

  it('cuts once per episode: a send started before the last cut does not cut again', () => {
    const state = { limit: 8, ceiling: 16, successes: 0, cutAt: 100 };
    expect(nextConcurrency(state, 'congestion', 16, 99, 150)).toBeUndefined();
    expect(nextConcurrency(state, 'congestion', 16, 100, 150)?.limit).toBe(4);
  });

  it('climbs back one per success below the last cut less one, then one per 4 windows', () => {
    let state = { limit: 4, ceiling: 9, successes: 0, cutAt: 0 };
    for (let i = 0; i < 4; i++) state = nextConcurrency(state, 'success', 16, 1, 2) as typeof state;
    expect(state.limit).toBe(8);
    for (let i = 0; i < 31; i++) state = nextConcurrency(state, 'success', 16, 1, 2) as typeof state;
    expect(state.limit).toBe(8);
    state = nextConcurrency(state, 'success', 16, 1, 2) as typeof state;
    expect(state.limit).toBe(9);
  });

  it('never goes above the slots: back at them it keeps no limit', () => {
    expect(nextConcurrency({ limit: 15, ceiling: 16, successes: 59, cutAt: 0 }, 'success', 16, 1, 2)).toBeNull();
  });

  it('keeps nothing for successes without a limit, and ignores other failures', () => {
    expect(nextConcurrency(null, 'success', 16, 1, 2)).toBeUndefined();
    expect(nextConcurrency({ limit: 4, ceiling: 8, successes: 1, cutAt: 0 }, 'neutral', 16, 1, 2)).toBeUndefined();
  });
});
