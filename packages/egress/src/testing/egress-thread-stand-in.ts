// A stand-in for egress-worker.ts, for EgressThread's side of a thread: a send to a URL with
// "/die" in it ends the thread, one with "/hang" is never answered, one with "/slow" is
// answered 300 ms later, and every other at once; each 200 with, as its response head, how
// many calls came in its message (and, for a body that came as bytes, how many).
import { parentPort } from 'node:worker_threads';
import type { EgressCall, EgressReply } from '../egress-thread.ts';

/** The answer to `call`, one of a message of `calls` calls. */
function answer(call: EgressCall, calls: number): EgressReply {
  if ('close' in call) return { id: call.id, ok: true, value: undefined };
  const bytes = call.encoded ? ` bytes ${call.encoded.byteLength}` : '';
  return { id: call.id, ok: true, value: { ok: true, status: 200, responseHead: `${calls}${bytes}`, error: null, durationMs: 0, sourceIp: null } };
}

const sentTo = (call: EgressCall, path: string) => 'request' in call && call.request.url.includes(path);

parentPort!.on('message', (calls: EgressCall[]) => {
  if (calls.some((call) => sentTo(call, '/die'))) process.exit(3);
  const slow = calls.filter((call) => sentTo(call, '/slow'));
  if (slow.length > 0) setTimeout(() => parentPort!.postMessage(slow.map((call) => answer(call, calls.length))), 300);
  parentPort!.postMessage(calls.filter((call) => !sentTo(call, '/hang') && !sentTo(call, '/slow')).map((call) => answer(call, calls.length)));
});
parentPort!.postMessage('ready');
