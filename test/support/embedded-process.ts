import type { ChildProcess, StdioOptions } from 'node:child_process';
import { join } from 'node:path';
import { freePort, spawnTestProcess } from '@wirehook/testkit';

const MAIN = join(import.meta.dirname, '..', '..', 'services/embedded/src/main.ts');

/**
 * Starts embedded Wirehook as its own process — what `./dev start` runs — on loopback: the
 * API on `port` (kept across restarts by the caller), metrics and portal on free ports, data
 * in `dataDir`; `env` adds to or overrides the rest of the environment.
 */
export async function spawnEmbedded(options: { port: number; dataDir: string; env?: Record<string, string>; stdio?: StdioOptions }): Promise<ChildProcess> {
  return spawnTestProcess(process.execPath, [MAIN], {
    env: {
      ...process.env,
      PORT: String(options.port),
      METRICS_PORT: String(await freePort()),
      PORTAL_PORT: String(await freePort()),
      HOST: '127.0.0.1',
      DATA_DIR: options.dataDir,
      ...options.env,
    },
    stdio: options.stdio ?? ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * How long a test waits for embedded mode's start: ≈ 2 s alone, but many times that on a CI
 * machine running the other lane's cluster or bench files beside it.
 */
export const EMBEDDED_START_MS = 30_000;

/** What `child` (spawned with its stderr piped) writes to stderr, collected from now on. */
export function collectStderr(child: ChildProcess): () => string {
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return () => stderr;
}

/**
 * `check`, failed at once with `child`'s stderr if it exits first — rather than after the
 * check's own timeout with "fetch failed" (how a CI run reported a server that was gone).
 */
export function whileRunning<T>(child: ChildProcess, stderr: () => string, check: Promise<T>): Promise<T> {
  const exited = new Promise<never>((_, reject) => {
    const report = () => reject(new Error(`the server exited (${child.exitCode ?? child.signalCode}); its stderr:\n${stderr()}`));
    // After 'exit' the pipe may still hold its last lines (the stack of a crash): report once it has ended.
    const fail = () => (child.stderr !== null && !child.stderr.readableEnded ? child.stderr.once('end', report) : report());
    if (child.exitCode !== null || child.signalCode !== null) fail();
    else child.once('exit', fail);
  });
  exited.catch(() => {}); // unobserved when the check wins
  return Promise.race([check, exited]);
}

const ADMIN = join(import.meta.dirname, '..', '..', 'packages/admin/src/main.ts');

/** What one run of the admin CLI printed, and its stdout's JSON document. */
export interface AdminRun {
  code: number | null;
  stdout: string;
  stderr: string;
  json: Record<string, any>;
}

/**
 * Runs the admin CLI (`pnpm admin …`) against `dataDir`, `env` added to the environment. Not
 * spawnSync: a test blocked in it for seconds keeps its HTTP client's idle connections past the
 * server's keep-alive timeout without seeing them closed, and its next request on one fails
 * with "other side closed" (a CI run of 2026-12-04). Rejects when stdout is not one JSON document.
 * Spawned as a test process, so a CLI a timed-out test leaves behind is ended with the file.
 */
export function runAdmin(dataDir: string, args: readonly string[], env: Record<string, string> = {}): Promise<AdminRun> {
  return new Promise((resolve, reject) => {
    const child = spawnTestProcess(process.execPath, [ADMIN, ...args], {
      env: { ...process.env, DATA_DIR: dataDir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      try {
        resolve({ code, stdout, stderr, json: JSON.parse(stdout) as Record<string, any> });
      } catch {
        reject(new Error(`admin ${args.join(' ')} printed no JSON document (exit ${code}): ${stdout}${stderr}`));
      }
    });
  });
}
