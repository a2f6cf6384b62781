import { ManualClock } from '@wirehook/core';
import type { Logger } from '@wirehook/platform';
import type { Store } from '@wirehook/store';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BACKLOG_COUNT_INTERVAL_MS, BacklogCountJob, STOP_WAIT_MS } from './backlog-count-job.ts';

/** A store whose countBacklog records its calls and waits for the test to answer each. */
function counting() {
  const calls: number[] = [];
  const answers: { resolve: (counted: boolean) => void; reject: (err: Error) => void }[] = [];
  const deliveries = {
    countBacklog(now: number): Promise<boolean> {
      calls.push(now);
      return new Promise((resolve, reject) => answers.push({ resolve, reject }));
    },
  };
  return { store: { deliveries } as unknown as Store, calls, answers };
}

function logged() {
  const lines: string[] = [];
  const logger = {
    warn: (fields: { err: Error }, message: string) => lines.push(`${message}: ${fields.err.message}`),
    info: (_fields: unknown, message: string) => lines.push(message),
  } as unknown as Logger;
  return { logger, lines };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('BacklogCountJob', () => {
  it(`offers to count at start and every ${BACKLOG_COUNT_INTERVAL_MS} ms, one run at a time, at the clock's time`, async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    expect(BACKLOG_COUNT_INTERVAL_MS).toBe(15_000);
    const { store, calls, answers } = counting();
    const clock = new ManualClock(7_000);
    const job = new BacklogCountJob({ store, clock, logger: logged().logger });
    await job.start();
    expect(calls).toEqual([7_000]);
    // The first still runs: the tick skips.
    await vi.advanceTimersByTimeAsync(BACKLOG_COUNT_INTERVAL_MS);
    expect(calls).toHaveLength(1);
    answers[0]!.resolve(true);
    clock.advance(30_000);
    await vi.advanceTimersByTimeAsync(BACKLOG_COUNT_INTERVAL_MS);
    expect(calls).toEqual([7_000, 37_000]);
    // stop() waits for the run under way, and no tick runs after it.
    let stopped = false;
    const stopping = job.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    answers[1]!.resolve(false);
    await stopping;
    await vi.advanceTimersByTimeAsync(3 * BACKLOG_COUNT_INTERVAL_MS);
    expect(calls).toHaveLength(2);
  });

  it(`stop() waits for a count that hangs ${STOP_WAIT_MS} ms at most: a shutdown is not held up by it`, async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
    expect(STOP_WAIT_MS).toBe(1_000);
    const { store, calls } = counting();
    const job = new BacklogCountJob({ store, clock: new ManualClock(0), logger: logged().logger });
    await job.start();
    expect(calls).toHaveLength(1); // never answered
    let stopped = false;
    const stopping = job.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(STOP_WAIT_MS - 1);
    expect(stopped).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await stopping;
    expect(stopped).toBe(true);
  });

  it('logs a count that keeps failing once an outage, goes on offering, and says when it counts again', async () => {
    const { store, calls, answers } = counting();
    const { logger, lines } = logged();
    const job = new BacklogCountJob({ store, clock: new ManualClock(0), logger });
    const first = job.runOnce();
    answers[0]!.reject(new Error('not primary'));
    await first;
    const second = job.runOnce();
    answers[1]!.reject(new Error('not primary'));
    await second;
    expect(calls).toHaveLength(2);
    expect(lines).toEqual(['the backlog could not be counted: the gauges read NaN once the last count is 60 s old: not primary']);
    const third = job.runOnce();
    answers[2]!.resolve(true);
    await third;
    expect(lines[1]).toBe('the backlog could not be counted no more, after 0 s: 2 counts failed');
  });

  it('does nothing for a store that counts at its scrapes (no countBacklog: SQLite)', async () => {
    const job = new BacklogCountJob({ store: { deliveries: {} } as unknown as Store, clock: new ManualClock(0), logger: logged().logger });
    await job.start();
    await expect(job.runOnce()).resolves.toBeUndefined();
    await job.stop();
  });
});
