// The API probe's own thread (see api-probe.ts): one keep-alive connection, a GET of the
// probing org's event types on fixed slots, each latency posted back with its start time.
// On a thread of its own so that the load generator's busy event loop is not in the figure.
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { WirehookApi } from '../http/wirehook-api.ts';

const { apiUrl, key, perSecond, startAt } = workerData as { apiUrl: string; key: string; perSecond: number; startAt: number };
const api = new WirehookApi(apiUrl, 1);
const intervalMs = 1000 / perSecond;
// Unix ms on the bench's clock (send-messages.ts nowMs, the receiver's): timeOrigin is Unix time in every thread.
const now = () => performance.timeOrigin + performance.now();
// Probes on fixed slots from `startAt` (a probe that outlasts its slot skips to the next), so
// two probes given start times half an interval apart stay out of step.
for (let next = 0; ; ) {
  const slot = Math.max(next, Math.ceil((now() - startAt) / intervalMs));
  next = slot + 1;
  await sleep(Math.max(0, startAt + slot * intervalMs - now()));
  const at = now();
  let ok = true;
  try {
    await api.expect(200, 'GET', '/v1/event-types', key);
  } catch {
    ok = false;
  }
  parentPort!.postMessage({ at, ms: now() - at, ok });
}
