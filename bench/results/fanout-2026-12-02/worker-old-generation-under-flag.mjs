import { Worker, isMainThread, parentPort } from 'node:worker_threads';
if (isMainThread) {
  const w = new Worker(new URL(import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: 64 } });
  w.on('message', (m) => console.log('worker reached', m, 'MB live'));
  w.on('error', (e) => console.log('worker error', e.code));
} else {
  const keep = [];
  for (let i = 1; i <= 20; i++) {
    keep.push(new Array(1_250_000).fill(i + 0.5));
    parentPort.postMessage(i * 10);
  }
}
