import { describe, expect, it, vi } from 'vitest';
import { natsBusOptions } from './common-env.ts';
import { connectNatsAtStart, connectWithRetry, RetryDeadlineError } from './connect-retry.ts';

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

  it('with a signal: its abort ends the wait between attempts at once (rejecting with its reason), and no attempt follows', async () => {
    let calls = 0;
    const stopping = new AbortController();
    // A minute between attempts: only the abort can end this wait within the test's time.
    const retrying = connectWithRetry(
      'NATS',
      async () => {
        calls++;
        throw new Error('connection refused');
      },
      quiet,
      { backoffMs: [60_000], signal: stopping.signal, onRetry: () => stopping.abort(new Error('stopping')) },
    );
    await expect(retrying).rejects.toThrow('stopping');
    expect(calls).toBe(1);
    // Aborted already: no attempt at all after the first failure.
    await expect(connectWithRetry('NATS', async () => Promise.reject(new Error('refused')), quiet, { signal: stopping.signal })).rejects.toThrow('stopping');
  });

  it('with a signal: its abort ends an attempt under way at once (a server dropping the packets); what it connects later is discarded', async () => {
    const stopping = new AbortController();
    let connected: (value: string) => void = () => {};
    const discard = vi.fn();
    const retrying = connectWithRetry('NATS', () => new Promise<string>((resolve) => (connected = resolve)), quiet, {
      signal: stopping.signal,
      discard,
    });
    stopping.abort(new Error('stopping'));
    await expect(retrying).rejects.toThrow('stopping');
    connected('a connection nobody waits for');
    await expect.poll(() => discard.mock.calls).toEqual([['a connection nobody waits for']]);
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

  // The timers and performance.now() faked, the wall clock stepped back on its own: no real time passes, so a busy
  // machine cannot make an attempt late (a stall of 200 ms once cost this test its second attempt).
  it('keeps its deadline on the timers’ clock: a wall clock stepped back a second moves neither the bound nor the count', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const steppedBack = (deadlineAt: number) => vi.spyOn(Date, 'now').mockReturnValue(deadlineAt - 1_000);
    /** `retrying`'s outcome after `ms` of the timers' time: it must have settled by then (on the wall clock it would be a second away). */
    const after = async <T>(retrying: Promise<T>, ms: number) => {
      const outcome = retrying.then(
        () => ({ settled: 'resolved' as const }),
        (error: unknown) => ({ settled: 'rejected' as const, error }),
      );
      await vi.advanceTimersByTimeAsync(ms);
      return Promise.race([outcome, Promise.resolve({ settled: 'pending' as const })]);
    };
    try {
      let deadlineAt = Date.now() + 100;
      const hung = connectWithRetry('NATS', () => new Promise<never>(() => {}), quiet, { deadlineAt });
      steppedBack(deadlineAt); // once the wait has begun
      expect(await after(hung, 100)).toMatchObject({ settled: 'rejected', error: { name: 'RetryDeadlineError', attempts: 1 } });
      vi.restoreAllMocks();

      let calls = 0;
      deadlineAt = Date.now() + 200;
      const refused = connectWithRetry('the store', async () => Promise.reject(new Error(`ECONNREFUSED ${++calls}`)), quiet, { backoffMs: [50], deadlineAt });
      steppedBack(deadlineAt);
      const outcome = await after(refused, 200);
      expect(outcome).toMatchObject({ settled: 'rejected', error: { name: 'RetryDeadlineError' } });
      // One at 0 and every 50 ms after, the last as the deadline comes: at 0, 50, 100, 150 and 200.
      expect(calls).toBe(5);
      vi.restoreAllMocks();

      // Refused, then hanging: the second attempt's cut-off is the same deadline.
      let tries = 0;
      deadlineAt = Date.now() + 200;
      const late = connectWithRetry('Redis', () => (++tries === 1 ? Promise.reject(new Error('ECONNREFUSED')) : new Promise<never>(() => {})), quiet, {
        backoffMs: [20],
        deadlineAt,
      });
      steppedBack(deadlineAt);
      expect(await after(late, 200)).toMatchObject({ settled: 'rejected', error: { name: 'RetryDeadlineError', attempts: 2 } });
    } finally {
      vi.restoreAllMocks();
      vi.useRealTimers();
    }
  });
});

describe('connectNatsAtStart', () => {
  const options = natsBusOptions({ NATS_URL: 'nats://wirehook:s3cret@nats-0:4222' } as never);

  it('hands the options to the connect and names the server, not its secret, when it retries', async () => {
    const warn = vi.fn();
    let calls = 0;
    const bus = { close: vi.fn() };
    const connected = await connectNatsAtStart(
      options,
      async (given) => {
        expect(given).toBe(options);
        if (++calls === 1) throw new Error('connection refused');
        return bus;
      },
      { warn, info: vi.fn() },
      undefined,
    );
    expect(connected).toBe(bus);
    expect(warn.mock.calls[0]?.[1]).toContain('NATS (nats://nats-0:4222) unreachable at start');
    expect(JSON.stringify(warn.mock.calls)).not.toContain('s3cret');
  });

  it('closes a bus that connects after the stop ended the wait for it', async () => {
    const stopping = new AbortController();
    const bus = { close: vi.fn() };
    let answer = (_bus: typeof bus) => {};
    const connecting = connectNatsAtStart(options, () => new Promise<typeof bus>((resolve) => (answer = resolve)), quiet, stopping.signal);
    stopping.abort(new Error('SIGTERM while starting'));
    await expect(connecting).rejects.toThrow('SIGTERM while starting');
    answer(bus);
    await vi.waitFor(() => expect(bus.close).toHaveBeenCalledOnce());
  });
});
