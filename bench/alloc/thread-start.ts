// What starting a thread costs: the egress thread (egress-worker.ts, until it says ready),
// a plain Worker (Node's stripping) against startThread (thread-entry.mjs), alternated.
//   node bench/alloc/thread-start.ts [rounds, 10]
import { Worker } from 'node:worker_threads';
import { startThread } from '@wirehook/core';
import { median } from '../report/stats.ts';

const EGRESS = new URL('../../packages/egress/src/egress-worker.ts', import.meta.url);
const options = { allowHosts: 'localhost', resolve: '', timeoutMs: 15_000, connectionsPerOrigin: 8 };
const rounds = Number(process.argv[2] ?? 10);
const results: Record<string, { wall: number[]; cpu: number[] }> = { plain: { wall: [], cpu: [] }, startThread: { wall: [], cpu: [] } };
for (let i = 0; i < rounds; i++) {
  for (const mode of i % 2 ? ['plain', 'startThread'] : ['startThread', 'plain']) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const w = mode === 'plain' ? new Worker(EGRESS, { workerData: options }) : startThread(EGRESS, { workerData: options });
    await new Promise<void>((resolve, reject) => {
      w.on('message', (m) => m === 'ready' && resolve());
      w.on('error', reject);
    });
    const wall = performance.now() - t0;
    const c = process.cpuUsage(cpu0);
    await w.terminate();
    results[mode]!.wall.push(wall);
    results[mode]!.cpu.push((c.user + c.system) / 1000);
  }
}
const spread = (xs: number[]) => `${median(xs)?.toFixed(0)} ms (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
for (const [mode, r] of Object.entries(results)) {
  console.log(`${mode.padEnd(12)} wall median ${spread(r.wall)}, process CPU median ${spread(r.cpu)}`);
}
