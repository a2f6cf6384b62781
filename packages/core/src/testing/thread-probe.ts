// A thread for worker-thread.test.ts: what it loaded, the argv it saw, and the line of a stack frame.
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';

interface Probe {
  modules: string[];
  sucrase: boolean;
  argv: string[];
  stack: string | undefined;
}

const probe: Probe = {
  // Node's own modules this thread loaded (undocumented, so untyped).
  modules: (process as unknown as { moduleLoadList: string[] }).moduleLoadList.filter((name) => /amaro/.test(name)),
  // Whether this thread loaded sucrase (thread-entry.mjs loads it only for a module not handed over).
  sucrase: Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('/sucrase/')),
  argv: process.argv.slice(1),
  stack: new Error('the marked line').stack, // marked: the stack's line
};
parentPort!.postMessage(probe satisfies Probe);
