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
    // Every spinner starts, then waits at a barrier; the mark is taken once all wait, and they
    // spin half a second together: no sample falls in a thread's start-up (a ramp that read as
    // fewer waiting threads on a loaded machine).
    const code = `const { workerData: gate } = require('node:worker_threads');
      Atomics.add(gate, 0, 1); Atomics.notify(gate, 0);
      Atomics.wait(gate, 1, 0);
      const end = Date.now() + 500; while (Date.now() < end);`;
    const spin = async (): Promise<ReturnType<typeof runQueueSince>> => {
      const gate = new Int32Array(new SharedArrayBuffer(8));
      const n = cpus + 2;
      const exits = Array.from({ length: n }, () => {
        const worker = new Worker(code, { eval: true, workerData: gate });
        return new Promise((resolve, reject) => worker.once('exit', resolve).once('error', reject));
      });
      while (Atomics.load(gate, 0) < n) await new Promise((resolve) => setTimeout(resolve, 5));
      const from = markRunQueue();
      Atomics.store(gate, 1, 1);
      Atomics.notify(gate, 1);
      await Promise.all(exits);
      return runQueueSince(from);
    };
    // Measured again when the sampler (a thread of its own, which the spinners starve on a
    // machine busy with more) took too few samples to say: five tries.
    let busy = null as ReturnType<typeof runQueueSince>;
    for (let round = 0; round < 5 && (busy === null || busy.samples <= 10); round++) busy = await spin();
    expect(busy).toMatchObject({ cpus, samples: expect.any(Number) });
    expect(busy!.samples).toBeGreaterThan(10);
    // The spinners alone keep two threads waiting; whatever else runs only adds.
    expect(busy!.mean).toBeGreaterThanOrEqual(cpus + 1);
    expect(busy!.overCpusPercent).toBeGreaterThanOrEqual(70);
  });
});
