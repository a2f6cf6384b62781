import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { BACKLOG_REUSE_MS, BACKLOG_WAIT_MS, backlogReuse, registerBacklogMetrics, registerEgressThreadMetrics } from './metrics.ts';

type Backlog = { due: number; oldestDueAt: number | null; retrying: number };

/** A backlog source that counts its reads, answers `next`, and a registry scraped at `clock.at`. */
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
  const due = () => value('wirehook_deliveries_due');
  return { clock, source, registry, due, value, failed };
}

describe('the backlog gauges', () => {
  it(`read the store once per ${BACKLOG_REUSE_MS} ms however often they are scraped, by the clock given`, async () => {
    expect(BACKLOG_REUSE_MS).toBe(5_000);
    const { clock, source, registry, due } = scraped();
    await registry.metrics();
    expect(source.reads).toBe(1);
    source.next = { due: 7, oldestDueAt: null, retrying: 0 };
    clock.at += 4_999;
    await registry.metrics();
    expect(source.reads).toBe(1);
    expect(await due()).toBe(1);
    clock.at += 1;
    expect(await due()).toBe(7);
    expect(source.reads).toBe(2);
  });

  it('read again when the clock steps back', async () => {
    const { clock, source, registry } = scraped();
    await registry.metrics();
    clock.at -= 60_000;
    await registry.metrics();
    expect(source.reads).toBe(2);
    // And that read answers for the window after it, by the clock as it now reads.
    clock.at += 4_999;
    await registry.metrics();
    expect(source.reads).toBe(2);
  });

  it('share a read still running among the scrapes that arrive meanwhile', async () => {
    const { source, registry } = scraped();
    let open = () => {};
    source.gate = new Promise((resolve) => {
      open = resolve;
    });
    const scrapes = [registry.metrics(), registry.metrics(), registry.metrics()];
    open();
    await Promise.all(scrapes);
    expect(source.reads).toBe(1);
  });

  it('keep the last values when a read fails, and read again after the window', async () => {
    const { clock, source, registry, due } = scraped();
    source.next = { due: 3, oldestDueAt: clock.at - 2_000, retrying: 4 };
    await registry.metrics();
    source.next = new Error('operation exceeded time limit');
    clock.at += BACKLOG_REUSE_MS;
    expect(await due()).toBe(3);
    // The age goes on from the last oldest due time read.
    const age = (await registry.getSingleMetric('wirehook_deliveries_oldest_due_age_seconds')!.get()).values[0]?.value;
    expect(age).toBe(7);
    source.next = { due: 0, oldestDueAt: null, retrying: 0 };
    clock.at += BACKLOG_REUSE_MS;
    expect(await due()).toBe(0);
    expect(source.reads).toBe(3);
  });
});

describe('the backlog gauges’ failed reads', () => {
  it(`a read that fails at start leaves the read time at 0 and counts the failure`, async () => {
    const { source, value, failed } = scraped();
    source.next = new Error('connection refused');
    expect(await value('wirehook_deliveries_backlog_read_timestamp_seconds')).toBe(0);
    expect(await value('wirehook_deliveries_backlog_read_failures_total')).toBe(1);
    expect(failed).toEqual(['connection refused']);
    source.next = { due: 2, oldestDueAt: null, retrying: 0 };
  });

  it(`a read that takes longer than ${BACKLOG_WAIT_MS} ms fails, and the scrape answers with the last good values`, async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      expect(BACKLOG_WAIT_MS).toBe(6_000);
      const { clock, source, registry, due, value, failed } = scraped();
      source.next = { due: 5, oldestDueAt: null, retrying: 0 };
      await registry.metrics();
      expect(await value('wirehook_deliveries_backlog_read_timestamp_seconds')).toBe(clock.at / 1000);
      const readAt = clock.at / 1000;
      source.gate = new Promise(() => {}); // never answers
      source.next = { due: 9, oldestDueAt: null, retrying: 0 };
      clock.at += BACKLOG_REUSE_MS;
      const scrape = due();
      await vi.advanceTimersByTimeAsync(BACKLOG_WAIT_MS - 1);
      let answered = false;
      void scrape.then(() => (answered = true));
      await Promise.resolve();
      expect(answered).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await scrape).toBe(5);
      expect(failed).toEqual([`no answer within ${BACKLOG_WAIT_MS} ms`]);
      expect(await value('wirehook_deliveries_backlog_read_failures_total')).toBe(1);
      expect(await value('wirehook_deliveries_backlog_read_timestamp_seconds')).toBe(readAt);
    } finally {
      vi.useRealTimers();
    }
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
