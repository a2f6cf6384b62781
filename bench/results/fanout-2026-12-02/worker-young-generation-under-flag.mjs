import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
if (isMainThread) {
  for (const mb of [8, 32]) {
    await new Promise((res) => {
      const w = new Worker(new URL(import.meta.url), { resourceLimits: { maxYoungGenerationSizeMb: mb }, workerData: mb });
      w.on('exit', res);
    });
  }
} else {
  console.log('START', workerData);
  // Half the objects survive a while: the scavenger grows the semi-space to its maximum.
  let keep = [];
  for (let i = 0; i < 3_000_000; i++) {
    keep.push({ a: i, b: [i, i, i] });
    if (keep.length > 60000) keep = keep.slice(30000);
  }
  parentPort.postMessage(0);
}
