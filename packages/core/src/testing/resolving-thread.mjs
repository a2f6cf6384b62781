// A thread for kept-resolutions.test.ts: it imports one module of the checkout (resolved after
// thread-entry.mjs began keeping its answers), says so, and ends — or, with `--stay`, runs until
// its owner terminate()s it.
import { parentPort } from 'node:worker_threads';

await import('../errors.ts');
parentPort.postMessage('errors.ts loaded');
if (process.argv.includes('--stay')) setInterval(() => {}, 1_000);
