import { Worker } from 'node:worker_threads';
import { expect, it } from 'vitest';
import { ownThreadCpuMicros, ownThreadId, threadCpuMicrosOf } from './thread-cpu.ts';

/** A thread that spins ≈ 100 ms of CPU, then says its id and its own count, and waits. */
const SPIN_THEN_SAY = `const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const id = Number(/\\/task\\/(\\d+)$/.exec(fs.readlinkSync('/proc/thread-self'))[1]);
const until = process.threadCpuUsage().user + 100_000;
while (process.threadCpuUsage().user < until);
const used = process.threadCpuUsage();
parentPort.postMessage({ id, cpuMicros: used.user + used.system });
setInterval(() => {}, 1_000);`;

it("reads another thread's CPU time from outside as the thread counts it itself (within a few ms), and null for a thread that is not there", async () => {
  const worker = new Worker(SPIN_THEN_SAY, { eval: true });
  try {
    const said = await new Promise<{ id: number; cpuMicros: number }>((resolve) => worker.once('message', resolve));
    expect(said.id).not.toBe(ownThreadId());
    const outside = threadCpuMicrosOf(said.id);
    expect(said.cpuMicros).toBeGreaterThanOrEqual(100_000);
    // Read after the thread's own count, while it idles: at least that, and not 50 ms more.
    expect(outside).toBeGreaterThanOrEqual(said.cpuMicros - 5_000);
    expect(outside).toBeLessThan(said.cpuMicros + 50_000);
  } finally {
    await worker.terminate();
  }
  expect(threadCpuMicrosOf(2 ** 31 - 1)).toBeNull();
});

it("the calling thread's id and CPU time, read both ways, agree", () => {
  const id = ownThreadId();
  expect(id).toEqual(expect.any(Number));
  const inside = ownThreadCpuMicros();
  const outside = threadCpuMicrosOf(id!)!;
  expect(outside).toBeGreaterThanOrEqual(inside - 5_000);
  expect(outside - inside).toBeLessThan(50_000);
});
