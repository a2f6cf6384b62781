// The API probe's own thread (see api-probe.ts): one keep-alive connection, a GET of the
// probing org's event types at a steady pace, each latency posted back with its start time.
// On a thread of its own so that the load generator's busy event loop is not in the figure.
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { WirehookApi } from '../http/wirehook-api.ts';

const { apiUrl, key, perSecond, offsetMs } = workerData as { apiUrl: string; key: string; perSecond: number; offsetMs: number };
const api = new WirehookApi(apiUrl, 1);
await sleep(offsetMs);
// Runs until the bench terminates the thread.
for (;;) {
  const started = performance.now();
  // Unix ms on the bench's clock (send-messages.ts nowMs, the receiver's): timeOrigin is Unix time in every thread.
  const at = performance.timeOrigin + started;
  let ok = true;
  try {
    await api.expect(200, 'GET', '/v1/event-types', key);
  } catch {
    ok = false;
  }
  const ms = performance.now() - started;
  parentPort!.postMessage({ at, ms, ok });
  await sleep(Math.max(0, 1000 / perSecond - ms));
}
