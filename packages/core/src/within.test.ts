import { afterEach, describe, expect, it, vi } from 'vitest';
import { within } from './within.ts';

afterEach(() => vi.useRealTimers());

describe('within', () => {
  it('answers with the work when it settles first, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    await expect(within(Promise.resolve(7), 1_000, () => new Error('late'))).resolves.toBe(7);
    await expect(within(Promise.reject(new Error('failed')), 1_000, () => new Error('late'))).rejects.toThrow('failed');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects with late() once ms have passed (999 ms: still waiting; 1,000: late)', async () => {
    vi.useFakeTimers();
    let outcome = 'waiting';
    void within(new Promise(() => {}), 1_000, () => new Error('late')).catch((err: Error) => (outcome = err.message));
    await vi.advanceTimersByTimeAsync(999);
    expect(outcome).toBe('waiting');
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toBe('late');
  });

  it('sets no timer for Infinity', async () => {
    vi.useFakeTimers();
    const work = within(Promise.resolve('done'), Number.POSITIVE_INFINITY, () => new Error('late'));
    expect(vi.getTimerCount()).toBe(0);
    await expect(work).resolves.toBe('done');
  });
});
