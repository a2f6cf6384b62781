// The bench's CPU by part against real processes and threads: children laid out as Wirehook's
// (…/services/<name>/src/main.ts) burn known amounts of CPU, on named threads or as separate
// services, while the snapshots are taken around them.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { cpuByPart, cpuParts, ENDED_PART } from '../../bench/report/cpu-parts.ts';
import { cpuSeconds } from '../../bench/report/proc-stats.ts';

const root = mkdtempSync(join(tmpdir(), 'wirehook-cpu-parts-'));
writeFileSync(join(root, 'package.json'), '{ "type": "module" }');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

/** Burns `ms` of the calling thread's own CPU (not of the wall clock: the machine may be busy). */
const BURN =
  'const burn = (ms) => { const cpu = () => { const u = process.threadCpuUsage(); return (u.user + u.system) / 1000; }; const end = cpu() + ms; while (cpu() < end); };';

/** Starts `code` as services/<service>/src/main.ts; it says "ready", and on each line in runs `go` and says "done". */
async function service(service: string, code: string): Promise<{ pid: number; go: () => Promise<void> }> {
  const dir = join(root, `${service}-${children.length}`, 'services', service, 'src');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'main.ts'),
    `${BURN}\n${code}\nprocess.stdout.write('ready\\n');\nprocess.stdin.on('data', async () => { await go(); process.stdout.write('done\\n'); });\n`,
  );
  const child = spawn(process.execPath, [join(dir, 'main.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (want: string) => expect((await lines.next()).value).toBe(want);
  await next('ready');
  return {
    pid: child.pid!,
    go: async () => {
      child.stdin!.write('go\n');
      await next('done');
    },
  };
}

describe('CPU by part', () => {
  it('embedded mode: by thread of its one process — a named store thread, the main thread, and one that ended in the span', async () => {
    const embedded = await service(
      'embedded',
      `import { Worker } from 'node:worker_threads';
       const BURN = ${JSON.stringify(BURN)};
       // The writer is there before the span and burns 300 ms in it; the reader starts and ends in it.
       const writer = new Worker(BURN + ' const { parentPort } = require("node:worker_threads"); parentPort.on("message", () => { burn(300); parentPort.postMessage(1); });', { eval: true, name: 'store-writer' });
       const answer = (worker) => new Promise((resolve) => worker.once('message', resolve));
       await new Promise((resolve) => writer.once('online', resolve));
       const go = async () => {
         writer.postMessage(1);
         await answer(writer);
         const reader = new Worker(BURN + ' burn(150);', { eval: true, name: 'store-reader' });
         await new Promise((resolve) => reader.once('exit', resolve));
         burn(100);
       };`,
    );
    const start = cpuParts([embedded.pid]);
    const total = cpuSeconds(embedded.pid);
    await embedded.go();
    await new Promise((r) => setTimeout(r, 100)); // the reader thread gone
    const parts = cpuByPart(start, cpuParts([embedded.pid]), cpuSeconds(embedded.pid) - total);
    expect(parts['store writer']).toBeGreaterThanOrEqual(0.25);
    expect(parts['store writer']).toBeLessThan(0.4);
    expect(parts['main thread']).toBeGreaterThanOrEqual(0.08);
    expect(parts[ENDED_PART]).toBeGreaterThanOrEqual(0.1); // the reader's 150 ms, counted by the process only
    expect(parts).not.toHaveProperty('store reader');
    for (const seconds of Object.values(parts)) expect(seconds).toBeGreaterThanOrEqual(0);
  }, 20_000);

  it('cluster mode: by service, replicas summed under one name', async () => {
    const a = await service('dispatcher', 'const go = async () => burn(200);');
    const b = await service('dispatcher', 'const go = async () => burn(150);');
    const gateway = await service('gateway', 'const go = async () => burn(100);');
    const pids = [a.pid, b.pid, gateway.pid];
    const total = () => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
    const [start, before] = [cpuParts(pids), total()];
    await Promise.all([a.go(), b.go(), gateway.go()]);
    const parts = cpuByPart(start, cpuParts(pids), total() - before);
    expect(Object.keys(parts).sort()).toEqual(['dispatcher', 'gateway']);
    expect(parts['dispatcher']).toBeGreaterThanOrEqual(0.33);
    expect(parts['dispatcher']).toBeLessThan(0.5);
    expect(parts['gateway']).toBeGreaterThanOrEqual(0.09);
    expect(parts['gateway']).toBeLessThan(0.2);
  }, 20_000);
});
