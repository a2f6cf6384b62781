import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { CreateEndpointsJob, CreateEndpointsResult } from './create-endpoints-process.ts';

const SCRIPT = fileURLToPath(new URL('./create-endpoints-process.ts', import.meta.url));

/**
 * Runs `count` create-endpoints processes on one job, starts them together once all are
 * ready, and returns their reports.
 * @throws Error when a process exits non-zero or reports nothing.
 */
export async function raceCreateEndpoints(count: number, job: CreateEndpointsJob): Promise<CreateEndpointsResult[]> {
  const racers = Array.from({ length: count }, () => startRacer(job));
  try {
    await Promise.all(racers.map((r) => r.ready));
    for (const r of racers) r.child.stdin.write('go\n');
    return await Promise.all(racers.map((r) => r.result));
  } finally {
    for (const r of racers) if (r.child.exitCode === null) r.child.kill();
  }
}

interface Racer {
  child: ChildProcessWithoutNullStreams;
  ready: Promise<void>;
  result: Promise<CreateEndpointsResult>;
}

function startRacer(job: CreateEndpointsJob): Racer {
  const child = spawn(process.execPath, ['--no-warnings', SCRIPT, JSON.stringify(job)]);
  let stdout = '';
  let stderr = '';
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (stdout.startsWith('ready\n')) markReady();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const result = once(child, 'exit').then(([code]) => {
    const last = stdout.trim().split('\n').at(-1) ?? '';
    if (code !== 0 || !last.startsWith('{')) throw new Error(`racer exited with ${String(code)}: ${stderr || stdout}`);
    return JSON.parse(last) as CreateEndpointsResult;
  });
  // A racer that dies before "ready" must fail the test rather than hang it.
  void result.catch(() => {});
  return { child, ready: Promise.race([ready, result.then(() => {})]), result };
}
