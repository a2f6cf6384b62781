// Experiment (issue 46): Wirehook's worker threads under SCHED_BATCH (same weight as SCHED_OTHER,
// but a wake-up does not preempt the running task), applied with util-linux's chrt by thread name.
import { readdirSync, readFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { isMainThread } from 'node:worker_threads';
if (isMainThread) {
  const names = new Set((process.env.SCHED_BATCH_THREADS ?? 'store-writer,store-reader,egress').split(','));
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
      execFile('chrt', ['--batch', '-p', '0', tid], (e) => process.stderr.write(`sched-batch: ${comm} ${tid} ${e ?? 'ok'}\n`));
    }
  };
  setInterval(scan, 500).unref();
}
