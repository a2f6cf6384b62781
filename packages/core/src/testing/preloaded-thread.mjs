// preloaded-program.mjs's plain worker thread: it imports one module of the checkout (JavaScript:
// a plain thread strips no TypeScript here, worker-thread.ts says why), says so, and ends.
import { parentPort } from 'node:worker_threads';

await import('../kept-resolutions.mjs');
parentPort.postMessage('kept-resolutions.mjs in a thread');
