// Experiment (sixty-second session): Wirehook's main thread given EEVDF's shortest slice (sched_setattr's
// sched_runtime, 0.1 ms; kernel 6.12+, no privilege), by slice.py. WIREHOOK_SLICE_US sets it; unset, nothing.
import { spawnSync } from 'node:child_process';
import { isMainThread } from 'node:worker_threads';
const us = process.env.WIREHOOK_SLICE_US;
if (isMainThread && us) {
  const r = spawnSync('python3', [new URL('./slice.py', import.meta.url).pathname, String(process.pid), String(Number(us) * 1000)], { encoding: 'utf8' });
  process.stderr.write(`slice preload: ${r.stdout.replace(/\n/g, '; ')}\n`);
}
