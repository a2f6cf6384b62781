import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StaleBacklogError } from '@wirehook/store';
import { BACKLOG_REUSE_MS, backlogReuse, registerBacklogMetrics, registerEgressThreadMetrics, registerLaneMetrics } from './metrics.ts';
import { SCRAPE_WAIT_MS } from './scraped-source.ts';

type Backlog = { due: number; oldestDueAt: number | null; retrying: number; countedAt?: number };

/** A backlog source that counts its reads and answers `next` (an Error is thrown), and a registry scraped at `clock.at`. */
function scraped() {
  const clock = { at: 1_000_000 };
  const failed: string[] = [];
  const source = { reads: 0, next: { due: 1, oldestDueAt: null, retrying: 0 } as Backlog | Error, gate: null as Promise<void> | null };
  const registry = new Registry();
  registerBacklogMetrics(
    registry,
    async () => {
      source.reads += 1;
      if (source.gate) await source.gate;
      if (source.next instanceof Error) throw source.next;
      return source.next;
    },
    () => clock.at,
    { reuse: { ms: BACKLOG_REUSE_MS, now: () => clock.at }, failed: (err) => failed.push(err.message) },
  );
  const value = async (name: string) => (await registry.getSingleMetric(name)!.get()).values[0]?.value;
  return { clock, source, registry, value, failed };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the backlog gauges', () => {
  it(`read the store once per ${BACKLOG_REUSE_MS} ms however often they are scraped, and show that read`, async () => {
    expect(BACKLOG_REUSE_MS).toBe(5_000);
    const { clock, source, registry, value } = scraped();
    source.next = { due: 3, oldestDueAt: clock.at - 2_000, retrying: 4 };
    await registry.metrics();
    expect(source.reads).toBe(1);
    expect(await value('wirehook_deliveries_due')).toBe(3);
    expect(await value('wirehook_deliveries_retrying')).toBe(4);
    expect(await value('wirehook_deliveries_oldest_due_age_seconds')).toBe(2);
    expect(await value('wirehook_deliveries_backlog_read_timestamp_seconds')).toBe(clock.at / 1000);
    source.next = { due: 7, oldestDueAt: null, retrying: 0 };
    clock.at += 4_999;
    await registry.metrics();
    expect(source.reads).toBe(1);
    clock.at += 1;
    expect(await value('wirehook_deliveries_due')).toBe(7);
    expect(await value('wirehook_deliveries_oldest_due_age_seconds')).toBe(0);
    expect(source.reads).toBe(2);
  });

  it('date a count another process made and shared by when it was made, not by when it was read', async () => {
    const { clock, source, value } = scraped();
    source.next = { due: 1, oldestDueAt: clock.at - 17_000, retrying: 0, countedAt: clock.at - 12_000 } as Backlog;
    expect(await value('wirehook_deliveries_backlog_read_timestamp_seconds')).toBe((clock.at - 12_000) / 1000);
    // Its lag as of the count (5 s), not aged by the 12 s since: its oldest may have gone out.
    expect(await value('wirehook_deliveries_oldest_due_age_seconds')).toBe(5);
  });

  it('date a count too old to show by when it was made, even before this process read one (a new dispatcher)', async () => {
    const { clock, source, value } = scraped();
    source.next = new StaleBacklogError(clock.at - 700_000, 700_000);
    expect(await value('wirehook_deliveries_due')).toBeNaN();
    expect(await value('wirehook_deliveries_backlog_read_timestamp_seconds')).toBe((clock.at - 700_000) / 1000);
  });

  it('read NaN (unknown), not 0, before a read succeeds and after one fails; the failures are counted and dated', async () => {
    const { clock, source, registry, value, failed } = scraped();
    source.next = new Error('connection refused');
    clock.at += 1_000; // dated from the start, not from this scrape
    await registry.metrics();
    expect(await value('wirehook_deliveries_due')).toBeNaN();
    expect(await value('wirehook_deliveries_oldest_due_age_seconds')).toBeNaN();
    expect(await value('wirehook_deliveries_backlog_read_timestamp_seconds')).toBe((clock.at - 1_000) / 1000); // the start
    expect(await value('wirehook_deliveries_backlog_read_failures_total')).toBe(1);
    expect(failed).toEqual(['connection refused']);
    // A good read, then a failed one: its values go (a stale lag would page through max()), its time stays.
    source.next = { due: 2, oldestDueAt: clock.at - 700_000, retrying: 0 };
    clock.at += BACKLOG_REUSE_MS;
    await registry.metrics();
    const readAt = clock.at / 1000;
    expect(await value('wirehook_deliveries_due')).toBe(2);
    source.next = new Error('operation exceeded time limit');
    clock.at += BACKLOG_REUSE_MS;
    await registry.metrics();
    expect(await value('wirehook_deliveries_oldest_due_age_seconds')).toBeNaN();
    expect(await value('wirehook_deliveries_backlog_read_timestamp_seconds')).toBe(readAt);
    expect(await value('wirehook_deliveries_backlog_read_failures_total')).toBe(2);
    expect(await registry.metrics()).toMatch(/^wirehook_deliveries_due nan$/im);
  });

  it(`a read that outlasts ${SCRAPE_WAIT_MS} ms is a failure: the scrape answers, with NaN, and the read is counted once`, async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { clock, source, registry, value, failed } = scraped();
    await registry.metrics();
    source.gate = new Promise(() => {}); // never answers
    clock.at += BACKLOG_REUSE_MS;
    const scrape = registry.metrics();
    await vi.advanceTimersByTimeAsync(SCRAPE_WAIT_MS);
    expect(await scrape).toMatch(/^wirehook_deliveries_due nan$/im);
    expect(failed).toEqual([`no answer within ${SCRAPE_WAIT_MS} ms`]);
    // The read still runs: the next scrape answers at once (no second read), and counts it once.
    expect(await value('wirehook_deliveries_backlog_read_failures_total')).toBe(1);
    expect(source.reads).toBe(2);
  });
});

describe('backlogReuse', () => {
  it(`reuses a read for ${BACKLOG_REUSE_MS} ms where dispatchers share the store, and per scrape for the sole one`, () => {
    expect(backlogReuse(false).ms).toBe(BACKLOG_REUSE_MS);
    expect(backlogReuse(true).ms).toBe(100);
  });
});

describe('wirehook_egress_thread_restarts_total', () => {
  it('counts the threads started after the first', async () => {
    const registry = new Registry();
    let starts = 0;
    registerEgressThreadMetrics(registry, () => starts);
    const restarts = async () => (await registry.getSingleMetric('wirehook_egress_thread_restarts_total')!.get()).values[0]?.value;
    expect(await restarts()).toBe(0); // none started yet
    starts = 1;
    expect(await restarts()).toBe(0);
    starts = 3;
    expect(await restarts()).toBe(2);
    expect(await registry.metrics()).toContain('wirehook_egress_thread_restarts_total 2');
  });
});

describe('the lane gauges', () => {
  it(`read the store once per ${BACKLOG_REUSE_MS} ms where dispatchers share it, once per scrape for the sole one`, async () => {
    for (const shared of [true, false]) {
      const clock = { at: 1_000_000 };
      let reads = 0;
      const registry = new Registry();
      const lanes = async () => {
        reads += 1;
        return { open: 2, blocked: 1, oldestHeadAt: clock.at - 3_000 };
      };
      registerLaneMetrics(registry, lanes, () => clock.at, { ...backlogReuse(!shared), now: () => clock.at });
      await registry.metrics();
      clock.at += BACKLOG_REUSE_MS - 1;
      await registry.metrics();
      expect(reads, String(shared)).toBe(shared ? 1 : 2);
      clock.at += 1; // the shared read's reuse ends; the sole one's (100 ms) began at the last scrape
      await registry.metrics();
      expect(reads, String(shared)).toBe(2);
      expect((await registry.getSingleMetric('wirehook_ordered_lanes_open')!.get()).values[0]?.value).toBe(2);
    }
  });
});
