import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { ClaimDeliveriesJob, ClaimDeliveriesResult } from './claim-deliveries-process.ts';
import type { CreateEndpointsJob, CreateEndpointsResult } from './create-endpoints-process.ts';

const CREATE_ENDPOINTS = fileURLToPath(new URL('./create-endpoints-process.ts', import.meta.url));
const CLAIM_DELIVERIES = fileURLToPath(new URL('./claim-deliveries-process.ts', import.meta.url));

/**
 * Runs `count` create-endpoints processes on one job, starts them together once all are
 * ready, and returns their reports.
 * @throws Error when a process exits non-zero or reports nothing.
 */
export async function raceCreateEndpoints(count: number, job: CreateEndpointsJob): Promise<CreateEndpointsResult[]> {
  return race<CreateEndpointsResult>(
    CREATE_ENDPOINTS,
    Array.from({ length: count }, () => job),
  );
}

/**
 * Runs one claim-deliveries process per job, started together, and returns their reports.
 * @throws Error when a process exits non-zero or reports nothing.
 */
export async function raceClaimDeliveries(jobs: ClaimDeliveriesJob[]): Promise<ClaimDeliveriesResult[]> {
  return race<ClaimDeliveriesResult>(CLAIM_DELIVERIES, jobs);
}

async function race<R>(script: string, jobs: unknown[]): Promise<R[]> {
  const racers = jobs.map((job) => startRacer<R>(script, job));
  try {
    await Promise.all(racers.map((r) => r.ready));
    for (const r of racers) r.child.stdin.write('go\n');
    return await Promise.all(racers.map((r) => r.result));
  } finally {
    for (const r of racers) if (r.child.exitCode === null) r.child.kill();
  }
}

interface Racer<R> {
  child: ChildProcessWithoutNullStreams;
  ready: Promise<void>;
  result: Promise<R>;
}

function startRacer<R>(script: string, job: unknown): Racer<R> {
  const child = spawn(process.execPath, ['--no-warnings', script, JSON.stringify(job)]);
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
    return JSON.parse(last) as R;
  });
  // A racer that dies before "ready" must fail the test rather than hang it.
  void result.catch(() => {});
  return { child, ready: Promise.race([ready, result.then(() => {})]), result };
}
