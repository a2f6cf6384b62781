// Experiment (sixty-second session; NICE_THREADS colon-separated in the sixty-fourth, for --ab-env): worker threads at a higher nice by name; NICE_VALUE, NICE_THREADS.
import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { isMainThread } from 'node:worker_threads';
const value = Number(process.env.NICE_VALUE ?? 0);
if (isMainThread && value !== 0) {
  const names = new Set((process.env.NICE_THREADS ?? 'store-writer,store-reader,egress').split(':'));
  const done = new Set();
  const scan = () => {
    for (const tid of readdirSync('/proc/self/task')) {
      if (done.has(tid)) continue;
      let comm;
      try {
        comm = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      } catch {
        continue;
      }
      if (!names.has(comm)) continue;
      done.add(tid);
      try {
        setPriority(Number(tid), value);
        process.stderr.write(`nice: ${comm} ${tid} ${value}\n`);
      } catch (e) {
        process.stderr.write(`nice: ${comm} ${tid} ${e}\n`);
      }
    }
  };
  setInterval(scan, 500).unref();
}
