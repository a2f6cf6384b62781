// A thread for worker-thread.test.ts: what it loaded, the argv it saw, and the line of a stack frame.
import { parentPort } from 'node:worker_threads';

interface Probe {
  modules: string[];
  argv: string[];
  stack: string | undefined;
}

const probe: Probe = {
  // Node's own modules this thread loaded (undocumented, so untyped).
  modules: (process as unknown as { moduleLoadList: string[] }).moduleLoadList.filter((name) => /amaro/.test(name)),
  argv: process.argv.slice(2),
  stack: new Error('the marked line').stack, // marked: the stack's line
};
parentPort!.postMessage(probe satisfies Probe);
