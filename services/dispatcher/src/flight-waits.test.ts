import { describe, expect, it } from 'vitest';
import { FlightWaits } from './flight-waits.ts';

/** A shared flight of `limit` places, as the Kv keeps it; `asks` counts the calls to enter. */
function flight(limit: number) {
  const members = new Set<string>();
  const f = {
    members,
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
  };
  return f;
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('FlightWaits', () => {
  it('waiters enter in arrival order as places free; a send ending here (kick) lets the head in without waiting for the poll', async () => {
    const f = flight(1);
    f.members.add('other-dispatcher');
    const waits = new FlightWaits({ enter: f.enter, leave: f.leave, pollMs: 10_000, maxWaitMs: 20_000 });
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

  it('only the head asks, every pollMs, while nothing ends here', async () => {
    const f = flight(1);
    f.members.add('other-dispatcher');
    const waits = new FlightWaits({ enter: f.enter, leave: f.leave, pollMs: 10, maxWaitMs: 20_000 });
    const both = Promise.all([waits.wait('ep', 'a'), waits.wait('ep', 'b')]);
    await tick(105);
    // One ask now and about one per 10 ms: not one per waiter.
    expect(f.asks).toBeGreaterThanOrEqual(5);
    expect(f.asks).toBeLessThanOrEqual(12);
    await f.leave('ep', 'other-dispatcher');
    await tick(30);
    expect(f.members).toEqual(new Set(['a']));
    waits.stop();
    const [a, b] = await both;
    expect(a).toEqual(expect.any(Number)); // what enter answered
    expect(b).toBeNull();
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
    const waits = new FlightWaits({ enter: slowEnter, leave: async (_e, m) => void members.delete(m), pollMs: 5, maxWaitMs: 20 });
    const gaveUp = waits.wait('ep', 'a');
    expect(await gaveUp).toBeNull();
    release?.();
    await tick(5);
    expect(members.size).toBe(0);
  });

  it('stop: every waiter and every later wait is refused at once', async () => {
    const f = flight(0);
    const waits = new FlightWaits({ enter: f.enter, leave: f.leave, pollMs: 5, maxWaitMs: 20_000 });
    const waiting = waits.wait('ep', 'a');
    waits.stop();
    expect(await waiting).toBeNull();
    expect(await waits.wait('ep', 'b')).toBeNull();
  });
});
