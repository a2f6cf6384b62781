// The bench's CPU by part against real processes and threads: children laid out as Wirehook's
// (…/services/<name>/src/main.ts) burn known amounts of CPU, on named threads or as separate
// services, while the snapshots are taken around them. Each test kills only children it
// started (the processes themselves end with this file: test/support/end-test-processes.ts).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { spawnTestProcess } from '@wirehook/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuUnits, type Proc, processPart } from '../../bench/report/cpu-parts.ts';
import { CpuMeter } from '../../bench/report/proc-stats.ts';

const top = mkdtempSync(join(tmpdir(), 'wirehook-cpu-parts-'));
// A checkout under a folder of its own called services/: the service is the last one of a path.
const root = join(top, 'services', 'checkout');
mkdirSync(root, { recursive: true });
writeFileSync(join(root, 'package.json'), '{ "type": "module" }');
let started = 0;
afterAll(() => rmSync(top, { recursive: true, force: true }));

/** Burns `ms` of the calling thread's own CPU (not of the wall clock: the machine may be busy). */
const BURN =
  'const burn = (ms) => { ' +
  'const cpu = () => { const u = process.threadCpuUsage(); return (u.user + u.system) / 1000; }; ' +
  'const end = cpu() + ms; while (cpu() < end); };';

/**
 * Starts `code` as services/<service>/src/main.ts; it says "ready", and on each line in runs `go`
 * and says "done". `kill()`: SIGKILL, resolved with the signal it died of.
 */
async function service(service: string, code: string): Promise<{ pid: number; go: () => Promise<void>; kill: () => Promise<NodeJS.Signals | null> }> {
  const dir = join(root, `${service}-${started++}`, 'services', service, 'src');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'main.ts'),
    `${BURN}\n${code}\nprocess.stdout.write('ready\\n');\nprocess.stdin.on('data', async () => { await go(); process.stdout.write('done\\n'); });\n`,
  );
  const child = spawnTestProcess(process.execPath, [join(dir, 'main.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (want: string) => expect((await lines.next()).value).toBe(want);
  await next('ready');
  return {
    pid: child.pid!,
    go: async () => {
      child.stdin!.write('go\n');
      await next('done');
    },
    kill: () => {
      child.kill('SIGKILL');
      return exited;
    },
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** /proc counts user and system time in 10 ms ticks, each rounded down: a part may read 2 ticks a thread short. */
const TICKS = 0.02;

describe('CPU by part', () => {
  it('embedded mode: by thread — a store thread replaced under its name counts both, one that ended counts to its last sample', async () => {
    const embedded = await service(
      'embedded',
      `import { Worker } from 'node:worker_threads';
       const BURN = ${JSON.stringify(BURN)};
       const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
       const worker = (name, code) => new Worker(BURN + ' const { parentPort } = require("node:worker_threads"); ' + code, { eval: true, name });
       const answer = (w) => new Promise((resolve) => w.once('message', resolve));
       // There before the span: a writer that burns 300 ms when asked.
       const first = worker('store-writer', 'parentPort.on("message", () => { burn(300); parentPort.postMessage(1); });');
       await new Promise((resolve) => first.once('online', resolve));
       const go = async () => {
         first.postMessage(1);
         await answer(first);
         await pause(600); // long enough for a sample after its burn on a busy machine (the sampler is a timer)
         await first.terminate();
         // Its successor, under the same name: 100 ms, and it stays.
         const second = worker('store-writer', 'burn(100); parentPort.postMessage(1); setInterval(() => {}, 1000);');
         await answer(second);
         // A reader that starts and ends in the span: 150 ms. It stays 1.5 s after, for a sample
         // on a busy machine (one CI run saw none in 0.6 s).
         const reader = worker('store-reader', 'burn(150); parentPort.postMessage(1); setTimeout(() => {}, 1500);');
         await answer(reader);
         await new Promise((resolve) => reader.once('exit', resolve));
         burn(100);
       };`,
    );
    const meter = new CpuMeter({ wirehook: [embedded.pid], receiver: embedded.pid }, 20);
    await embedded.go();
    const { parts, cpuSeconds } = meter.stop();
    expect(parts['store writer']).toBeGreaterThanOrEqual(0.4 - 2 * TICKS);
    expect(parts['store writer']).toBeLessThan(0.55);
    expect(parts['store reader']).toBeGreaterThanOrEqual(0.15 - TICKS);
    expect(parts['main thread']).toBeGreaterThanOrEqual(0.1 - TICKS);
    expect(cpuSeconds.wirehook).toBeCloseTo(
      Object.values(parts).reduce((a, b) => a + b, 0),
      6,
    );
  }, 20_000);

  it('cluster mode: by service, replicas summed under one name; a replica that dies in the span counts to its last sample', async () => {
    const a = await service('dispatcher', 'const go = async () => burn(200);');
    const b = await service('dispatcher', 'const go = async () => burn(150);');
    const gateway = await service('gateway', 'const go = async () => burn(200);');
    const meter = new CpuMeter({ wirehook: [a.pid, b.pid, gateway.pid], receiver: gateway.pid }, 20);
    await Promise.all([a.go(), b.go(), gateway.go()]);
    await pause(100); // samples (every 20 ms) after the burns
    // Dispatcher a, this test's own replica, dies in the span: its 200 ms still count.
    expect(await a.kill()).toBe('SIGKILL');
    const { parts, cpuSeconds } = meter.stop();
    expect(Object.keys(parts).sort()).toEqual(['dispatcher', 'gateway']);
    expect(parts['dispatcher']).toBeGreaterThanOrEqual(0.35 - 2 * TICKS);
    expect(parts['dispatcher']).toBeLessThan(0.5);
    expect(parts['gateway']).toBeGreaterThanOrEqual(0.2 - TICKS);
    expect(parts['gateway']).toBeLessThan(0.3);
    expect(cpuSeconds.wirehook).toBeGreaterThanOrEqual(0.55 - 3 * TICKS);
  }, 20_000);
});

describe('CPU by part, names read from a stand-in of /proc', () => {
  /** One process (embedded mode, or the `main` given) whose threads' stat and comm the test sets; `cpu` in clock ticks. */
  function fakeProc(main = '/x/services/embedded/src/main.ts') {
    const threads = new Map<string, { comm: string; ticks: number; start: number }>();
    const proc: Proc = {
      read: (path) => {
        if (path === '/proc/7/cmdline') return ['node', main, '{}'].join('\0');
        if (path === '/proc/7/stat') {
          // The process's own: its threads' ticks summed, as Linux counts them.
          const ticks = [...threads.values()].reduce((sum, t) => sum + t.ticks, 0);
          return `7 (node) ${['S', ...Array(10).fill('0'), String(ticks), '0', ...Array(6).fill('0'), '1'].join(' ')}`;
        }
        const [, tid, file] = /^\/proc\/7\/task\/(\d+)\/(stat|comm)$/.exec(path) ?? [];
        const thread = tid === undefined ? undefined : threads.get(tid);
        if (thread === undefined) throw new Error(`ENOENT ${path}`);
        // stat: "pid (comm) state" then fields; utime is the 14th field, stime the 15th, starttime the 22nd.
        const fields = ['S', ...Array(10).fill('0'), String(thread.ticks), '0', ...Array(6).fill('0'), String(thread.start)];
        return file === 'comm' ? `${thread.comm}\n` : `${tid} (${thread.comm}) ${fields.join(' ')}`;
      },
      list: (path) => (path === '/proc/7/task' ? [...threads.keys()] : []),
    };
    return { proc, threads };
  }

  it('a worker seen before it names itself (its creator’s name) is counted under its own name once it has one', () => {
    const { proc, threads } = fakeProc();
    threads.set('7', { comm: 'MainThread', ticks: 100, start: 1 });
    const units = new CpuUnits([7], proc);
    // A new thread, sampled while it still bears the main thread's name.
    threads.set('8', { comm: 'MainThread', ticks: 0, start: 50 });
    units.sample();
    threads.get('8')!.comm = 'store-reader';
    threads.get('8')!.ticks = 15;
    units.sample();
    expect(units.used()).toEqual({ 'main thread': 0, 'store reader': 0.15 });
  });

  it('a thread’s name is read at its first five samples, then no more', () => {
    const { proc, threads } = fakeProc();
    const units = new CpuUnits([7], proc);
    threads.set('9', { comm: 'V8Worker', ticks: 10, start: 50 });
    for (let i = 0; i < 5; i++) units.sample(); // read at each: its name stands
    threads.get('9')!.comm = 'store-writer';
    units.sample();
    expect(units.used()).toEqual({ 'V8 helpers': 0.1 });
  });

  it('the threaded floor is split by thread, as embedded mode; the pipeline floor too; a process of neither is one part', () => {
    for (const [main, split] of [
      ['/x/bench/floor/threaded-floor-process.ts', true],
      ['/x/bench/floor/floor-process.ts', true],
      ['/x/bench/floor/cluster-floor-process.ts', false],
    ] as const) {
      const { proc, threads } = fakeProc(main);
      threads.set('7', { comm: 'MainThread', ticks: 0, start: 1 });
      threads.set('8', { comm: 'store-writer', ticks: 0, start: 2 });
      threads.set('9', { comm: 'egress', ticks: 0, start: 3 });
      const units = new CpuUnits([7], proc);
      threads.get('8')!.ticks = 20;
      threads.get('9')!.ticks = 10;
      units.sample();
      if (split) expect(units.used(), main).toEqual({ 'main thread': 0, 'store writer': 0.2, 'egress thread': 0.1 });
      // Not split: the whole process under its part's name (the cluster floor's with no role it knows: other).
      else expect(units.used(), main).toEqual({ other: expect.closeTo(0.3, 5) });
    }
    const cmdline = (main: string): Proc => ({ read: () => ['node', main, '{}'].join('\0'), list: () => [] });
    expect(processPart(1, cmdline('/x/bench/floor/threaded-floor-process.ts'))).toBe('threaded floor');
    expect(processPart(1, cmdline('/x/bench/floor/floor-process.ts'))).toBe('floor');
  });

  it('the cluster floor’s processes are named by role; one with no role it knows is other', () => {
    const proc = (args: string[]): Proc => ({ read: () => args.join('\0'), list: () => [] });
    const floor = '/x/bench/floor/cluster-floor-process.ts';
    expect(processPart(1, proc(['node', floor, 'dispatcher', '{}']))).toBe('floor dispatcher');
    expect(processPart(1, proc(['node', floor, 'gateway', '{}']))).toBe('floor gateway');
    expect(processPart(1, proc(['node', floor, 'sweeper', '{}']))).toBe('other');
    expect(processPart(1, proc(['node', floor]))).toBe('other');
  });
});
