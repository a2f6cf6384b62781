// The bench's run queue against threads that keep the CPUs busy: more spinning threads than
// CPUs must show as runnable threads above the CPUs, and stop showing once they end.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { markRunQueue, runQueueSince, stopRunQueue } from '../../bench/report/run-queue.ts';

afterAll(() => stopRunQueue());

/** `count` threads spinning for `ms` of wall time; resolves when all have ended. */
async function spin(count: number, ms: number): Promise<void> {
  const code = `const end = Date.now() + ${ms}; while (Date.now() < end);`;
  await Promise.all(
    Array.from({ length: count }, () => {
      const worker = new Worker(code, { eval: true });
      return new Promise((resolve, reject) => worker.once('exit', resolve).once('error', reject));
    }),
  );
}

describe('the run queue', () => {
  it('counts the spinning threads beyond the CPUs while they run, and not after', async () => {
    const cpus = availableParallelism();
    const busyMark = markRunQueue();
    await spin(cpus + 2, 1_000);
    const busy = runQueueSince(busyMark);
    const quietMark = markRunQueue();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const quiet = runQueueSince(quietMark);

    expect(busy).toMatchObject({ cpus, samples: expect.any(Number) });
    expect(busy!.samples).toBeGreaterThan(20);
    // cpus + 2 spinners alone keep two threads waiting; the rest of the machine only adds.
    expect(busy!.mean).toBeGreaterThanOrEqual(cpus + 1);
    expect(busy!.overCpusPercent).toBeGreaterThanOrEqual(70);
    // Whatever else the machine runs (other test files), the spinners' share is gone.
    expect(quiet!.samples).toBeGreaterThan(100);
    expect(busy!.mean - quiet!.mean).toBeGreaterThanOrEqual(2);
  });
});
