import { afterEach, describe, expect, it, vi } from 'vitest';
import { FlightWaits } from './flight-waits.ts';

/**
 * A shared flight of `limit` places, as the Kv keeps it: `asks` counts the calls to enter;
 * `free` is a send of another dispatcher ending, which signals every listener as the Kv does.
 */
function flight(limit: number) {
  const members = new Set<string>();
  const listeners = new Set<() => void>();
  const f = {
    members,
    listeners,
    asks: 0,
    enter: async (_endpointId: string, member: string) => {
      f.asks++;
      if (members.size >= limit) return null;
      members.add(member);
      return f.asks;
    },
    leave: async (_endpointId: string, member: string) => {
      members.delete(member);
    },
    listen: async (_endpointId: string, onFreed: () => void) => {
      const listener = () => onFreed();
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    free(member: string) {
      members.delete(member);
      for (const listener of listeners) queueMicrotask(listener);
    },
  };
  return f;
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('FlightWaits', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waiters enter in arrival order as places free; a send ending here (kick) lets the head in without waiting for the recheck', async () => {
    const f = flight(1);
    f.members.add('other-dispatcher');
    const waits = new FlightWaits({ enter: f.enter, leave: f.leave, listen: f.listen, pollMs: 10_000, maxWaitMs: 20_000 });
    const entered: string[] = [];
    const first = waits.wait('ep', 'a').then((at) => at !== null && entered.push('a'));
    const second = waits.wait('ep', 'b').then((at) => at !== null && entered.push('b'));
    await tick(5);
    expect(entered).toEqual([]);
    await f.leave('ep', 'other-dispatcher');
    waits.kick('ep');
    await first;
    expect(entered).toEqual(['a']);
    await f.leave('ep', 'a');
    waits.kick('ep');
    await second;
    expect(entered).toEqual(['a', 'b']);
  });

  it("woken by the signal of another dispatcher's send ending, not polling: between signals the head asks once per pollMs (100), not every 5 ms", async () => {
    vi.useFakeTimers();
    const f = flight(1);
    f.members.add('other-dispatcher');
    const waits = new FlightWaits({ enter: f.enter, leave: f.leave, listen: f.listen, pollMs: 100, maxWaitMs: 1_000 });
    const a = waits.wait('ep', 'a');
    const b = waits.wait('ep', 'b');
    await vi.advanceTimersByTimeAsync(99);
    expect(f.asks).toBe(2); // the head's first ask, and one more once it listens; b does not ask
    await vi.advanceTimersByTimeAsync(1);
    expect(f.asks).toBe(3); // the recheck at 100 ms
    f.free('other-dispatcher');
    await vi.advanceTimersByTimeAsync(0); // no time passes: the signal alone lets a in
    expect(await a).toBe(4);
    expect(f.members).toEqual(new Set(['a']));
    f.free('a');
    await vi.advanceTimersByTimeAsync(0);
    expect(await b).toEqual(expect.any(Number));
    expect(f.members).toEqual(new Set(['b']));
    // The queue emptied: it stopped listening.
    expect(f.listeners.size).toBe(0);
  });

  it('a signal that arrives while the head is asking is not lost: it asks again at once', async () => {
    vi.useFakeTimers();
    const f = flight(1);
    f.members.add('other-dispatcher');
    let answer: ((at: number | null) => void) | undefined;
    let asks = 0;
    const enter = (endpointId: string, member: string) => {
      asks++;
      // The second ask goes to the flight; the first is held, and answered "full" after the place freed.
      if (asks > 1) return f.enter(endpointId, member);
      return new Promise<number | null>((resolve) => {
        answer = resolve;
      });
    };
    const waits = new FlightWaits({ enter, leave: f.leave, listen: f.listen, pollMs: 10_000, maxWaitMs: 20_000 });
    const a = waits.wait('ep', 'a');
    await vi.advanceTimersByTimeAsync(0);
    expect(answer).toBeDefined();
    f.free('other-dispatcher'); // heard while the first ask is out
    await vi.advanceTimersByTimeAsync(0);
    answer!(null); // that ask was counted before the place freed
    await vi.advanceTimersByTimeAsync(0);
    expect(await a).toEqual(expect.any(Number));
    expect(asks).toBe(2);
  });

  it('a listen that fails (the Kv unreachable) is asked again at each recheck: polling meanwhile, woken by the signal once it holds', async () => {
    vi.useFakeTimers();
    const f = flight(1);
    f.members.add('other-dispatcher');
    let listens = 0;
    const listen = (endpointId: string, onFreed: () => void) =>
      ++listens < 3 ? Promise.reject(new Error('Redis is unavailable')) : f.listen(endpointId, onFreed);
    const waits = new FlightWaits({ enter: f.enter, leave: f.leave, listen, pollMs: 100, maxWaitMs: 1_000 });
    const a = waits.wait('ep', 'a');
    await vi.advanceTimersByTimeAsync(150);
    expect([f.asks, listens]).toEqual([2, 2]); // at 0 and 100 ms, listening asked for at each
    await vi.advanceTimersByTimeAsync(100);
    expect([f.asks, listens]).toEqual([3, 3]); // the recheck at 200 ms, listening (the third listen held) before it asked
    f.free('other-dispatcher');
    await vi.advanceTimersByTimeAsync(0); // woken by the signal, no time passing
    expect(await a).toBe(4);
  });

  it('a listen still under way when the queue empties ends itself when it resolves', async () => {
    const f = flight(1);
    let resolveListen: ((stop: () => void) => void) | undefined;
    let stopped = false;
    const listen = () =>
      new Promise<() => void>((resolve) => {
        resolveListen = resolve;
      });
    const waits = new FlightWaits({ enter: f.enter, leave: f.leave, listen, pollMs: 10_000, maxWaitMs: 20_000 });
    expect(await waits.wait('ep', 'a')).toEqual(expect.any(Number)); // a place was free: in at the first ask
    resolveListen!(() => {
      stopped = true;
    });
    await vi.waitFor(() => expect(stopped).toBe(true));
  });

  it('a waiter gives up after maxWaitMs (false), and one that gave up while asked gives its place back', async () => {
    let release: (() => void) | undefined;
    const members = new Set<string>();
    const slowEnter = (_e: string, member: string) =>
      new Promise<number | null>((resolve) => {
        release = () => {
          members.add(member);
          resolve(1);
        };
      });
    const f = flight(0);
    const waits = new FlightWaits({ enter: slowEnter, leave: async (_e, m) => void members.delete(m), listen: f.listen, pollMs: 5, maxWaitMs: 20 });
    const gaveUp = waits.wait('ep', 'a');
    expect(await gaveUp).toBeNull();
    release?.();
    await tick(5);
    expect(members.size).toBe(0);
  });

  it('stop: every waiter and every later wait is refused at once', async () => {
    const f = flight(0);
    const waits = new FlightWaits({ enter: f.enter, leave: f.leave, listen: f.listen, pollMs: 5, maxWaitMs: 20_000 });
    const waiting = waits.wait('ep', 'a');
    waits.stop();
    expect(await waiting).toBeNull();
    expect(await waits.wait('ep', 'b')).toBeNull();
  });
});
