// A program of this checkout for kept-resolutions.test.ts, run with keep-resolutions.mjs preloaded
// (as `./dev` runs every process): it imports one module of the checkout and, with `--thread`,
// starts a plain worker thread (not startThread's) that imports one too. It prints what it loaded.
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

await import('../cache-file.mjs');
const loaded = ['cache-file.mjs'];
if (process.argv.includes('--thread')) {
  const worker = new Worker(new URL('./preloaded-thread.mjs', import.meta.url));
  const [message] = await once(worker, 'message');
  loaded.push(message);
  await once(worker, 'exit');
}
process.stdout.write(`${JSON.stringify(loaded)}\n`);
