// A thread that answers with the first message its owner posts it (worker-thread.test.ts).
import { parentPort } from 'node:worker_threads';

parentPort!.once('message', (message: unknown) => parentPort!.postMessage(message));
