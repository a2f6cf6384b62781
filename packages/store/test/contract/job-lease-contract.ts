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

    it('a lease held further ahead than the taker would ever set (a clock that ran ahead) is taken over', async () => {
      const name = `job-${f.clock.now()}-${Math.random()}`;
      const now = f.clock.now();
      expect(await f.store.jobs.take(name, 'ahead', now + 3_600_000, now + 3_720_000)).toBe(true);
      expect(await f.store.jobs.take(name, 'b', now, now + 120_000)).toBe(true);
    });
  });
}
