import { Worker } from 'node:worker_threads';
const spin = process.argv[2] === 'spin';
const w = new Worker(`const { parentPort, workerData } = require('node:worker_threads'); parentPort.on('message', () => {});`, { eval: true });
// optional: a third thread that keeps the other core busy
let hog;
if (spin) hog = new Worker(`const e = Date.now() + 8000; while (Date.now() < e) {}`, { eval: true });
const tcpu = () => {
  const u = process.threadCpuUsage();
  return u.user + u.system;
};
const msg = [{ id: 1 }];
await new Promise((r) => setTimeout(r, 300));
let spent = 0,
  wall = 0n,
  base = 0;
for (let i = 0; i < 500; i++) {
  await new Promise((r) => setTimeout(r, 2));
  let c0 = tcpu();
  base += tcpu() - c0;
  c0 = tcpu();
  const t0 = process.hrtime.bigint();
  w.postMessage(msg);
  wall += process.hrtime.bigint() - t0;
  spent += tcpu() - c0;
}
console.log(
  spin ? 'other core busy:' : 'idle machine:',
  'post to a sleeping worker',
  (spent / 500).toFixed(1),
  'µs CPU;',
  (Number(wall) / 500 / 1000).toFixed(1),
  'µs wall; the measure alone',
  (base / 500).toFixed(1),
);
w.terminate();
hog?.terminate();
