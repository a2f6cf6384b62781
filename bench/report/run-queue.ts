// How often the machine had more threads ready to run than it has CPUs: the kernel's count of
// runnable threads (/proc/loadavg's fourth field), sampled every 2 ms on a thread of the
// harness's own (run-queue-worker.ts). Over a span: the mean, and the share of samples with
// more runnable threads than CPUs (one at least waiting for a CPU). The CPU table's average
// hides bursts: a span at 140 % of 200 % can still have a thread waiting in half its samples,
// and a caller woken then waits for a slice (the API probe's floor, docs/benchmarks.md).
import { cpus as cpuList } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startThread } from '@wirehook/core';
import { round } from './stats.ts';

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

/**
 * Runnable threads in a /proc/loadavg text ("0.20 0.18 0.12 3/80 11206": 3 of 80), less the
 * reader, which is running as it reads; null when the text has no such field.
 */
export function runnableOf(loadavg: string): number | null {
  const match = /^\S+ \S+ \S+ (\d+)\/\d+ /.exec(loadavg);
  return match === null ? null : Math.max(0, Number(match[1]) - 1);
}

/** Adds one reading to the counters (the sampler thread's side). */
export function addSample(counts: Int32Array, loadavg: string, cpus: number): void {
  const runnable = runnableOf(loadavg);
  if (runnable === null) return;
  Atomics.add(counts, SAMPLES, 1);
  Atomics.add(counts, RUNNABLE_SUM, runnable);
  if (runnable > cpus) Atomics.add(counts, OVER_CPUS, 1);
}

/** The run queue between two marks; null when nothing was sampled between them. */
export function runQueueBetween(from: RunQueueMark, to: RunQueueMark, cpus: number): RunQueue | null {
  // `| 0`: a difference of int32 counters stays right across a wrap.
  const samples = (to[SAMPLES] - from[SAMPLES]) | 0;
  if (samples <= 0) return null;
  return {
    samples,
    mean: round(((to[RUNNABLE_SUM] - from[RUNNABLE_SUM]) | 0) / samples),
    overCpusPercent: Math.round((((to[OVER_CPUS] - from[OVER_CPUS]) | 0) / samples) * 100),
    cpus,
  };
}

/** The machine's CPUs as the kernel counts them (the run queue is the machine's, whatever this process's affinity), as the report's header does. */
const CPUS = cpuList().length;

let sampler: { counts: Int32Array; worker: Worker } | undefined;

/** Starts the sampler thread, once per process (it does not keep the process alive); its start takes a moment. */
export function startRunQueue(): { counts: Int32Array; worker: Worker } {
  if (sampler === undefined) {
    const counts = new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT));
    const worker = startThread(new URL('./run-queue-worker.ts', import.meta.url), {
      workerData: { counts, cpus: CPUS, everyMs: RUN_QUEUE_SAMPLE_MS },
      name: 'bench-run-queue',
    });
    worker.unref();
    sampler = { counts, worker };
  }
  return sampler;
}

/** Marks now, to measure a span from (starting the sampler when it is not yet). */
export function markRunQueue(): RunQueueMark {
  const { counts } = startRunQueue();
  return [Atomics.load(counts, SAMPLES), Atomics.load(counts, RUNNABLE_SUM), Atomics.load(counts, OVER_CPUS)];
}

/** The run queue since `mark`; null when nothing was sampled (too short a span, or no /proc/loadavg). */
export function runQueueSince(mark: RunQueueMark): RunQueue | null {
  return runQueueBetween(mark, markRunQueue(), CPUS);
}

/** Ends the sampler thread (tests; the bench lets it end with the process). */
export async function stopRunQueue(): Promise<void> {
  const ending = sampler;
  sampler = undefined;
  await ending?.worker.terminate();
}
