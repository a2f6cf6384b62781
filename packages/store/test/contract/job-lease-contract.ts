import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Fixtures } from './fixtures.ts';

/**
 * Whose clock times a store's job leases (JobLeaseRepo.take): the caller's (SQLite: the times
 * given are the lease's) or the server's (MongoDB: only their difference, the lease's length, is).
 */
export type LeaseClock = 'caller' | 'server';

/** Contract of the named job leases: one holder at a time, renewals, take-over after expiry. */
export function describeJobLeaseContract(f: Fixtures, clock: LeaseClock): void {
  const held = async (name: string, holder: string, now: number, until: number) => (await f.store.jobs.take(name, holder, now, until)) !== null;
  const newName = () => `job-${f.clock.now()}-${Math.random()}`;

  describe('job leases', () => {
    it('one holder at a time: the holder renews, another is refused while it holds', async () => {
      const name = newName();
      const now = f.clock.now();
      expect(await held(name, 'a', now, now + 60_000)).toBe(true);
      expect(await held(name, 'b', now + 1_000, now + 61_000)).toBe(false);
      expect(await held(name, 'a', now + 30_000, now + 90_000)).toBe(true); // renewed
      expect(await held(name, 'b', now + 31_000, now + 91_000)).toBe(false);
    });

    it("a released lease is free at once; a release by one that no longer holds it leaves the holder's", async () => {
      const name = newName();
      const now = f.clock.now();
      expect(await held(name, 'a', now, now + 60_000)).toBe(true);
      await f.store.jobs.release(name, 'b');
      expect(await held(name, 'b', now + 1_000, now + 61_000)).toBe(false);
      await f.store.jobs.release(name, 'a');
      expect(await held(name, 'b', now + 1_000, now + 61_000)).toBe(true);
      await f.store.jobs.release('never-taken', 'a'); // nothing to end
    });

    if (clock === 'caller') describeCallerClock(f, held, newName);
    else describeServerClock(f, held, newName);
  });
}

type Held = (name: string, holder: string, now: number, until: number) => Promise<boolean>;

/** A lease timed by the times the caller gives: expiry and take-over follow them. */
function describeCallerClock(f: Fixtures, held: Held, newName: () => string): void {
  it('answers the time of the take, the caller’s', async () => {
    const now = f.clock.now();
    expect(await f.store.jobs.take(newName(), 'a', now, now + 60_000)).toEqual({ at: now });
    expect(await f.store.jobs.take(newName(), 'a', now + 7, now + 60_000)).toEqual({ at: now + 7 });
  });

  it('another takes it once it has run out, to the millisecond', async () => {
    const name = newName();
    const now = f.clock.now();
    expect(await held(name, 'a', now, now + 90_000)).toBe(true);
    expect(await held(name, 'b', now + 89_999, now + 150_000)).toBe(false);
    expect(await held(name, 'b', now + 90_000, now + 150_000)).toBe(true); // expired: taken over
    expect(await held(name, 'a', now + 100_000, now + 160_000)).toBe(false);
  });

  it('a lease held more than one lease beyond what the taker sets (a clock that ran ahead) is taken over', async () => {
    const name = newName();
    const now = f.clock.now();
    expect(await held(name, 'ahead', now + 3_600_000, now + 3_720_000)).toBe(true);
    expect(await held(name, 'b', now, now + 120_000)).toBe(true);
  });

  it('a holder whose clock is ahead by up to one lease keeps it; by more, it is taken over', async () => {
    // b takes at `now` for 120 s: it takes over only a lease ending after now + 240 s.
    const [kept, lost] = [newName(), newName()];
    const now = f.clock.now();
    expect(await held(kept, 'ahead', now + 120_000, now + 240_000)).toBe(true);
    expect(await held(kept, 'b', now, now + 120_000)).toBe(false);
    expect(await held(kept, 'ahead', now + 150_000, now + 270_000)).toBe(true); // still its own
    expect(await held(lost, 'ahead', now + 120_001, now + 240_001)).toBe(true);
    expect(await held(lost, 'b', now, now + 120_000)).toBe(true);
  });
}

/** A lease timed by the server: the callers' clocks give only its length. */
function describeServerClock(f: Fixtures, held: Held, newName: () => string): void {
  it("a holder whose clock runs an hour ahead or behind shares the lease: the server's clock times it", async () => {
    const now = Date.now();
    const [ahead, behind] = [newName(), newName()];
    // By the callers' clocks the first would be taken over (ending over one lease past the
    // taker's end) and the second would have run out already; by the server's, both hold.
    expect(await held(ahead, 'ahead', now + 3_600_000, now + 3_660_000)).toBe(true);
    expect(await held(ahead, 'b', now, now + 60_000)).toBe(false);
    expect(await held(behind, 'behind', now - 3_600_000, now - 3_540_000)).toBe(true);
    expect(await held(behind, 'b', now, now + 60_000)).toBe(false);
  });

  it("answers the time of the take by the server's clock, whatever the caller's says", async () => {
    // The server here shares this host's clock (CI's replica set runs beside the tests).
    for (const callerNow of [0, Date.now(), 9e12]) {
      const taken = await f.store.jobs.take(newName(), 'a', callerNow, callerNow + 60_000);
      expect(Math.abs((taken?.at ?? Number.NaN) - Date.now())).toBeLessThan(30_000);
    }
  });

  it('another takes it once it has run out by the server’s clock', async () => {
    const name = newName();
    expect(await held(name, 'a', 0, 1)).toBe(true); // a lease of 1 ms
    // Waited for, not timed: the server's clock passes the lease's end.
    let taken = false;
    for (let i = 0; i < 200 && !taken; i++) {
      taken = await held(name, 'b', 0, 60_000);
      if (!taken) await sleep(10);
    }
    expect(taken).toBe(true);
    expect(await held(name, 'a', 0, 60_000)).toBe(false);
  });
}
