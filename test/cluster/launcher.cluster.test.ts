// `./dev start --cluster` as a user runs it (node scripts/start.ts --cluster), on free ports:
// a crashed service is reported and the whole cluster stops; a port already taken is refused
// with a message that says what to do; the broker's output is shown, prefixed.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, freePort, freePortRun, spawnTestProcess } from '@wirehook/testkit';

const root = join(import.meta.dirname, '..', '..');
/** How long a start may take: the launcher's own bound (CLUSTER_START_TIMEOUT_MS below) and a margin, on a machine shared with another suite. */
const UP_MS = 120_000;
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

type Ports = Awaited<ReturnType<typeof freePorts>>;

/** One run of free ports for everything (separately drawn ports could collide). */
async function freePorts() {
  const base = await freePortRun(7 + 7);
  return {
    metrics: base,
    api: base + 7,
    grpc: base + 8,
    recoveryGrpc: base + 9,
    relayGrpc: base + 10,
    portal: base + 11,
    nats: base + 12,
    redis: base + 13,
  };
}

/**
 * `node scripts/start.ts --cluster` on free ports and a new DATA_DIR, unless `again` names
 * an earlier run's (the same ports and DATA_DIR); in its own process group.
 */
async function launch(extra: Record<string, string> = {}, again?: { dataDir: string; ports: Ports }) {
  const dataDir = again?.dataDir ?? mkdtempSync(join(tmpdir(), 'wirehook-launcher-'));
  if (!again) dirs.push(dataDir);
  const ports = again?.ports ?? (await freePorts());
  const child = spawnTestProcess(process.execPath, [join(root, 'scripts/start.ts'), '--cluster'], {
    env: {
      ...process.env,
      PORT: String(ports.api),
      INTAKE_GRPC_PORT: String(ports.grpc),
      RECOVERY_GRPC_PORT: String(ports.recoveryGrpc),
      RELAY_GRPC_PORT: String(ports.relayGrpc),
      PORTAL_PORT: String(ports.portal),
      METRICS_PORT: String(ports.metrics),
      // Fourteen processes starting on two cores beside other test files: more than the default 30 s may pass.
      CLUSTER_START_TIMEOUT_MS: '90000',
      NATS_PORT: String(ports.nats),
      REDIS_PORT: String(ports.redis),
      NATS_URL: '',
      REDIS_URL: '',
      MONGODB_URL: '',
      DATA_DIR: dataDir,
      DISPATCHERS: '1',
      LOG_LEVEL: 'info',
      HOST: '', // ./dev start's default: loopback
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
  return { child, ports, dataDir, exited, out: () => stdout, err: () => stderr };
}

/** A live process as /proc shows it: its pid, its arguments, and its environment (read when asked: it may be gone, or not ours). */
interface ProcEntry {
  pid: number;
  args: string[];
  environ(): string[];
  zombie(): boolean;
}

/** Every process /proc lists now (one that ends while it is read is left out). */
function processes(): ProcEntry[] {
  const found: ProcEntry[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const read = (file: string) => readFileSync(`/proc/${entry}/${file}`, 'utf8');
    try {
      found.push({
        pid: Number(entry),
        args: read('cmdline').split('\0'),
        environ: () => {
          try {
            return read('environ').split('\0');
          } catch {
            return []; // gone, or not ours
          }
        },
        // An exited process not yet reaped: gone.
        zombie: () => {
          try {
            return /^\S+ \(.*\) Z /.test(read('stat'));
          } catch {
            return true;
          }
        },
      });
    } catch {
      // gone
    }
  }
  return found;
}

/** The pid of the service whose METRICS_PORT is `port` (each test's own processes only). */
function pidWithMetricsPort(port: number): number {
  const found = processes().find((p) => p.environ().includes(`METRICS_PORT=${port}`));
  if (found === undefined) throw new Error(`no process with METRICS_PORT=${port}`);
  return found.pid;
}

describe('the cluster launcher', () => {
  it(
    'shows the broker output prefixed; a crashed service is reported at once and the whole cluster stops (exit 1)',
    async () => {
      const run = await launch();
      await eventually(() => expect(run.err()).toContain('Wirehook (cluster mode): API on'), UP_MS, 100);
      expect(run.out()).toMatch(/^\[nats-server\] .*Server is ready/m);
      // The API and the portal on loopback only (HOST unset), as in embedded mode.
      expect((await fetch(`http://127.0.0.1:${run.ports.api}/v1/consumers`)).status).toBe(401);
      await expect(fetch(`http://127.0.0.2:${run.ports.api}/v1/consumers`)).rejects.toThrow();
      await expect(fetch(`http://127.0.0.2:${run.ports.portal}/healthz`)).rejects.toThrow();
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
    },
    UP_MS + 60_000,
  );

  it.each([
    ['SIGTERM', 0],
    ['SIGKILL', null],
  ] as const)(
    '%s of the launcher leaves no orphan: every service, nats-server and redis-server ends, every port is free',
    async (signal, code) => {
      const run = await launch();
      await eventually(() => expect(run.err()).toContain('Wirehook (cluster mode): API on'), UP_MS, 100);
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
    UP_MS + 60_000,
  );

  it(
    'ends a nats-server an earlier run over the same DATA_DIR left running (by its pid file), even on another port, then starts',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'wirehook-launcher-'));
      dirs.push(dataDir);
      mkdirSync(join(dataDir, 'run'));
      const pidFile = join(dataDir, 'run', 'nats-server.pid');
      // Nobody stops this one (no watchdog): it is given 10 s, then SIGTERM.
      const leftover = spawnTestProcess('nats-server', ['-a', '127.0.0.1', '-p', String(await freePort()), '-P', pidFile], { stdio: 'ignore' });
      children.push(leftover);
      const leftoverExit = new Promise((resolve) => leftover.once('exit', (code, signal) => resolve(signal ?? code)));
      await eventually(() => expect(readFileSync(pidFile, 'utf8').trim()).toBe(String(leftover.pid)));
      const started = Date.now();
      const run = await launch({ DATA_DIR: dataDir });
      await eventually(() => expect(run.err()).toContain('Wirehook (cluster mode): API on'), UP_MS, 100);
      expect(run.err()).toContain(
        `cluster: an earlier run over this DATA_DIR left nats-server (pid ${leftover.pid}) running; stopping them (10 s to end, then SIGTERM, then SIGKILL)`,
      );
      expect(await leftoverExit).not.toBeUndefined();
      expect(Date.now() - started).toBeGreaterThanOrEqual(10_000);

      // A second launcher over the same DATA_DIR is refused: the first one's processes are no leftovers.
      const second = await launch({ DATA_DIR: dataDir });
      expect(await second.exited).toBe(1);
      expect(second.err()).toBe(
        `cluster: another launcher (pid ${run.child.pid}) runs over this DATA_DIR (${dataDir}); stop it, or set DATA_DIR to another directory\n`,
      );
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);

      // A stale pid file (or a pid reused by another program) is no obstacle, and is not touched.
      writeFileSync(pidFile, `${process.pid}\n`); // alive, but not a nats-server
      const again = await launch({ DATA_DIR: dataDir });
      await eventually(() => expect(again.err()).toContain('Wirehook (cluster mode): API on'), UP_MS, 100);
      expect(again.err()).not.toContain('earlier run');
      again.child.kill('SIGTERM');
      expect(await again.exited).toBe(0);
    },
    2 * UP_MS + 60_000,
  );

  it(
    'after SIGKILL of its whole process group or of the launcher alone, a start at once on the same DATA_DIR and ports comes up, every time',
    async () => {
      let run = await launch();
      const again = { dataDir: run.dataDir, ports: run.ports };
      // Four restarts in a row (before the launcher took over its DATA_DIR's leftovers, 4 of 6
      // failed): the whole group killed, then the launcher alone (its services and servers are
      // still on their way out when the next one starts).
      for (let i = 0; i < 4; i++) {
        await eventually(() => expect(run.err()).toContain('Wirehook (cluster mode): API on'), UP_MS, 100);
        if (i % 2 === 0) {
          // Everything at once (as an OOM kill or a container's end would): the launcher's group, and its servers, which
          // run in process groups of their own.
          const servers = [...serversWithPort(run.ports.nats), ...serversWithPort(run.ports.redis)];
          process.kill(-run.child.pid!, 'SIGKILL');
          for (const pid of servers) process.kill(pid, 'SIGKILL');
        } else {
          process.kill(run.child.pid!, 'SIGKILL');
        }
        await run.exited;
        run = await launch({}, again);
      }
      await eventually(() => expect(run.err()).toContain('Wirehook (cluster mode): API on'), UP_MS, 100);
      expect((await fetch(`http://127.0.0.1:${run.ports.api}/v1/consumers`)).status).toBe(401);
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
    },
    5 * UP_MS + 60_000,
  );

  it(
    'Ctrl-C in its terminal (SIGINT to its whole process group): the launcher alone stops everything in order — each service by SIGTERM, then the servers',
    async () => {
      const run = await launch();
      await eventually(() => expect(run.err()).toContain('Wirehook (cluster mode): API on'), UP_MS, 100);
      process.kill(-run.child.pid!, 'SIGINT');
      expect(await run.exited).toBe(0);
      const stopLines = run
        .out()
        .split('\n')
        .filter((l) => l.includes('"msg":"shutting down"'));
      // The seven services of a one-dispatcher cluster, each stopped by the launcher, not by the terminal's signal.
      expect(stopLines).toHaveLength(7);
      for (const line of stopLines) expect(line).toContain('"reason":"SIGTERM"');
      // The servers went after them, told by the launcher (redis-server names the signal it got).
      const lines = run.out().split('\n');
      const redisStop = lines.findIndex((l) => /^\[redis-server\] .*Received SIGTERM/.test(l));
      expect(redisStop).toBeGreaterThan(-1);
      expect(run.out()).not.toMatch(/^\[redis-server\] .*Received SIGINT/m);
      expect(lines.findLastIndex((l) => l.includes('"msg":"stopped"'))).toBeLessThan(redisStop);
    },
    UP_MS + 60_000,
  );

  it(
    'a second Ctrl-C during the stop ends it at once: every service killed, the servers gone, exit 130',
    async () => {
      const run = await launch();
      await eventually(() => expect(run.err()).toContain('Wirehook (cluster mode): API on'), UP_MS, 100);
      run.child.kill('SIGINT');
      // The stop under way (the gateway goes first), then the second.
      await eventually(() => expect(run.out()).toMatch(/^\[gateway\] .*"msg":"shutting down"/m), 20_000, 5);
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(130);
      expect(run.err()).toContain('cluster: stopping at once (a second Ctrl-C): the services are killed, their work in flight cut short');
      // SIGKILLed as it exits: each is gone once the kernel has torn down its threads (on a busy machine, a moment after).
      await eventually(() => expect(servicesOf(run.dataDir)).toEqual([]), 5_000);
      await eventually(() => {
        expect(serversWithPort(run.ports.nats)).toEqual([]);
        expect(serversWithPort(run.ports.redis)).toEqual([]);
      }, 20_000);
    },
    UP_MS + 60_000,
  );

  it(
    'SIGTERM while its services start: every service it spawned has ended when it exits (0), none is reported as a crash',
    async () => {
      const run = await launch();
      const servicesFile = join(run.dataDir, 'run', 'services.pid');
      // message-intake is spawned first, alone; the rest once it is live.
      await eventually(() => expect(readFileSync(servicesFile, 'utf8')).toMatch(/ message-intake\n/), UP_MS, 10);
      expect(run.err()).not.toContain('API on');
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
      // At its exit, not later: nothing it started is left to end by itself against servers already gone.
      expect(servicesOf(run.dataDir)).toEqual([]);
      expect(run.err()).not.toMatch(/exited .* while starting|stopping the cluster/);
      // And the servers it started (in their own process group), ended by it before it exited.
      expect(serversWithPort(run.ports.nats)).toEqual([]);
      expect(serversWithPort(run.ports.redis)).toEqual([]);
    },
    UP_MS + 60_000,
  );

  it('NATS_URL that is no URL: one line naming NATS_URL and what it must be, exit 1, nothing started or left running', async () => {
    const run = await launch({ NATS_URL: 'nonsense' });
    expect(await run.exited).toBe(1);
    expect(run.err()).toBe('cluster: NATS_URL must be a nats:// or tls:// URL with a host (or unset: nats-server is started here)\n');
    expect(run.out()).toBe('');
    expect(processesNaming(run.ports.redis)).toEqual([]);
    expect(await listening(run.ports.redis)).toBe(false);
  }, 60_000);

  it('NATS_URL where nothing answers: one line naming NATS_URL, exit 1, the redis-server it started and its watchdog gone', async () => {
    const run = await launch({ NATS_URL: `nats://127.0.0.1:${await freePort()}` });
    expect(await run.exited).toBe(1);
    expect(run.err()).toMatch(
      /^cluster: nothing answers at NATS_URL \(nats:\/\/127\.0\.0\.1:\d+\) after 15 s; start it, or unset NATS_URL to start nats-server here\n$/m,
    );
    expect(run.err()).not.toMatch(/^\s+at /m); // no stack trace
    // The watchdog shell went with its server (it used to sleep out its 10 s after it).
    await eventually(() => expect(processesNaming(run.ports.redis)).toEqual([]), 3_000);
  }, 60_000);

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

/** Pids of processes (a server, or the shell watching it) whose command line names a server and `port`. */
function processesNaming(port: number): string[] {
  return processes()
    .filter((p) => p.args.some((a) => /(nats|redis)-server$/.test(a)) && p.args.includes(String(port)))
    .map((p) => `${p.pid} ${p.args.join(' ')}`);
}

/**
 * The Wirehook services (pid and command) whose environment names `dataDir` as DATA_DIR: those a launcher over it
 * started. (The servers' watchdog may leave its last `sleep 0.1` a moment after them.)
 */
function servicesOf(dataDir: string): string[] {
  return processes()
    .filter((p) => /\/services\/[a-z-]+\/src\/main\.ts/.test(p.args.join(' ')) && p.environ().includes(`DATA_DIR=${dataDir}`) && !p.zombie())
    .map((p) => `${p.pid} ${p.args.join(' ')}`);
}

/** Pids of processes whose command line names `port` (the servers take it as an argument). */
function serversWithPort(port: number): number[] {
  return processes()
    .filter((p) => /(nats|redis)-server$/.test(p.args[0] ?? '') && p.args.includes(String(port)))
    .map((p) => p.pid);
}
