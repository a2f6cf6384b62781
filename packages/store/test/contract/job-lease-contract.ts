import { describe, expect, it } from 'vitest';
import type { Fixtures } from './fixtures.ts';

/** Contract of the named job leases: one holder at a time, renewals, take-over after expiry. */
export function describeJobLeaseContract(f: Fixtures): void {
  describe('job leases', () => {
    it('one holder at a time: the holder renews, another waits for the expiry, then takes it', async () => {
      const name = `job-${f.clock.now()}-${Math.random()}`;
      const now = f.clock.now();
      expect(await f.store.jobs.take(name, 'a', now, now + 60_000)).toBe(true);
      expect(await f.store.jobs.take(name, 'b', now + 1_000, now + 61_000)).toBe(false);
      expect(await f.store.jobs.take(name, 'a', now + 30_000, now + 90_000)).toBe(true); // renewed
      expect(await f.store.jobs.take(name, 'b', now + 89_999, now + 150_000)).toBe(false);
      expect(await f.store.jobs.take(name, 'b', now + 90_000, now + 150_000)).toBe(true); // expired: taken over
      expect(await f.store.jobs.take(name, 'a', now + 100_000, now + 160_000)).toBe(false);
    });

    it('a lease held more than one lease beyond what the taker sets (a clock that ran ahead) is taken over', async () => {
      const name = `job-${f.clock.now()}-${Math.random()}`;
      const now = f.clock.now();
      expect(await f.store.jobs.take(name, 'ahead', now + 3_600_000, now + 3_720_000)).toBe(true);
      expect(await f.store.jobs.take(name, 'b', now, now + 120_000)).toBe(true);
    });

    it('a holder whose clock is ahead by up to one lease keeps it; by more, it is taken over', async () => {
      // b takes at `now` for 120 s: it takes over only a lease ending after now + 240 s.
      const [kept, lost] = [`job-kept-${Math.random()}`, `job-lost-${Math.random()}`];
      const now = f.clock.now();
      expect(await f.store.jobs.take(kept, 'ahead', now + 120_000, now + 240_000)).toBe(true);
      expect(await f.store.jobs.take(kept, 'b', now, now + 120_000)).toBe(false);
      expect(await f.store.jobs.take(kept, 'ahead', now + 150_000, now + 270_000)).toBe(true); // still its own
      expect(await f.store.jobs.take(lost, 'ahead', now + 120_001, now + 240_001)).toBe(true);
      expect(await f.store.jobs.take(lost, 'b', now, now + 120_000)).toBe(true);
    });

    it("a released lease is free at once; a release by one that no longer holds it leaves the holder's", async () => {
      const name = `job-${f.clock.now()}-${Math.random()}`;
      const now = f.clock.now();
      expect(await f.store.jobs.take(name, 'a', now, now + 60_000)).toBe(true);
      await f.store.jobs.release(name, 'b');
      expect(await f.store.jobs.take(name, 'b', now + 1_000, now + 61_000)).toBe(false);
      await f.store.jobs.release(name, 'a');
      expect(await f.store.jobs.take(name, 'b', now + 1_000, now + 61_000)).toBe(true);
      await f.store.jobs.release('never-taken', 'a'); // nothing to end
    });
  });
}
