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
