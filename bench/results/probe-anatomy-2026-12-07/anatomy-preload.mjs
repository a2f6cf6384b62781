// Probe anatomy (sixty-second session): Wirehook's main thread's GC pauses, each probe's arrival
// in JS and its answer, and the main thread's run-queue wait every millisecond, as JSON lines in
// $ANATOMY_DIR/wirehook-<pid>.jsonl (Unix ms). A measurement's tool, not shipped.
import { appendFileSync } from 'node:fs';
import http from 'node:http';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { isMainThread, Worker } from 'node:worker_threads';

const dir = process.env.ANATOMY_DIR;
if (isMainThread && dir) {
  const file = `${dir}/wirehook-${process.pid}.jsonl`;
  const now = () => performance.timeOrigin + performance.now();
  let lines = [];
  const GC_KIND = { 1: 'scavenge', 2: 'minor-ms', 4: 'mark-compact', 8: 'incremental', 16: 'weak' };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      lines.push(JSON.stringify({ t: 'gc', at: performance.timeOrigin + e.startTime, ms: e.duration, kind: GC_KIND[e.detail?.kind] ?? e.detail?.kind }));
    }
  }).observe({ entryTypes: ['gc'] });
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (...args) {
    const [event, req, res] = args;
    if (event === 'request' && req.url?.startsWith('/v1/event-types')) {
      const arrived = now();
      res.once('finish', () => lines.push(JSON.stringify({ t: 'probe', arrived, finished: now() })));
    }
    return emit.apply(this, args);
  };
  const flush = () => {
    if (lines.length === 0) return;
    appendFileSync(file, `${lines.join('\n')}\n`);
    lines = [];
  };
  setInterval(flush, 1000).unref();
  process.on('exit', flush);
  // The main thread's run-queue wait (schedstat's second field, ns), read every ms by a thread of its own.
  const sampler = new Worker(
    `const { readFileSync, appendFileSync } = require('node:fs');
     const { workerData } = require('node:worker_threads');
     const path = '/proc/' + workerData.pid + '/task/' + workerData.pid + '/schedstat';
     let last = readFileSync(path, 'utf8').split(' ').map(Number); let out = [];
     const now = () => performance.timeOrigin + performance.now();
     setInterval(() => {
       const s = readFileSync(path, 'utf8').split(' ').map(Number);
       const run = (s[0] - last[0]) / 1e6, wait = (s[1] - last[1]) / 1e6;
       if (wait > 0.2) out.push(JSON.stringify({ t: 'wait', at: now(), waitMs: wait, runMs: run }));
       last = s;
       if (out.length > 200) { appendFileSync(workerData.file, out.join('\\n') + '\\n'); out = []; }
     }, 1);
     setInterval(() => { if (out.length) { appendFileSync(workerData.file, out.join('\\n') + '\\n'); out = []; } }, 1000);`,
    { eval: true, workerData: { pid: process.pid, file: `${dir}/wirehook-${process.pid}-wait.jsonl` } },
  );
  sampler.unref();
}
