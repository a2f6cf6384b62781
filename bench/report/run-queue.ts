// How often the machine had more threads ready to run than it has CPUs: the kernel's count of
// runnable threads (/proc/loadavg's fourth field), sampled every 2 ms on a thread of the
// harness's own. Over a span: the mean, and the share of samples with more runnable threads
// than CPUs (one at least waiting for a CPU). The CPU table's average hides bursts: a span
// at 140 % of 200 % can still have a thread waiting in half its moments, and a caller woken
// then waits for a slice (the API probe's floor, docs/benchmarks.md).
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** How often the count is read. */
export const RUN_QUEUE_SAMPLE_MS = 2;

/** Counters the sampler adds to: samples, the sum of runnable counts, samples above the CPUs. */
const SAMPLES = 0;
const RUNNABLE_SUM = 1;
const OVER_CPUS = 2;

/** A point in the sampler's counts, to measure a span from. */
export type RunQueueMark = readonly [number, number, number];

/** A span's run queue: samples taken, mean runnable threads (the sampler left out), percent of samples with more than `cpus`. */
export interface RunQueue {
  samples: number;
  mean: number;
  overCpusPercent: number;
  cpus: number;
}

// The sampler thread: reads the runnable count, less itself (it is running as it reads).
const SAMPLER = `
const { workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { counts, cpus, everyMs } = workerData;
const sample = () => {
  let runnable;
  try {
    runnable = Number(readFileSync('/proc/loadavg', 'latin1').split(' ')[3].split('/')[0]) - 1;
  } catch {
    return; // not Linux: no samples, and every span says so
  }
  Atomics.add(counts, ${SAMPLES}, 1);
  Atomics.add(counts, ${RUNNABLE_SUM}, runnable);
  if (runnable > cpus) Atomics.add(counts, ${OVER_CPUS}, 1);
};
setInterval(sample, everyMs);
`;

let sampler: { counts: Int32Array; worker: Worker } | undefined;

/** Starts the sampler (once per process; it does not keep the process alive) and marks now. */
export function markRunQueue(): RunQueueMark {
  if (sampler === undefined) {
    const counts = new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT));
    const worker = new Worker(SAMPLER, {
      eval: true,
      workerData: { counts, cpus: availableParallelism(), everyMs: RUN_QUEUE_SAMPLE_MS },
      name: 'bench-run-queue',
    });
    worker.unref();
    sampler = { counts, worker };
  }
  const { counts } = sampler;
  return [Atomics.load(counts, SAMPLES), Atomics.load(counts, RUNNABLE_SUM), Atomics.load(counts, OVER_CPUS)];
}

/** The run queue since `mark`; null when nothing was sampled (too short a span, or no /proc/loadavg). */
export function runQueueSince(mark: RunQueueMark): RunQueue | null {
  const now = markRunQueue();
  const samples = now[SAMPLES] - mark[SAMPLES];
  if (samples <= 0) return null;
  const round1 = (n: number) => Math.round(n * 10) / 10;
  return {
    samples,
    mean: round1((now[RUNNABLE_SUM] - mark[RUNNABLE_SUM]) / samples),
    overCpusPercent: Math.round(((now[OVER_CPUS] - mark[OVER_CPUS]) / samples) * 100),
    cpus: availableParallelism(),
  };
}

/** Ends the sampler thread (tests; the bench lets it end with the process). */
export async function stopRunQueue(): Promise<void> {
  const ending = sampler;
  sampler = undefined;
  await ending?.worker.terminate();
}
