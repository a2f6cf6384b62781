// What one webhook send costs in HttpEgress, the egress thread's whole work: a receiver on a
// worker thread of this process (its allocations and CPU its own), HttpEgress on the main thread,
// `--sends` POSTs of a 1 KB body with `--concurrency` in flight to `--endpoints` endpoints on the
// one origin, as the fan-out bench sends. After a warm-up, two passes: the sending thread's CPU a
// send (process.threadCpuUsage: the receiver's thread and the process's other threads left out,
// the sender's side of TLS in), then the same sends under V8's sampling heap profiler (freed
// objects counted, as bench/alloc/sampler.ts does), written to `--out`; summarise it with
// `node bench/alloc/summary.ts FILE SENDS`.
//   node bench/alloc/egress-alloc.ts [--sends 20000] [--concurrency 512] [--endpoints 160] [--out FILE]
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort } from 'node:worker_threads';
import { startThread } from '@wirehook/core';
import { AddressPolicy, HttpEgress } from '@wirehook/egress';
import { TestReceiver } from '@wirehook/testkit';

if (!isMainThread) {
  const receiver = await TestReceiver.start();
  parentPort?.postMessage({ url: receiver.url, caPem: receiver.caPem });
  // Its record of requests, forgotten now and then: this thread's heap is not what is measured.
  setInterval(() => receiver.clear(), 1_000);
} else {
  const { values } = parseArgs({
    options: {
      sends: { type: 'string', default: '20000' },
      concurrency: { type: 'string', default: '512' },
      endpoints: { type: 'string', default: '160' },
      out: { type: 'string', default: 'egress.heapprofile' },
    },
  });
  const sends = Number(values.sends);
  const concurrency = Number(values.concurrency);
  const endpoints = Number(values.endpoints);
  const worker = startThread(new URL(import.meta.url));
  const { url, caPem } = await new Promise<{ url: string; caPem: string }>((resolve) => worker.once('message', resolve));
  const egress = new HttpEgress({ policy: new AddressPolicy({ allowHosts: 'localhost' }), ca: caPem });
  const body = JSON.stringify({ type: 'invoice.paid', timestamp: new Date().toISOString(), data: { id: 'x'.repeat(900) } });
  const headers = { 'content-type': 'application/json', 'webhook-id': 'msg_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,abc' };
  let next = 0;
  const run = async (count: number) => {
    next = 0;
    const lane = async () => {
      while (next < count) {
        const i = next++;
        const result = await egress.send({ url: `${url}/e${i % endpoints}`, poolKey: `ep_${i % endpoints}`, headers, body });
        if (!result.ok) throw new Error(`send ${i}: ${result.error ?? result.status}`);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
  };
  // Warm: connections open, the code compiled; then the measured sends.
  await run(Math.min(sends, 5_000));
  // The CPU pass, unprofiled: the sending thread alone.
  const started = process.hrtime.bigint();
  const cpu = process.threadCpuUsage();
  await run(sends);
  const used = process.threadCpuUsage(cpu);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuUs = Math.round((used.user + used.system) / sends);
  process.stdout.write(`${sends} sends in ${seconds.toFixed(2)} s (${Math.round(sends / seconds)}/s), the sending thread's CPU ${cpuUs} µs a send\n`);
  // The allocation pass: the same sends under the profiler.
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))));
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', {
    samplingInterval: 16_384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await run(sends);
  const { profile } = (await post('HeapProfiler.stopSampling')) as { profile: unknown };
  writeFileSync(values.out, JSON.stringify(profile));
  process.stdout.write(`allocation profile of ${sends} more sends: ${values.out}\n`);
  await egress.close();
  await worker.terminate();
}
