// The lane gauges' read (laneStats) without a server: its two operations share one time limit.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { MongoConnection } from './connection.ts';
import type { Month } from './months.ts';
import { LANE_STATS_MS, laneStats } from './ordered-lanes.ts';
import { ReadDeadlineError } from './query.ts';

/** A store with one lane whose head is retrying; the lanes' read takes `firstReadMs` of the clock. */
function store(firstReadMs: number) {
  let now = 1_000;
  vi.spyOn(performance, 'now').mockImplementation(() => now);
  const maxTimes: number[] = [];
  const conn = {
    deliveryLanes: {
      find: (_filter: unknown, o: { maxTimeMS: number }) => {
        maxTimes.push(o.maxTimeMS);
        return {
          limit: () => ({
            toArray: async () => {
              now += firstReadMs;
              return [{ headId: 'dlv_head' }];
            },
          }),
        };
      },
    },
    idsByBucket: (ids: string[]) => new Map([['202612' as Month, ids]]),
    bucket: () => ({
      deliveries: {
        find: (_filter: unknown, o: { maxTimeMS: number }) => {
          maxTimes.push(o.maxTimeMS);
          return { toArray: async () => [{ _id: 'dlv_head', status: 'retrying', createdAt: 42 }] };
        },
      },
    }),
  } as unknown as MongoConnection;
  return { conn, maxTimes };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('laneStats: the lanes, then their heads, within one time limit', () => {
  it('gives the heads’ read what the lanes’ read left of the 5 s', async () => {
    expect(LANE_STATS_MS).toBe(5_000);
    const { conn, maxTimes } = store(4_000);
    expect(await laneStats(conn)).toEqual({ open: 1, blocked: 1, oldestHeadAt: 42 });
    expect(maxTimes).toEqual([5_000, 1_000]);
  });

  it('sends no second read once the 5 s are spent: the scrape keeps the gauges’ last values', async () => {
    const { conn, maxTimes } = store(5_000);
    const read = laneStats(conn);
    await expect(read).rejects.toThrow(ReadDeadlineError);
    await expect(read).rejects.toThrow('the lane stats read ran past its 5000 ms');
    expect(maxTimes).toEqual([5_000]);
  });
});
