// dispatcherConfig: how a dispatcher sweeps and gives its places back follows how its store answers writes.
import { describe, expect, it } from 'vitest';
import { type DeliverySettings, dispatcherConfig } from './create-dispatcher.ts';
import { REFILL_SHARE_GROUPED } from './due-sweep.ts';

const settings: DeliverySettings = {
  DELIVERY_ALLOW_HOSTS: '',
  DELIVERY_RESOLVE: '',
  DELIVERY_TIMEOUT_MS: 30_000,
  DISPATCH_CONCURRENCY: 512,
  ENDPOINT_SLOTS: 16,
  SWEEP_INTERVAL_MS: 1_000,
  TRANSFORM_THREADS: 1,
  RETENTION_MONTHS: 3,
  RETENTION_INTERVAL_MS: 60_000,
};

describe('dispatcherConfig', () => {
  it('a store that groups writes (SQLite): a sweep follows an eighth of the places freed, and places go back at the answer', () => {
    const config = dispatcherConfig(settings, { groupsWrites: true }, true);
    expect(config).toMatchObject({ refillShare: REFILL_SHARE_GROUPED, completionsWithoutPlace: true, releaseLeasesAtStart: true });
    expect(REFILL_SHARE_GROUPED).toBe(8);
  });

  it('a store that answers each write alone (MongoDB): half the places, and a completion keeps its place', () => {
    for (const store of [{}, { groupsWrites: false }]) {
      expect(dispatcherConfig(settings, store, false)).toMatchObject({ refillShare: 2, completionsWithoutPlace: false, releaseLeasesAtStart: false });
    }
  });

  it('a lease outlives two attempt timeouts by 15 s; the places and slots are the settings’', () => {
    expect(dispatcherConfig(settings, {}, false)).toMatchObject({ leaseMs: 75_000, concurrency: 512, slotsPerEndpoint: 16, timeoutMs: 30_000 });
  });
});
