import { describe, expect, it, vi } from 'vitest';
import { connectWithRetry, RetryDeadlineError } from './connect-retry.ts';

const quiet = { warn: vi.fn(), info: vi.fn() };

describe('connectWithRetry', () => {
  it('retries until the dependency answers, reporting each failed attempt', async () => {
    let calls = 0;
    const onRetry = vi.fn();
    const connect = async () => {
      if (++calls < 3) throw new Error('connection refused');
      return 'connected';
    };
    expect(await connectWithRetry('NATS', connect, quiet, { backoffMs: [10], onRetry })).toBe('connected');
    expect(onRetry.mock.calls.map(([p]) => [p.attempt, p.waitMs, (p.error as Error).message])).toEqual([
      [1, 10, 'connection refused'],
      [2, 10, 'connection refused'],
    ]);
  });

  it('with a deadline: gives up once it passes, even on an attempt that hangs, naming what and the last error', async () => {
    const started = performance.now();
    const hung = connectWithRetry('NATS at nats://x:4222', () => new Promise<never>(() => {}), quiet, { deadlineAt: Date.now() + 200 });
    await expect(hung).rejects.toThrow(new RetryDeadlineError('NATS at nats://x:4222', 1, new Error('no answer before the deadline')));
    expect(performance.now() - started).toBeLessThan(1_000);

    const refused = connectWithRetry('the store', async () => Promise.reject(new Error('ECONNREFUSED')), quiet, {
      backoffMs: [50],
      deadlineAt: Date.now() + 300,
    });
    await expect(refused).rejects.toThrow(/^the store did not answer \(\d+ attempts; last: ECONNREFUSED\)$/);
  });

  it('an attempt cut off by the deadline is the last, even when the wall clock lags the timer (stepped back)', async () => {
    const deadlineAt = Date.now() + 100;
    const now = vi.spyOn(Date, 'now');
    try {
      const hung = connectWithRetry('NATS', () => new Promise<never>(() => {}), quiet, { deadlineAt });
      now.mockReturnValue(deadlineAt - 1_000); // the clock steps back a second once the timer is set
      await expect(hung).rejects.toMatchObject({ name: 'RetryDeadlineError', attempts: 1 });
    } finally {
      now.mockRestore();
    }
  });
});
