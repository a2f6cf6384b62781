// What a post to another thread costs its poster: to a thread asleep in its event loop (woken by
// it) against one running (busy with a chunk of work each turn), alternated. A call of the size
// the API thread hands the store writer (a 1 KB payload), the poster's own CPU around each post.
//   node bench/alloc/post-wake.ts [rounds, 4] [posts a round, 5000]
import { Worker } from 'node:worker_threads';
import { median } from '../report/stats.ts';

const rounds = Number(process.argv[2] ?? 4);
const posts = Number(process.argv[3] ?? 5_000);
// Plain JavaScript in the thread: this measures the hand-off, not a module's load.
const THREAD = `
  const { parentPort, workerData } = require('node:worker_threads');
  parentPort.on('message', (m) => { if (m === 'end') parentPort.postMessage('ended'); });
  if (workerData === 'running') {
    const spin = () => { const t = Date.now(); while (Date.now() - t < 1) {} setImmediate(spin); };
    spin();
  }
`;
const call = { method: 'create', args: [{ id: 'msg_01', eventType: 'order.paid', payload: 'x'.repeat(1024) }] };

/** The poster's CPU a post, µs (its thread's own clock around each post). */
async function measure(mode: 'asleep' | 'running'): Promise<number> {
  const worker = new Worker(THREAD, { eval: true, workerData: mode });
  await new Promise((resolve) => setTimeout(resolve, 200));
  let cpuUs = 0;
  for (let i = 0; i < posts; i++) {
    // 300 µs between posts: long enough for a thread that has nothing to do to be asleep again.
    const until = performance.now() + 0.3;
    while (performance.now() < until);
    const before = process.threadCpuUsage();
    worker.postMessage(call);
    const after = process.threadCpuUsage();
    cpuUs += after.user - before.user + (after.system - before.system);
  }
  worker.postMessage('end');
  await new Promise((resolve) => worker.once('message', resolve));
  await worker.terminate();
  return cpuUs / posts;
}

const results: Record<'asleep' | 'running', number[]> = { asleep: [], running: [] };
for (let i = 0; i < rounds; i++) {
  for (const mode of i % 2 ? (['running', 'asleep'] as const) : (['asleep', 'running'] as const)) results[mode].push(await measure(mode));
}
for (const [mode, us] of Object.entries(results)) {
  console.log(`to a thread ${mode}: ${median(us)?.toFixed(1)} µs of the poster's CPU a post (${us.map((u) => u.toFixed(1)).join(', ')})`);
}
