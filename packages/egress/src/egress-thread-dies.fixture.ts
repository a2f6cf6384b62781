// A stand-in for egress-worker.ts that ends its thread when posted a send to a URL with
// "/die" in it, and answers every other send 200: EgressThread's side of a lost thread.
import { parentPort } from 'node:worker_threads';
import type { EgressCall, EgressReply } from './egress-thread.ts';

parentPort!.on('message', (calls: EgressCall[]) => {
  if (calls.some((call) => 'request' in call && call.request.url.includes('/die'))) process.exit(3);
  const replies: EgressReply[] = calls.map((call) => ({
    id: call.id,
    ok: true,
    value: 'close' in call ? undefined : { ok: true, status: 200, responseHead: '', error: null, durationMs: 0, sourceIp: null },
  }));
  parentPort!.postMessage(replies);
});
