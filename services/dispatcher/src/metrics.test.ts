import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { BACKLOG_REUSE_MS, registerBacklogMetrics, registerEgressThreadMetrics } from './metrics.ts';

type Backlog = { due: number; oldestDueAt: number | null; retrying: number };

/** A backlog source that counts its reads, answers `next`, and a registry scraped at `clock.at`. */
function scraped() {
  const clock = { at: 1_000_000 };
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
    { ms: BACKLOG_REUSE_MS, now: () => clock.at },
  );
  const due = async () => (await registry.getSingleMetric('wirehook_deliveries_due')!.get()).values[0]?.value;
  return { clock, source, registry, due };
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
