// The bench's run queue: the reading of /proc/loadavg and the sums over a span on fixed
// texts, then the live sampler against more spinning threads than the machine has CPUs.
import { cpus as cpuList } from 'node:os';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { addSample, markRunQueue, runnableOf, runQueueBetween, runQueueSince, stopRunQueue } from '../../bench/report/run-queue.ts';

afterAll(() => stopRunQueue());

describe('the run queue', () => {
  it('reads the runnable count, less the reader itself, from /proc/loadavg', () => {
    expect(runnableOf('0.20 0.18 0.12 3/80 11206\n')).toBe(2);
    expect(runnableOf('1.00 0.50 0.25 1/312 4242\n')).toBe(0);
    expect(runnableOf('9.10 7.00 5.50 12/1024 99\n')).toBe(11);
    expect(runnableOf('garbage')).toBeNull();
  });

  it('sums a span: the mean, and the percent of samples with more runnable threads than CPUs', () => {
    const counts = new Int32Array(new SharedArrayBuffer(12));
    const from = [...counts] as [number, number, number];
    // On 2 CPUs: 1, 2 and 3 runnable besides the reader; only 3 is more than the CPUs.
    for (const text of ['0 0 0 2/9 1', '0 0 0 3/9 1', '0 0 0 4/9 1', '0 0 0 4/9 1']) addSample(counts, text, 2);
    addSample(counts, 'unreadable', 2);
    expect(runQueueBetween(from, [...counts] as [number, number, number], 2)).toEqual({ samples: 4, mean: 2.3, overCpusPercent: 50, cpus: 2 });
    expect(runQueueBetween(from, from, 2)).toBeNull();
    // Counters that wrapped past 2^31 between the marks still give the span.
    const near = new Int32Array(new SharedArrayBuffer(12));
    near.set([2 ** 31 - 2, 2 ** 31 - 4, 2 ** 31 - 1]);
    const before = [...near] as [number, number, number];
    // On 3 CPUs: 3, 3, 4 and 0 runnable; only 4 is more than the CPUs.
    for (const text of ['0 0 0 4/9 1', '0 0 0 4/9 1', '0 0 0 5/9 1', '0 0 0 1/9 1']) addSample(near, text, 3);
    expect([...near].every((n) => n < 0)).toBe(true);
    expect(runQueueBetween(before, [...near] as [number, number, number], 3)).toEqual({ samples: 4, mean: 2.5, overCpusPercent: 25, cpus: 3 });
  });

  it('samples the machine: more spinning threads than CPUs show as threads waiting', async () => {
    const cpus = cpuList().length;
    const mark = markRunQueue();
    const code = 'const end = Date.now() + 500; while (Date.now() < end);';
    await Promise.all(
      Array.from({ length: cpus + 2 }, () => {
        const worker = new Worker(code, { eval: true });
        return new Promise((resolve, reject) => worker.once('exit', resolve).once('error', reject));
      }),
    );
    const busy = runQueueSince(mark);
    expect(busy).toMatchObject({ cpus, samples: expect.any(Number) });
    expect(busy!.samples).toBeGreaterThan(10);
    // The spinners alone keep two threads waiting; whatever else runs only adds.
    expect(busy!.mean).toBeGreaterThanOrEqual(cpus + 1);
    expect(busy!.overCpusPercent).toBeGreaterThanOrEqual(70);
  });
});
