// The metrics' backlog read and the capped counts beneath it, without a server: what each
// operation is asked (where it reads, how long it may take, how many keys it may count).
import { describe, expect, it } from 'vitest';
import { BACKLOG_COUNT_CAP } from '../ports/delivery-port.ts';
import type { MongoConnection } from './connection.ts';
import { BACKLOG_READ_MS, BACKLOG_READ_PREFERENCE, backlogReadOptions } from './backlog-read.ts';
import { MongoDeliveryRepo } from './delivery-repo.ts';
import { countAcrossMonths } from './endpoint-stats-repo.ts';
import { ENDPOINT_COUNT_CAP } from './plans/endpoints.ts';
import type { Month } from './months.ts';

type Call = { op: 'count' | 'findOne'; month: Month; options: Record<string, unknown> };

/** A connection of two months whose deliveries count `counts[month]` (up to the limit asked) and have no due head. */
function connection(counts: Record<string, number>, firstCountMs = 0): { conn: MongoConnection; calls: Call[] } {
  const calls: Call[] = [];
  let first = true;
  const months = Object.keys(counts) as Month[];
  const conn = {
    months: async () => months,
    bucket: (month: Month) => ({
      deliveries: {
        countDocuments: async (_filter: unknown, options: Record<string, unknown>) => {
          calls.push({ op: 'count', month, options });
          if (first && firstCountMs > 0) await new Promise((resolve) => setTimeout(resolve, firstCountMs));
          first = false;
          return Math.min(counts[month]!, options.limit as number);
        },
        findOne: async (_filter: unknown, options: Record<string, unknown>) => {
          calls.push({ op: 'findOne', month, options });
          return { dueAt: 1_000 + Number(month) };
        },
      },
    }),
  } as unknown as MongoConnection;
  return { conn, calls };
}

describe('the MongoDB backlog read (the metrics)', () => {
  it(`reads a secondary when one is up, every operation within what is left of ${BACKLOG_READ_MS} ms`, async () => {
    expect(BACKLOG_READ_MS).toBe(5_000);
    const { conn, calls } = connection({ '202611': 3, '202612': 4 });
    const backlog = await new MongoDeliveryRepo(conn).backlog(2_000_000);
    // Both counts over both months (each 3 + 4), and the least of the months' heads.
    expect(backlog).toEqual({ due: 7, retrying: 7, oldestDueAt: 1_000 + 202611 });
    expect(calls).toHaveLength(6);
    for (const { options } of calls) {
      expect(options.readPreference).toBe(BACKLOG_READ_PREFERENCE);
      expect(options.maxTimeMS).toBeGreaterThan(0);
      expect(options.maxTimeMS).toBeLessThanOrEqual(BACKLOG_READ_MS);
    }
    // Counts name their index and are capped; the newest month is counted first.
    const counts = calls.filter((c) => c.op === 'count');
    expect(counts.map((c) => c.options.comment)).toEqual(['deliveries.dueCount', 'deliveries.retrying', 'deliveries.dueCount', 'deliveries.retrying']);
    expect(counts.every((c) => typeof c.options.hint === 'object')).toBe(true);
    expect(counts.map((c) => [c.month, c.options.limit])).toEqual([
      ['202612', BACKLOG_COUNT_CAP],
      ['202612', BACKLOG_COUNT_CAP],
      ['202611', BACKLOG_COUNT_CAP - 4],
      ['202611', BACKLOG_COUNT_CAP - 4],
    ]);
  });

  it('gives each operation the time left to one deadline, and none once it has passed (0 would mean no limit)', () => {
    expect(BACKLOG_READ_PREFERENCE.mode).toBe('secondaryPreferred');
    expect(BACKLOG_READ_PREFERENCE.maxStalenessSeconds).toBe(90);
    const now = performance.now();
    const read = backlogReadOptions(now + 5_000);
    expect(read().maxTimeMS).toBeGreaterThan(4_900);
    expect(read().maxTimeMS).toBeLessThanOrEqual(5_000);
    expect(() => backlogReadOptions(now - 1)()).toThrow('the backlog read ran past its 5000 ms');
  });

  it('shares one deadline among the read’s operations: a slow first one leaves the later ones less', async () => {
    // The newest month's first count takes 300 ms: every operation sent after it has that much less.
    const { conn, calls } = connection({ '202611': 3, '202612': 4 }, 300);
    await new MongoDeliveryRepo(conn).backlog(2_000_000);
    const later = calls.filter((c) => c.op === 'count' && c.month === '202611');
    expect(later).toHaveLength(2);
    for (const c of later) expect(c.options.maxTimeMS).toBeLessThanOrEqual(BACKLOG_READ_MS - 250);
  });
});

describe("the endpoint page's retrying_count on MongoDB", () => {
  it(`counts up to ENDPOINT_COUNT_CAP (${ENDPOINT_COUNT_CAP}) on a request, not the metrics' ${BACKLOG_COUNT_CAP}`, async () => {
    expect(ENDPOINT_COUNT_CAP).toBe(10_000);
    const { conn, calls } = connection({ '202611': 20_000, '202612': 9_999 });
    expect(await new MongoDeliveryRepo(conn).retryingCount({ orgId: 'org_1', env: 'live' } as never, 'ep_1' as never)).toBe(10_000);
    expect(calls.map((c) => [c.month, c.options.limit, c.options.comment])).toEqual([
      ['202612', 10_000, 'deliveries.retryingOfEndpoint'],
      ['202611', 1, 'deliveries.retryingOfEndpoint'],
    ]);
    // A request reads the primary (a page shows what the API just wrote).
    expect(calls.every((c) => c.options.readPreference === undefined)).toBe(true);
  });
});

describe('countAcrossMonths', () => {
  const months = ['202610', '202611', '202612'] as Month[];

  it('counts the newest month first, each month limited to what the cap leaves', async () => {
    const asked: [Month, number][] = [];
    const total = await countAcrossMonths(months, 10, async (month, limit) => {
      asked.push([month, limit]);
      return Math.min(limit, 3);
    });
    expect(total).toBe(9);
    expect(asked).toEqual([
      ['202612', 10],
      ['202611', 7],
      ['202610', 4],
    ]);
  });

  it('stops once the cap is reached: the months before are not counted, and the sum is the cap', async () => {
    const asked: Month[] = [];
    const total = await countAcrossMonths(months, 10, async (month, limit) => {
      asked.push(month);
      return Math.min(limit, 6);
    });
    expect(total).toBe(10);
    expect(asked).toEqual(['202612', '202611']);
    // One under the cap reads on to the oldest month.
    const under = await countAcrossMonths(months, 10, async (month, limit) => Math.min(limit, month === '202612' ? 9 : 0));
    expect(under).toBe(9);
  });

  it('counts nothing over no months, and passes a count’s failure on', async () => {
    expect(await countAcrossMonths([], 10, async () => 1)).toBe(0);
    await expect(
      countAcrossMonths(months, 10, async () => {
        throw new Error('operation exceeded time limit');
      }),
    ).rejects.toThrow('operation exceeded time limit');
  });
});
