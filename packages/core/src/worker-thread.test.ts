import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
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
      const copy = join(dir, 'thread-probe.ts');
      writeFileSync(copy, `${readFileSync(PROBE, 'utf8')}\n// ${randomUUID()}\n`);
      const plain = await probe(new Worker(pathToFileURL(copy)));
      expect(plain.modules).toContain('NativeModule internal/deps/amaro/dist/index');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('strips each module once a process: a thread started after one that stripped them is handed them, and loads no sucrase', async () => {
    // A URL of its own, so that no earlier thread of this file has stripped it.
    const module = new URL(`${PROBE.href}?once-a-process`);
    const first = await probe(startThread(module));
    expect(first.sucrase).toBe(true);
    // Posted on the channel by the first thread; kept once the main thread has read it.
    await vi.waitFor(() => expect(keptThreadSource(module)).toContain('the marked line'));
    expect(keptThreadSource(module)).not.toContain('interface Probe'); // stripped
    const second = await probe(startThread(module));
    expect(second.sucrase).toBe(false);
    expect([first.modules, second.modules]).toEqual([[], []]);
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
