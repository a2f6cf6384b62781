import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { startThread } from './worker-thread.ts';

const PROBE = new URL('./testing/thread-probe.ts', import.meta.url);
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

interface Probe {
  modules: string[];
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
    const plain = await probe(new Worker(PROBE));
    expect(plain.modules).toContain('NativeModule internal/deps/amaro/dist/index');
  });

  it('keeps each line where it was (a stack names the .ts file’s own line) and hands the thread its argv', async () => {
    const marked =
      readFileSync(PROBE, 'utf8')
        .split('\n')
        .findIndex((line) => line.includes('// marked:')) + 1;
    const started = await probe(startThread(PROBE, { argv: ['--flag', 42] }));
    expect(started.stack).toContain(`thread-probe.ts:${marked}:`);
    expect(started.argv).toEqual(['--flag', '42']);
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
        else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && entry.name !== 'worker-thread.ts') {
          // A Worker of code in a string (eval: true) is JavaScript: nothing to strip.
          if (/new Worker\((?![^)]*eval: true)/.test(readFileSync(path, 'utf8'))) found.push(relative(ROOT, path));
        }
      }
    };
    for (const top of ['packages', 'services', 'bench', 'scripts', 'test']) walk(join(ROOT, top));
    expect(found).toEqual([]);
  });
});
