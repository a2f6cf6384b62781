import { describe, expect, it } from 'vitest';
import { PacedRun } from './paced-run.ts';

/** A run the test ends by hand, and the times each run was started at. */
function gatedRun() {
  const starts: number[] = [];
  let end: (err?: Error) => void = () => {};
  const run = (now: number) =>
    new Promise<void>((resolve, reject) => {
      starts.push(now);
      end = (err) => (err === undefined ? resolve() : reject(err));
    });
  return { starts, run, end: (err?: Error) => end(err) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('PacedRun', () => {
  it('starts a run beside its caller, never a second while one is going', async () => {
    const g = gatedRun();
    const paced = new PacedRun(5_000, g.run, () => {});
    expect(paced.maybeStart(0)).toBe(true);
    await settle();
    expect(g.starts).toEqual([0]);
    expect(paced.running).toBe(true);
    // Past the interval, but the first run has not ended.
    expect(paced.maybeStart(20_000)).toBe(false);
    g.end();
    await settle();
    expect(paced.running).toBe(false);
    expect(paced.maybeStart(20_000)).toBe(true);
    await settle();
    expect(g.starts).toEqual([0, 20_000]);
  });

  it('waits out the interval from the last start: 4,999 ms after it no run, 5,000 ms a run', async () => {
    const g = gatedRun();
    const paced = new PacedRun(5_000, g.run, () => {});
    paced.maybeStart(1_000);
    await settle();
    g.end();
    await settle();
    expect(paced.maybeStart(5_999)).toBe(false);
    expect(paced.maybeStart(6_000)).toBe(true);
    await settle();
    expect(g.starts).toEqual([1_000, 6_000]);
  });

  it('starts again at once when the clock stepped back past the last start', async () => {
    const g = gatedRun();
    const paced = new PacedRun(5_000, g.run, () => {});
    paced.maybeStart(10_000);
    await settle();
    g.end();
    await settle();
    expect(paced.maybeStart(9_999)).toBe(true);
    await settle();
    expect(g.starts).toEqual([10_000, 9_999]);
  });

  it('tells a failed run, synchronous throws included, and runs again at the next start due', async () => {
    const failures: string[] = [];
    let calls = 0;
    const paced = new PacedRun(
      5_000,
      () => {
        calls++;
        if (calls === 1) throw new Error('at once');
        return Promise.reject(new Error('later'));
      },
      (err) => failures.push((err as Error).message),
    );
    paced.maybeStart(0);
    await settle();
    paced.maybeStart(5_000);
    await settle();
    expect(failures).toEqual(['at once', 'later']);
    expect(paced.running).toBe(false);
  });

  it('stop waits for the run going and starts no more', async () => {
    const g = gatedRun();
    const paced = new PacedRun(5_000, g.run, () => {});
    paced.maybeStart(0);
    await settle();
    let stopped = false;
    expect(paced.stopped).toBe(false);
    const stopping = paced.stop().then(() => (stopped = true));
    // Told at once, so a run in steps ends after the step going on.
    expect(paced.stopped).toBe(true);
    await settle();
    expect(stopped).toBe(false);
    g.end();
    await stopping;
    expect(stopped).toBe(true);
    expect(paced.maybeStart(60_000)).toBe(false);
    expect(g.starts).toEqual([0]);
  });

  it('tells once of a run still going 10 intervals after it started (50,000 ms at 5,000): 49,999 not yet', async () => {
    const g = gatedRun();
    const told: string[] = [];
    const paced = new PacedRun(5_000, g.run, (err) => told.push((err as Error).message));
    paced.maybeStart(0);
    await settle();
    expect(paced.maybeStart(49_999)).toBe(false);
    expect(told).toEqual([]);
    expect(paced.maybeStart(50_000)).toBe(false);
    expect(paced.maybeStart(60_000)).toBe(false);
    expect(told).toEqual(['still running 50 s after it started; no other run starts until it ends']);
    g.end();
    await settle();
    expect(paced.maybeStart(60_000)).toBe(true);
  });

  it('a stop right after a start runs nothing; a failed callback that throws is no unhandled rejection', async () => {
    const g = gatedRun();
    const stopped = new PacedRun(5_000, g.run, () => {});
    stopped.maybeStart(0);
    await stopped.stop();
    expect(g.starts).toEqual([]);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const paced = new PacedRun(
        5_000,
        () => Promise.reject(new Error('run failed')),
        () => {
          throw new Error('the logger failed');
        },
      );
      paced.maybeStart(0);
      await settle();
      await settle();
      expect(unhandled).toEqual([]);
      expect(paced.running).toBe(false);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
