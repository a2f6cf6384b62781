import { afterEach, describe, expect, it, vi } from 'vitest';
import { SCRAPE_WAIT_MS, ScrapedSource, type ScrapedSourceOptions } from './scraped-source.ts';

/** A source whose reads are counted, each answered by the test (resolve or reject), on a clock of the test's. */
function source(options: ScrapedSourceOptions<number> = {}) {
  const clock = { at: 1_000 };
  const reads: { resolve: (n: number) => void; reject: (err: Error) => void }[] = [];
  const told: string[] = [];
  const scraped = new ScrapedSource(() => new Promise<number>((resolve, reject) => reads.push({ resolve, reject })), {
    reuse: { ms: 5_000, now: () => clock.at },
    failed: (err, again) => told.push(`${err.message}${again ? ' (again)' : ''}`),
    ...options,
  });
  return { clock, reads, told, scraped };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('ScrapedSource', () => {
  it('answers scrapes from one read for reuse.ms after it ended, by the clock given, and reads again after', async () => {
    const { clock, reads, scraped } = source();
    const first = scraped.get();
    reads[0]!.resolve(7);
    expect(await first).toBe(7);
    clock.at += 4_999;
    expect(await scraped.get()).toBe(7);
    expect(reads).toHaveLength(1);
    clock.at += 1;
    const second = scraped.get();
    expect(reads).toHaveLength(2);
    reads[1]!.resolve(8);
    expect(await second).toBe(8);
  });

  it('reads again when the clock steps back', async () => {
    const { clock, reads, scraped } = source();
    const first = scraped.get();
    reads[0]!.resolve(1);
    await first;
    clock.at -= 60_000;
    void scraped.get();
    expect(reads).toHaveLength(2);
  });

  it(`starts no read while one runs, however long it takes; a scrape waits for it at most ${SCRAPE_WAIT_MS} ms`, async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    expect(SCRAPE_WAIT_MS).toBe(6_000);
    const { clock, reads, told, scraped } = source();
    const scrapes = [scraped.get(), scraped.get()];
    clock.at += 60_000; // far past the reuse window: still the one read
    scrapes.push(scraped.get());
    expect(reads).toHaveLength(1);
    let answered = 0;
    for (const s of scrapes) void s.then(() => answered++);
    await vi.advanceTimersByTimeAsync(SCRAPE_WAIT_MS - 1);
    expect(answered).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(await Promise.all(scrapes)).toEqual([null, null, null]);
    expect(told).toEqual([`no answer within ${SCRAPE_WAIT_MS} ms`]); // told once, not once a scrape
    // Still running: the next scrape starts no read either, does not wait for it, and is told nothing new.
    expect(await scraped.get()).toBeNull();
    expect(reads).toHaveLength(1);
    expect(told).toHaveLength(1);
    // It ends at last: its answer stands, and a read after the window is a new one.
    reads[0]!.resolve(3);
    await vi.advanceTimersByTimeAsync(0);
    expect(await scraped.get()).toBe(3);
    clock.at += 5_000;
    void scraped.get();
    expect(reads).toHaveLength(2);
  });

  it('keeps the last good answer after a failure by default; `unknown` answers none until a read succeeds', async () => {
    for (const onFailure of ['keep', 'unknown'] as const) {
      const { clock, reads, told, scraped } = source({ onFailure });
      const first = scraped.get();
      reads[0]!.resolve(5);
      expect(await first).toBe(5);
      clock.at += 5_000;
      const failing = scraped.get();
      reads[1]!.reject(new Error('connection refused'));
      expect(await failing).toBe(onFailure === 'keep' ? 5 : null);
      expect(told.at(-1)).toBe('connection refused');
      clock.at += 5_000;
      const back = scraped.get();
      reads[2]!.resolve(6);
      expect(await back).toBe(6);
    }
  });

  it('a read that ran late and then fails is told again for its error, marked so that it is counted once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { reads, told, scraped } = source({ onFailure: 'unknown' });
    const scrape = scraped.get();
    await vi.advanceTimersByTimeAsync(SCRAPE_WAIT_MS);
    await scrape;
    reads[0]!.reject(new Error('waitQueueTimeoutMS'));
    await vi.advanceTimersByTimeAsync(0);
    expect(told).toEqual([`no answer within ${SCRAPE_WAIT_MS} ms`, 'waitQueueTimeoutMS (again)']);
  });
});
