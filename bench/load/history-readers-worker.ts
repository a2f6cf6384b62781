// The history readers' own thread (see history-readers.ts): `callers` keep-alive connections,
// each reading the paths in turn, at most `perCaller` reads a second, until told to stop.
// On a thread of its own so that the readers' request and JSON work stays off the event loop
// that times the other organisation's sends.
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { WirehookApi } from '../http/wirehook-api.ts';
import { Samples } from '../report/stats.ts';

const { apiUrl, key, paths, callers, perCaller } = workerData as { apiUrl: string; key: string; paths: string[]; callers: number; perCaller: number };
const api = new WirehookApi(apiUrl, callers);
const intervalMs = 1000 / perCaller;
const latency = new Samples();
const failed: Record<string, number> = {};
let reading = true;
let reads = 0;
let ready = 0;
parentPort!.on('message', () => {
  reading = false;
});

const loop = async (caller: number) => {
  for (let i = caller; reading; i++) {
    const started = performance.now();
    const reply = await api.call('GET', paths[i % paths.length]!, key).catch(() => ({ status: 0 }));
    const ms = performance.now() - started;
    if (reply.status === 200) {
      reads++;
      latency.push(ms);
    } else {
      failed[reply.status] = (failed[reply.status] ?? 0) + 1;
    }
    // Every caller has read once: the load is on.
    if (i === caller && ++ready === callers) parentPort!.postMessage({ type: 'reading' });
    if (ms < intervalMs) await sleep(intervalMs - ms);
  }
};
const startedAt = performance.now();
await Promise.all(Array.from({ length: callers }, (_, c) => loop(c)));
const seconds = (performance.now() - startedAt) / 1000;
await api.close();
parentPort!.postMessage({ type: 'done', reads, failed, seconds, latencyMs: latency.summary() });
