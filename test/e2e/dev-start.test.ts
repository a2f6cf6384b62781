// `./dev start` as a user runs it: embedded mode's process gets ./dev's Node flags
// (WIREHOOK_NODE_FLAGS, the V8 heap growth that keeps the backlog's memory down —
// docs/operations.md, Memory —, and on 2 CPUs a V8 platform thread a CPU), a user's own value replaces them word by word, and a value
// that is not a flag is refused with a message naming the variable instead of being run as a script.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, freePortRun, spawnTestProcess } from '@wirehook/testkit';

const root = join(import.meta.dirname, '..', '..');
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** `bash dev start` with `flags` as WIREHOOK_NODE_FLAGS (undefined: not set at all); `nproc`: a stand-in's script for it. */
async function devStart(flags: string | undefined, nproc?: string, extra: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'wirehook-dev-start-'));
  dirs.push(dataDir);
  const base = await freePortRun(3);
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(base),
    METRICS_PORT: String(base + 1),
    PORTAL_PORT: String(base + 2),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    WIREHOOK_NODE_FLAGS: flags,
    ...extra,
  };
  if (flags === undefined) delete env['WIREHOOK_NODE_FLAGS'];
  if (nproc !== undefined) {
    const bin = mkdtempSync(join(tmpdir(), 'wirehook-nproc-'));
    dirs.push(bin);
    writeFileSync(join(bin, 'nproc'), `#!/bin/sh\n${nproc}\n`, { mode: 0o755 });
    env['PATH'] = `${bin}:${process.env['PATH'] ?? ''}`;
  }
  const child = spawnTestProcess('bash', [join(root, 'dev'), 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, api: `http://127.0.0.1:${base}`, exited, stderr: () => stderr };
}

/** The command line of a running process (./dev execs node, so bash's pid is node's). */
function commandLine(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
}

async function startedWith(flags: string | undefined, nproc?: string, extra?: Record<string, string>): Promise<string[]> {
  const run = await devStart(flags, nproc, extra);
  await eventually(async () => expect((await fetch(`${run.api}/healthz`)).status).toBe(200), 60_000);
  const argv = commandLine(run.child.pid!);
  run.child.kill('SIGTERM');
  expect(await run.exited).toBe(0);
  return argv;
}

describe('./dev start', () => {
  it("runs embedded mode with ./dev's flags before the script: the heap's on a machine over 2 GiB, a V8 thread a CPU on 2 or fewer", async () => {
    const argv = await startedWith(undefined);
    const script = argv.findIndex((arg) => arg.endsWith('scripts/start.ts'));
    expect(script).toBeGreaterThan(0);
    const flags = argv.slice(1, script);
    const heap = totalmem() > 2 * 2 ** 30 ? ['--heap-growing-percent=65'] : [];
    expect(flags).toEqual([...heap, ...(availableParallelism() <= 2 ? [`--v8-pool-size=${availableParallelism()}`] : [])]);
  }, 90_000);

  it('sizes V8’s pool by the CPUs nproc counts (without OpenMP’s variables) and a CPU quota, or leaves it when nproc fails', async () => {
    const heap = totalmem() > 2 * 2 ** 30 ? ['--heap-growing-percent=65'] : [];
    // A cgroup v2 quota of this machine's own caps what nproc says (a container's --cpus).
    const quota = existsSync('/sys/fs/cgroup/cpu.max') ? readFileSync('/sys/fs/cgroup/cpu.max', 'utf8').trim().split(' ') : ['max'];
    const cap = quota[0] === 'max' ? Number.POSITIVE_INFINITY : Math.ceil(Number(quota[0]) / Number(quota[1]));
    const flagsWith = async (nproc: string, extra?: Record<string, string>) => {
      const argv = await startedWith(undefined, nproc, extra);
      return argv.slice(
        1,
        argv.findIndex((arg) => arg.endsWith('scripts/start.ts')),
      );
    };
    // What ./dev adds for n CPUs counted, a quota of this machine's own capping it.
    const pool = (n: number) => (Math.min(n, cap) <= 2 ? [`--v8-pool-size=${Math.min(n, cap)}`] : []);
    expect(await flagsWith('echo 2')).toEqual([...heap, ...pool(2)]);
    expect(await flagsWith('echo 1')).toEqual([...heap, ...pool(1)]);
    expect(await flagsWith('echo 3')).toEqual([...heap, ...pool(3)]);
    // nproc honours OMP_NUM_THREADS; ./dev counts without it.
    expect(await flagsWith('[ -n "$OMP_NUM_THREADS" ] && echo 1 || echo 8', { OMP_NUM_THREADS: '1' })).toEqual([...heap, ...pool(8)]);
    expect(await flagsWith('exit 1')).toEqual([...heap, ...pool(99)]);
  }, 180_000);

  it("a user's WIREHOOK_NODE_FLAGS replace ./dev's, each word a flag", async () => {
    const argv = await startedWith('--stack-size=2000\t --heap-growing-percent=40');
    expect(argv.slice(1, 3)).toEqual(['--stack-size=2000', '--heap-growing-percent=40']);
    expect(argv).not.toContain('--heap-growing-percent=65');
  }, 90_000);

  it('refuses a word that is not a flag, naming the variable, before starting anything', async () => {
    const run = await devStart('--stack-size=2000 max-old-space-size=512');
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toContain("WIREHOOK_NODE_FLAGS: 'max-old-space-size=512' is not a Node flag");
  }, 60_000);
});
