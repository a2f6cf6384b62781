import { ManualClock } from '@wirehook/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { describeKvContract } from '../test/kv-contract.ts';
import { MemoryKv } from './memory-kv.ts';

describeKvContract('MemoryKv', async () => {
  const clock = new ManualClock();
  return { kv: new MemoryKv({ clock }), advance: (ms) => clock.advance(ms) };
});

describe('MemoryKv', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a log entry that a clock stepping back put behind a later one counts only in its window, and goes once those before it have', async () => {
    const kv = new MemoryKv({ clock: new ManualClock() });
    // A window of 100 ms, a limit of 2: `late` at 1,000, then `early` at 950 (the clock stepped back less than a window), behind it.
    expect(await kv.logAdmit('log', 'late', 2, 100, 1_000)).toBe(0);
    expect(await kv.logAdmit('log', 'early', 2, 100, 950)).toBe(0);
    // At 1,050 `late` is in the window and `early` not, though still held (behind `late`): a place is left.
    expect(await kv.logAdmit('log', 'third', 2, 100, 1_050)).toBe(0);
    expect(await kv.logCount('log', 100, 1_050)).toBe(2);
    // Full now (`late` and `third`): the next waits until `late` leaves the window, 1,100.
    expect(await kv.logAdmit('log', 'fourth', 2, 100, 1_060)).toBe(40);
    // At 1,250 every entry is at or before 1,050, two windows back: all pruned, `early` with them.
    expect(await kv.logAdmit('log', 'fifth', 1, 100, 1_250)).toBe(0);
    expect(await kv.logCount('log', 1_000, 1_250)).toBe(1);
  });

  it('a clock stepping back an hour does not let a rate log grow: it is pruned by time until it is in order again', async () => {
    const kv = new MemoryKv({ clock: new ManualClock() });
    const T = 10_000_000;
    // One entry at T, then 100 s of admits at 10 a second an hour earlier: a limit of 10 a 1 s window.
    expect(await kv.logAdmit('rate', 'before the step', 10, 1_000, T)).toBe(0);
    let admitted = 0;
    for (let i = 0; i < 1_000; i++) if ((await kv.logAdmit('rate', `m${i}`, 10, 1_000, T - 3_600_000 + i * 100)) === 0) admitted++;
    expect(admitted).toBeGreaterThan(800); // the entry at T counts as made at the step's first admit, then leaves
    // Held: the entry at T (still ahead), and two windows of admits at most — not the 800 and more admitted.
    expect(await kv.logCount('rate', 10_000_000_000, T)).toBeLessThanOrEqual(2 * 10 + 1);
  });

  it('a member admitted again moves to the end of its log, so the entries before it are pruned in time', async () => {
    const kv = new MemoryKv({ clock: new ManualClock() });
    await kv.logAdmit('log', 'a', 100, 1_000, 1_000);
    await kv.logAdmit('log', 'b', 100, 1_000, 1_100);
    await kv.logAdmit('log', 'a', 100, 1_000, 1_900);
    // At 3,500 (pruned at or before 1,500): `b` goes, `a` (1,900) stays.
    await kv.logAdmit('log', 'c', 100, 1_000, 3_500);
    expect(await kv.logCount('log', 10_000_000, 3_500)).toBe(2);
  });

  it('expires an entry exactly ttlMs after it was written', async () => {
    const clock = new ManualClock();
    const kv = new MemoryKv({ clock });
    await kv.setIfAbsent('k', 'v', 1000);
    clock.advance(999);
    expect(await kv.get('k')).toBe('v');
    clock.advance(1);
    expect(await kv.get('k')).toBeNull();
  });

  it('sweep() removes expired entries only and counts them', async () => {
    const clock = new ManualClock();
    const kv = new MemoryKv({ clock });
    await kv.setIfAbsent('short', 'v', 100);
    await kv.incr('counter', 200);
    await kv.setIfAbsent('long', 'v', 10_000);
    expect(kv.size).toBe(3);
    clock.advance(500);
    expect(kv.size).toBe(3); // expired but not yet swept
    expect(kv.sweep()).toBe(2);
    expect(kv.size).toBe(1);
    expect(await kv.get('long')).toBe('v');
  });

  it('start() sweeps on its interval until stop()', async () => {
    vi.useFakeTimers();
    const clock = new ManualClock();
    const kv = new MemoryKv({ clock, sweepIntervalMs: 1000 });
    kv.start();
    kv.start(); // idempotent: still one timer
    expect(vi.getTimerCount()).toBe(1);
    await kv.setIfAbsent('a', 'v', 100);
    clock.advance(200);
    vi.advanceTimersByTime(999);
    expect(kv.size).toBe(1);
    vi.advanceTimersByTime(1);
    expect(kv.size).toBe(0);

    kv.stop();
    expect(vi.getTimerCount()).toBe(0);
    await kv.setIfAbsent('b', 'v', 100);
    clock.advance(200);
    vi.advanceTimersByTime(5000);
    expect(kv.size).toBe(1);
    await kv.close();
  });

  it('does not keep the process alive with its sweep timer', () => {
    const spy = vi.spyOn(globalThis, 'setInterval');
    const kv = new MemoryKv({ clock: new ManualClock() });
    kv.start();
    const timer = spy.mock.results[0]?.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    kv.stop();
    spy.mockRestore();
  });

  it('close() stops the sweep and drops everything', async () => {
    vi.useFakeTimers();
    const kv = new MemoryKv({ clock: new ManualClock() });
    kv.start();
    await kv.setIfAbsent('a', 'v', 100);
    await kv.close();
    expect(vi.getTimerCount()).toBe(0);
    expect(kv.size).toBe(0);
    kv.start(); // no effect once closed
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects incrementing past the safe integer range', async () => {
    const kv = new MemoryKv({ clock: new ManualClock() });
    await kv.setIfAbsent('big', String(Number.MAX_SAFE_INTEGER), 1000);
    await expect(kv.incr('big', 1000)).rejects.toThrow('not an integer or out of range');
  });
});
