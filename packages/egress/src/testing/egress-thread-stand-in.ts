// A stand-in for egress-worker.ts, for EgressThread's side of a thread: a send to a URL with
// "/die" in it ends the thread, one with "/hang" is never answered, and every other is
// answered 200 with, as its response head, how many calls came in its message (and, for a body
// that came as bytes, how many).
import { parentPort } from 'node:worker_threads';
import type { EgressCall, EgressReply } from '../egress-thread.ts';

parentPort!.on('message', (calls: EgressCall[]) => {
  if (calls.some((call) => 'request' in call && call.request.url.includes('/die'))) process.exit(3);
  const replies: EgressReply[] = calls
    .filter((call) => !('request' in call && call.request.url.includes('/hang')))
    .map((call) => ({
      id: call.id,
      ok: true,
      value:
        'close' in call
          ? undefined
          : {
              ok: true,
              status: 200,
              responseHead: `${calls.length}${'encoded' in call && call.encoded ? ` bytes ${call.encoded.byteLength}` : ''}`,
              error: null,
              durationMs: 0,
              sourceIp: null,
            },
    }));
  parentPort!.postMessage(replies);
});
parentPort!.postMessage('ready');
