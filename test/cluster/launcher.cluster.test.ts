// `./dev start --cluster` as a user runs it (node scripts/start.ts --cluster), on free ports:
// a crashed service is reported and the whole cluster stops; a port already taken is refused
// with a message that says what to do; the broker's output is shown, prefixed.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, freePort, freePortRun } from '@wirehook/testkit';

const root = join(import.meta.dirname, '..', '..');
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function launch(extra: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'wirehook-launcher-'));
  dirs.push(dataDir);
  // One run of free ports for everything (separately drawn ports could collide).
  const base = await freePortRun(7 + 7);
  const ports = {
    metrics: base,
    api: base + 7,
    grpc: base + 8,
    recoveryGrpc: base + 9,
    relayGrpc: base + 10,
    portal: base + 11,
    nats: base + 12,
    redis: base + 13,
  };
  const child = spawn(process.execPath, [join(root, 'scripts/start.ts'), '--cluster'], {
    env: {
      ...process.env,
      PORT: String(ports.api),
      INTAKE_GRPC_PORT: String(ports.grpc),
      RECOVERY_GRPC_PORT: String(ports.recoveryGrpc),
      RELAY_GRPC_PORT: String(ports.relayGrpc),
      PORTAL_PORT: String(ports.portal),
      METRICS_PORT: String(ports.metrics),
      NATS_PORT: String(ports.nats),
      REDIS_PORT: String(ports.redis),
      NATS_URL: '',
      REDIS_URL: '',
      MONGODB_URL: '',
      DATA_DIR: dataDir,
      DISPATCHERS: '1',
      LOG_LEVEL: 'info',
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, ports, exited, out: () => stdout, err: () => stderr };
}

/** The pid of the service whose METRICS_PORT is `port` (read from /proc: each test's own processes only). */
function pidWithMetricsPort(port: number): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (environ.includes(`METRICS_PORT=${port}`)) return Number(entry);
    } catch {
      // gone, or not ours
    }
  }
  throw new Error(`no process with METRICS_PORT=${port}`);
}

describe('the cluster launcher', () => {
  it('shows the broker output prefixed; a crashed service is reported at once and the whole cluster stops (exit 1)', async () => {
    const run = await launch();
    await eventually(() => expect(run.err()).toContain('Wirehook (cluster mode): API on'), 60_000, 100);
    expect(run.out()).toMatch(/^\[nats-server\] .*Server is ready/m);
    // message-intake is the first service: metrics base + 1.
    process.kill(pidWithMetricsPort(run.ports.metrics + 1), 'SIGKILL');
    expect(await run.exited).toBe(1);
    expect(run.err()).toContain('cluster: message-intake exited (SIGKILL); stopping the cluster');
    // Nothing of it is left listening.
    await eventually(async () => {
      const api = await fetch(`http://127.0.0.1:${run.ports.api}/livez`).then(
        () => 'up',
        () => 'down',
      );
      expect(api).toBe('down');
      expect(await listening(run.ports.nats)).toBe(false);
      expect(await listening(run.ports.redis)).toBe(false);
    }, 15_000);
  }, 120_000);

  it.each([
    ['SIGTERM', 0],
    ['SIGKILL', null],
  ] as const)(
    '%s of the launcher leaves no orphan: every service, nats-server and redis-server ends, every port is free',
    async (signal, code) => {
      const run = await launch();
      await eventually(() => expect(run.err()).toContain('Wirehook (cluster mode): API on'), 60_000, 100);
      const servicePids = Array.from({ length: 7 }, (_, i) => pidWithMetricsPort(run.ports.metrics + i));
      run.child.kill(signal);
      expect(await run.exited).toBe(code);
      await eventually(
        async () => {
          for (const pid of servicePids) expect(alive(pid), `service pid ${pid}`).toBe(false);
          for (const port of [run.ports.api, run.ports.grpc, run.ports.nats, run.ports.redis, run.ports.metrics]) {
            expect(await listening(port), `port ${port}`).toBe(false);
          }
          expect(serversWithPort(run.ports.nats), 'nats-server').toEqual([]);
          expect(serversWithPort(run.ports.redis), 'redis-server').toEqual([]);
        },
        20_000,
        200,
      );
    },
    120_000,
  );

  it('names a nats-server left running by an earlier run over the same DATA_DIR (by its pid file), even on another port', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wirehook-launcher-'));
    dirs.push(dataDir);
    mkdirSync(join(dataDir, 'run'));
    const pidFile = join(dataDir, 'run', 'nats-server.pid');
    const leftover = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(await freePort()), '-P', pidFile], { stdio: 'ignore' });
    children.push(leftover);
    await eventually(() => expect(readFileSync(pidFile, 'utf8').trim()).toBe(String(leftover.pid)));
    const run = await launch({ DATA_DIR: dataDir });
    expect(await run.exited).toBe(1);
    expect(run.err()).toContain(`cluster: a nats-server from an earlier run over this DATA_DIR is still running (pid ${leftover.pid}, from ${pidFile})`);
    expect(run.err()).toContain(`Stop it (kill ${leftover.pid}), or set NATS_URL to use it.`);

    // Once it is gone, a stale pid file (or a pid reused by another program) is no obstacle.
    leftover.kill('SIGKILL');
    await new Promise((resolve) => leftover.once('exit', resolve));
    writeFileSync(pidFile, `${process.pid}\n`); // alive, but not a nats-server
    const again = await launch({ DATA_DIR: dataDir });
    await eventually(() => expect(again.err()).toContain('Wirehook (cluster mode): API on'), 60_000, 100);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  }, 120_000);

  it('refuses a NATS port that something already listens on, saying what to do', async () => {
    const taken: Server = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => taken.once('listening', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const run = await launch({ NATS_PORT: String(port) });
      expect(await run.exited).toBe(1);
      expect(run.err()).toContain(`cluster: port ${port} (nats-server) is already in use`);
      expect(run.err()).toContain('set NATS_URL to use it, or NATS_PORT to start ours elsewhere');
    } finally {
      taken.close();
    }
  }, 60_000);
});

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.end();
      resolve(true);
    }).once('error', () => resolve(false));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of processes whose command line names `port` (the servers take it as an argument). */
function serversWithPort(port: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (/(nats|redis)-server$/.test(args[0] ?? '') && args.includes(String(port))) found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}
