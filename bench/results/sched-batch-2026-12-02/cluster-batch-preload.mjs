// Experiment (issue 46): cluster mode's dispatcher processes under SCHED_BATCH, every thread.
import { execFile } from 'node:child_process';
import { isMainThread } from 'node:worker_threads';
if (isMainThread && /services\/dispatcher\//.test(process.argv[1] ?? '')) {
  const apply = () =>
    execFile('chrt', ['--batch', '--all-tasks', '-p', '0', String(process.pid)], (e) =>
      process.stderr.write(`sched-batch: dispatcher ${process.pid} ${e ?? 'ok'}\n`),
    );
  apply();
  // Threads started later inherit from their creator (the main thread, now batch); once more for those already starting.
  setTimeout(apply, 5000).unref();
}
