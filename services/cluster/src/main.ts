// `./dev start --cluster`: every Wirehook service as its own process, like the Helm chart
// deploys them, against nats-server (JetStream) and redis-server started here when
// NATS_URL / REDIS_URL are not given. Without MONGODB_URL the services share the SQLite
// file in DATA_DIR. Ctrl-C stops everything. Whatever goes wrong is said in one line naming
// what to change, and nothing started here is left running.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { portVar } from '@wirehook/platform';
import { startCluster, type Cluster } from './cluster.ts';
import { endLeftover, liveProcess, liveRefs, liveServer, selfRef, writeRefs, type ProcessRef } from './leftovers.ts';
import { answers, startServer, waitForPort } from './servers.ts';

/** A URL variable that is optional (unset or empty: the launcher starts the server itself). */
const serverUrlVar = (test: (url: URL) => boolean, expected: string) =>
  z
    .string()
    .optional()
    .transform((v) => v || undefined)
    .refine(
      (v) => {
        if (v === undefined) return true;
        // A Sentinel group lists several hosts, which a URL parser refuses (the gateway reads it: packages/kv redis-url.ts).
        if (/^rediss?\+sentinel:\/\/(?:[^@/]*@)?[^/@]+\/[^/?#]+/.test(v)) return test(new URL(v.replace(/\/\/(?:[^@/]*@)?[^/]+/, '//sentinel')));
        try {
          return test(new URL(v));
        } catch {
          return false;
        }
      },
      { error: expected },
    );

const schema = z.object({
  PORT: portVar(8080), // public API (gateway)
  PORTAL_PORT: portVar(8081), // the customer portal
  INTAKE_GRPC_PORT: portVar(50051), // message-intake gRPC
  RECOVERY_GRPC_PORT: portVar(50053), // the recovery service's gRPC
  RELAY_GRPC_PORT: portVar(50052), // the egress relay's gRPC
  METRICS_PORT: portVar(9464), // first metrics port; services take consecutive ones
  DATA_DIR: z.string().default('./.wirehook'), // SQLite file, secret key, JetStream store
  NATS_URL: serverUrlVar(
    (u) => ['nats:', 'tls:'].includes(u.protocol) && u.hostname !== '',
    'must be a nats:// or tls:// URL with a host (or unset: nats-server is started here)',
  ), // default: start nats-server on NATS_PORT
  REDIS_URL: serverUrlVar(
    (u) => /^rediss?(\+sentinel)?:$/.test(u.protocol) && (u.hostname !== '' || u.protocol.includes('sentinel')),
    'must be a redis://, rediss:// or redis+sentinel:// URL with a host (or unset: redis-server is started here)',
  ), // default: start redis-server on REDIS_PORT
  NATS_PORT: portVar(4222), // where the nats-server started here listens
  REDIS_PORT: portVar(6379), // where the redis-server started here listens
  DISPATCHERS: z.coerce.number().int().min(1).max(16).default(2), // dispatcher replicas
  CLUSTER_START_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000), // how long each service may take to report live
});

const say = (line: string) => process.stderr.write(`cluster: ${line}\n`);

// One line per bad variable, naming it and what it must be (never its value: a URL may hold a password).
const parsed = schema.safeParse(process.env);
if (!parsed.success) {
  for (const issue of parsed.error.issues) say(`${issue.path.join('.')} ${issue.message}`);
  process.exit(1);
}
const config = Object.freeze(parsed.data);

/** How long a server, ours or NATS_URL's / REDIS_URL's, may take to accept connections. */
const SERVER_WAIT_MS = 15_000;

const dataDir = resolve(config.DATA_DIR);
mkdirSync(dataDir, { recursive: true });
// Pid files: of this launcher, of its services, and of the servers it started (they write
// their own). A run over the same DATA_DIR finds by them what an earlier one left behind.
const runDir = join(dataDir, 'run');
mkdirSync(runDir, { recursive: true });
const pidFile = (server: string) => join(runDir, `${server}.pid`);
const launcherFile = join(runDir, 'launcher.pid');
const servicesFile = join(runDir, 'services.pid');

const servers: ChildProcess[] = [];
let stopping = false;
let cluster: Cluster | undefined;
// Whatever happens to this process, the servers it started go with it: closing their stdin
// tells their watchdog to stop them, and the pipe closes by itself if this process is SIGKILLed.
process.on('exit', () => {
  for (const s of servers) s.stdin?.end();
});
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());

/** Says `line` and stops everything started so far (exit 1). */
async function fail(line: string): Promise<never> {
  say(line);
  await stop(1);
  return process.exit(1);
}

async function stop(code = 0): Promise<void> {
  if (stopping) return;
  stopping = true;
  await cluster?.stop();
  await Promise.all(
    servers.map((s) => {
      if (s.exitCode !== null || s.signalCode !== null) return undefined;
      const exited = new Promise((resolve) => s.once('exit', resolve));
      s.stdin?.end(); // the watchdog stops the server
      return exited;
    }),
  );
  rmSync(servicesFile, { force: true });
  rmSync(launcherFile, { force: true });
  process.exit(code);
}

// One launcher per DATA_DIR: a second one would take the first one's processes for leftovers.
const running = liveRefs(launcherFile).find((r) => r.pid !== process.pid);
if (running) {
  say(`another launcher (pid ${running.pid}) runs over this DATA_DIR (${dataDir}); stop it, or set DATA_DIR to another directory`);
  process.exit(1);
}
writeRefs(launcherFile, new Map([['launcher', selfRef()]]));
await endLeftovers();

/**
 * Ends what an earlier run over this DATA_DIR left (its launcher killed with -9, and a
 * supervisor starting this one at once): its services, and its nats-server and redis-server
 * when this run starts its own (they would share its files and ports). Each is given 10 s to
 * end by itself (it is usually on its way out already), then SIGTERM, then SIGKILL.
 */
async function endLeftovers(): Promise<void> {
  const found = liveRefs(servicesFile);
  for (const [server, url] of [
    ['nats-server', config.NATS_URL],
    ['redis-server', config.REDIS_URL],
  ] as const) {
    const pid = url === undefined ? liveServer(pidFile(server), server) : undefined;
    if (pid !== undefined) found.push({ name: server, pid });
  }
  if (found.length === 0) return;
  const named = found.map((f) => `${f.name} (pid ${f.pid})`).join(', ');
  say(`an earlier run over this DATA_DIR left ${named} running; stopping them (10 s to end, then SIGTERM, then SIGKILL)`);
  const outcomes = await Promise.all(found.map((f) => endLeftover(f.pid)));
  const survivors = found.filter((_, i) => outcomes[i] === 'survived');
  if (survivors.length > 0) {
    await fail(
      `could not stop ${survivors.map((f) => `${f.name} (pid ${f.pid})`).join(', ')}, left by an earlier run over this DATA_DIR: stop it, or set DATA_DIR to another directory`,
    );
  }
}

/** Refuses a port something already listens on: the launcher would talk to it as if it had started it. */
async function requireFreePort(port: number, what: string, urlVariable: string, portVariable: string): Promise<void> {
  if (!(await answers('127.0.0.1', port, 500))) return;
  await fail(
    `port ${port} (${what}) is already in use — a ${what} left by an earlier run, or another program ` +
      `(see: ss -ltnp 'sport = :${port}'). Stop it, set ${urlVariable} to use it, or ${portVariable} to start ours elsewhere.`,
  );
}

/**
 * Starts a server of ours: if it dies, everything stops (a cluster missing its broker would
 * only look alive). @returns its URL once it accepts connections.
 */
async function ownServer(name: string, port: number, args: string[], variables: { url: string; port: string }, scheme: string): Promise<string> {
  await requireFreePort(port, name, variables.url, variables.port);
  const child = startServer(name, args, {
    urlVariable: variables.url,
    onLine: (line) => process.stdout.write(`[${name}] ${line}\n`),
    onFailure: (reason) => void fail(reason),
  });
  if (!child) return fail(`cannot run ${name}: it is not installed (./dev installs it; or sudo apt-get install -y ${name}), or set ${variables.url}`);
  child.once('exit', (code, signal) => {
    if (!stopping) void fail(`${name} exited (${signal ?? `code ${code}`}); stopping the cluster`);
  });
  servers.push(child);
  return `${scheme}://127.0.0.1:${port}`;
}

/** Waits for a server to accept connections; one line naming what to change when it does not. */
async function awaitServer(url: string, variable: string, own: boolean, server: string): Promise<void> {
  const { hostname, port, protocol } = new URL(url);
  if (protocol.includes('sentinel')) return; // several hosts: the services find the primary themselves
  const defaultPort = protocol.startsWith('redis') ? 6379 : 4222;
  if (await waitForPort(hostname.replace(/^\[|\]$/g, ''), Number(port) || defaultPort, SERVER_WAIT_MS)) return;
  const seconds = SERVER_WAIT_MS / 1_000;
  await fail(
    own
      ? `the ${server} started here does not answer at ${url} after ${seconds} s; its output above says why`
      : `nothing answers at ${variable} (${withoutPassword(url)}) after ${seconds} s; start it, or unset ${variable} to start ${server} here`,
  );
}

/** `url` without its user and password. */
function withoutPassword(url: string): string {
  return url.replace(/^([a-z+]+:\/\/)[^@/?]*@/i, '$1…@');
}

const natsUrl =
  config.NATS_URL ??
  (await ownServer(
    'nats-server',
    config.NATS_PORT,
    ['-js', '-sd', resolve(dataDir, 'nats'), '-a', '127.0.0.1', '-p', String(config.NATS_PORT), '-P', pidFile('nats-server')],
    { url: 'NATS_URL', port: 'NATS_PORT' },
    'nats',
  ));
const redisUrl =
  config.REDIS_URL ??
  (await ownServer(
    'redis-server',
    config.REDIS_PORT,
    ['--port', String(config.REDIS_PORT), '--bind', '127.0.0.1', '--save', '', '--dir', dataDir, '--pidfile', pidFile('redis-server')],
    { url: 'REDIS_URL', port: 'REDIS_PORT' },
    'redis',
  ));
await Promise.all([
  awaitServer(natsUrl, 'NATS_URL', config.NATS_URL === undefined, 'nats-server'),
  awaitServer(redisUrl, 'REDIS_URL', config.REDIS_URL === undefined, 'redis-server'),
]);

const env: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
const spawned = new Map<string, ProcessRef>();
try {
  cluster = await startCluster({
    env: { ...env, DATA_DIR: dataDir, NATS_URL: natsUrl, REDIS_URL: redisUrl },
    ports: {
      api: config.PORT,
      intakeGrpc: config.INTAKE_GRPC_PORT,
      recoveryGrpc: config.RECOVERY_GRPC_PORT,
      relayGrpc: config.RELAY_GRPC_PORT,
      portal: config.PORTAL_PORT,
      metricsBase: config.METRICS_PORT,
    },
    dispatchers: config.DISPATCHERS,
    startTimeoutMs: config.CLUSTER_START_TIMEOUT_MS,
    // A crashed service is reported at once and the whole cluster stops (exit 1): this is the
    // local launcher, where a half-running cluster only misleads; in Kubernetes the
    // orchestrator restarts pods instead.
    onExit: (service, code, signal) => {
      if (!stopping) void fail(`${service} exited (${signal ?? `code ${code}`}); stopping the cluster`);
    },
    onSpawn: (service, pid) => {
      const ref = liveProcess(pid);
      if (ref) spawned.set(service, ref);
      writeRefs(servicesFile, spawned);
    },
  });
} catch (err) {
  await fail((err as Error).message); // startCluster stopped what it had started
}
if (!stopping) {
  process.stderr.write(
    `\nWirehook (cluster mode): API on ${cluster!.apiUrl}/v1 — ${cluster!.specs.length} services, NATS ${withoutPassword(natsUrl)}, Redis ${withoutPassword(redisUrl)}\n\n`,
  );
}
