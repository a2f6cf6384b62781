// Loaded into a Wirehook process by `pnpm bench --alloc DIR` (node --import): V8's sampling heap
// profiler on the main thread, counting every sampled allocation — freed ones included, so the
// profile is what each function allocates, not what it keeps. Written to DIR at exit; summarised
// by bench/alloc/summary.ts. Sampling every 16 KiB costs a few per cent of the CPU figures.
// With WIREHOOK_ALLOC_SURVIVORS=1, what dies in a scavenge is left out: the profile is then what
// each function allocates that outlives the young generation (promoted, or alive at the end).
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';

const dir = process.env['WIREHOOK_ALLOC_DIR'];
// --import runs in every worker thread too (they inherit the process's flags): the main thread's only.
if (dir && isMainThread) {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.enable');
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 16_384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: process.env['WIREHOOK_ALLOC_SURVIVORS'] !== '1',
  });
  // A same-thread session answers synchronously: the profile is written before the process ends.
  process.once('exit', () => {
    session.post('HeapProfiler.stopSampling', (err, result) => {
      if (err === null) writeFileSync(join(dir, `${process.pid}.heapprofile`), JSON.stringify(result.profile));
    });
  });
}
