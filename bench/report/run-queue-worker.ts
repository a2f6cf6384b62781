// The run queue's sampler thread (see run-queue.ts): reads the kernel's runnable count every
// few milliseconds and adds it to counters the harness reads without a message.
import { readFileSync } from 'node:fs';
import { workerData } from 'node:worker_threads';
import { addSample } from './run-queue.ts';

const { counts, cpus, everyMs } = workerData as { counts: Int32Array; cpus: number; everyMs: number };

setInterval(() => {
  let text: string;
  try {
    text = readFileSync('/proc/loadavg', 'latin1');
  } catch {
    return; // not Linux: no samples, and every span says so
  }
  addSample(counts, text, cpus);
}, everyMs);
