import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it, vi } from 'vitest';
import { keptThreadSource, startThread } from './worker-thread.ts';

const PROBE = new URL('./testing/thread-probe.ts', import.meta.url);
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** Files that start a plain Worker on a `.ts` module to compare with: this test's control, and the start-cost bench's. */
const PLAIN_WORKERS_ON_PURPOSE = ['packages/core/src/worker-thread.ts', 'packages/core/src/worker-thread.test.ts', 'bench/alloc/thread-start.ts'];

interface Probe {
  modules: string[];
  sucrase: boolean;
  argv: string[];
  stack: string;
}

/** A copy of the probe in `dir` whose source no run has seen (a line of its own at the end). */
function uniqueProbe(dir: string): string {
  const copy = join(dir, 'thread-probe.ts');
  writeFileSync(copy, `${readFileSync(PROBE, 'utf8')}\n// ${randomUUID()}\n`);
  return copy;
}

async function probe(worker: Worker): Promise<Probe> {
  const [reply] = (await once(worker, 'message')) as [Probe];
  await worker.terminate();
  return reply;
}

describe('startThread', () => {
  it('strips a thread’s TypeScript without loading Node’s WebAssembly stripper, where new Worker loads it', async () => {
    const started = await probe(startThread(PROBE));
    expect(started.modules).toEqual([]);
    // The control: Node's own stripping, as a plain Worker gets it (if Node stopped loading amaro, this says so).
    // On a copy no run has seen: ./dev's NODE_COMPILE_CACHE keeps stripped sources by their contents, and a
    // source found there is not stripped again (the control failed from a checkout's second run on).
    const dir = mkdtempSync(join(tmpdir(), 'wirehook-thread-probe-'));
    try {
      const plain = await probe(new Worker(pathToFileURL(uniqueProbe(dir))));
      expect(plain.modules).toContain('NativeModule internal/deps/amaro/dist/index');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('strips each module once a process: a thread started after one that stripped them is handed them, and loads no sucrase', async () => {
    // A copy of its own, so that no earlier thread (of this file, or of a process before it: NODE_COMPILE_CACHE) has stripped it.
    const dir = mkdtempSync(join(tmpdir(), 'wirehook-thread-probe-'));
    try {
      const module = pathToFileURL(uniqueProbe(dir));
      const first = await probe(startThread(module));
      expect(first.sucrase).toBe(true);
      // Posted on the channel by the first thread; kept once the main thread has read it.
      await vi.waitFor(() => expect(keptThreadSource(module)).toContain('the marked line'));
      expect(keptThreadSource(module)).not.toContain('interface Probe'); // stripped
      const second = await probe(startThread(module));
      expect(second.sucrase).toBe(false);
      expect([first.modules, second.modules]).toEqual([[], []]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a thread that starts before startThread’s first message reaches it waits for it: its module gets only its owner’s', async () => {
    // startThread's two steps, with the thread given time to run first (on a busy machine the owner's
    // thread can be put off between them): a plain Worker on the entry, then the handed message.
    const entry = new URL('./thread-entry.mjs', import.meta.url);
    const worker = new Worker(entry, { argv: [new URL('./testing/first-message-echo.ts', import.meta.url).href] });
    try {
      await once(worker, 'online');
      await new Promise((resolve) => setTimeout(resolve, 300));
      worker.postMessage({ threadSources: [], channel: 'wirehook:thread-sources' });
      worker.postMessage({ owner: 'first' });
      const [echoed] = await once(worker, 'message');
      expect(echoed).toEqual({ owner: 'first' });
    } finally {
      await worker.terminate();
    }
  });

  describe('across processes, with Node’s compile cache on', () => {
    /** A fresh process (NODE_COMPILE_CACHE as given) whose one thread runs `module`: what it saw. */
    const probeInProcess = (module: string, env: NodeJS.ProcessEnv): Probe => {
      const script = join(dirname(module), 'probe-process.mjs');
      const workerThread = pathToFileURL(fileURLToPath(new URL('./worker-thread.ts', import.meta.url))).href;
      writeFileSync(
        script,
        `import { once } from 'node:events';
        import { startThread } from ${JSON.stringify(workerThread)};
        const [reply] = await once(startThread(new URL(${JSON.stringify(pathToFileURL(module).href)})), 'message');
        process.stdout.write(JSON.stringify(reply));
        process.exit(0);`,
      );
      const { NODE_COMPILE_CACHE: _, NODE_DISABLE_COMPILE_CACHE: __, ...inherited } = process.env;
      const out = execFileSync(process.execPath, [script], { env: { ...inherited, ...env }, encoding: 'utf8', timeout: 20_000 });
      return JSON.parse(out) as Probe;
    };
    /** The stripped sources kept under a compile cache directory (Node adds a folder of its own for its version). */
    const keptOnDisk = (cache: string): string[] =>
      readdirSync(cache, { recursive: true, encoding: 'utf8' }).filter((path) => path.includes('wirehook-thread-sources/'));

    it('a process’s first thread strips nothing a process before it stripped: kept on disk, whole, by the source', () => {
      const dir = mkdtempSync(join(tmpdir(), 'wirehook-thread-cache-'));
      try {
        const module = uniqueProbe(dir);
        const cache = join(dir, 'cache');
        const first = probeInProcess(module, { NODE_COMPILE_CACHE: cache });
        expect(first.sucrase).toBe(true);
        const kept = keptOnDisk(cache);
        expect(kept).toHaveLength(1); // the probe (its imports are Node's own)
        expect(kept[0]).toMatch(/\/[0-9a-f]{64}\.js$/); // no partial file left
        const second = probeInProcess(module, { NODE_COMPILE_CACHE: cache });
        expect(second.sucrase).toBe(false);
        // The kept source runs as the stripped one did: the same lines, the same argv.
        expect(second.stack).toBe(first.stack);
        expect(second.argv).toEqual(first.argv);
        // A kept file cut short or emptied (a machine stopped before its disk had it) is stripped again, not run, and kept whole again.
        const entry = join(cache, kept[0]!);
        const whole = readFileSync(entry, 'utf8');
        // And one whose body changed under an intact last line: its hash no longer matches.
        for (const cut of [whole.slice(0, whole.length >> 1), '', whole.replace('the marked line', 'the marked lime')]) {
          writeFileSync(entry, cut);
          const again = probeInProcess(module, { NODE_COMPILE_CACHE: cache });
          expect(again.sucrase).toBe(true);
          expect(again.stack).toBe(first.stack);
          expect(readFileSync(entry, 'utf8')).toBe(whole);
        }
        // Another source (one line changed) is another entry, stripped anew.
        writeFileSync(module, `${readFileSync(module, 'utf8')}\n// changed\n`);
        expect(probeInProcess(module, { NODE_COMPILE_CACHE: cache }).sucrase).toBe(true);
        expect(keptOnDisk(cache)).toHaveLength(2);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('without the compile cache nothing is kept; a cache that cannot be written only costs the stripping', () => {
      const dir = mkdtempSync(join(tmpdir(), 'wirehook-thread-cache-'));
      try {
        const module = uniqueProbe(dir);
        expect(probeInProcess(module, { NODE_DISABLE_COMPILE_CACHE: '1' }).sucrase).toBe(true);
        expect(probeInProcess(module, { NODE_DISABLE_COMPILE_CACHE: '1' }).sucrase).toBe(true);
        // The folder's name taken by a file in every version's folder Node may pick: nothing can be kept, the thread still runs.
        const cache = join(dir, 'cache');
        probeInProcess(module, { NODE_COMPILE_CACHE: cache }); // Node makes its version's folder (the source kept in it)
        for (const version of readdirSync(cache)) {
          rmSync(join(cache, version, 'wirehook-thread-sources'), { recursive: true, force: true });
          writeFileSync(join(cache, version, 'wirehook-thread-sources'), 'not a folder');
        }
        const blocked = probeInProcess(module, { NODE_COMPILE_CACHE: cache });
        expect(blocked.sucrase).toBe(true);
        expect(blocked.stack).toContain('thread-probe.ts:');
        expect(keptOnDisk(cache)).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  it('keeps each line where it was (a stack names the .ts file’s own line) and hands the thread its argv', async () => {
    const marked =
      readFileSync(PROBE, 'utf8')
        .split('\n')
        .findIndex((line) => line.includes('// marked:')) + 1;
    const started = await probe(startThread(PROBE, { argv: ['--flag', 42] }));
    expect(started.stack).toContain(`thread-probe.ts:${marked}:`);
    // argv[1] names the thread's module, as when it is the thread's own entry; then what it was given.
    expect(started.argv).toEqual([fileURLToPath(PROBE), '--flag', '42']);
  });

  it('fails the thread with the module’s own error when its module cannot load', async () => {
    const worker = startThread(new URL('./no-such-module.ts', import.meta.url));
    const [err] = (await once(worker, 'error')) as [Error];
    expect(err.message).toContain('no-such-module.ts');
  });

  it('is how every thread on a .ts module starts (no new Worker on one elsewhere)', () => {
    const found: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.name === 'node_modules' || entry.name.startsWith('.') || entry.name === 'dist') continue;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts') && !PLAIN_WORKERS_ON_PURPOSE.includes(relative(ROOT, path))) {
          // A Worker of code in a string (`eval: true`, on the same line) is JavaScript: nothing to strip.
          const lines = readFileSync(path, 'utf8').split('\n');
          if (lines.some((line) => line.includes('new Worker(') && !line.includes('eval: true'))) found.push(relative(ROOT, path));
        }
      }
    };
    for (const top of ['packages', 'services', 'bench', 'scripts', 'test']) walk(join(ROOT, top));
    expect(found).toEqual([]);
  });
});
