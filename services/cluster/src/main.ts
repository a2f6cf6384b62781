// `./dev start --cluster`: every Wirehook service as its own process, like the Helm chart
// deploys them, against nats-server (JetStream) and redis-server started here when
// NATS_URL / REDIS_URL are not given. Without MONGODB_URL the services share the SQLite
// file in DATA_DIR. Ctrl-C stops everything.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { accessSync, constants, mkdirSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { loadConfig, portVar } from '@wirehook/platform';
import { startCluster, type Cluster } from './cluster.ts';

const config = loadConfig(
  z.object({
    PORT: portVar(8080), // public API (gateway)
    PORTAL_PORT: portVar(8081), // the customer portal
    INTAKE_GRPC_PORT: portVar(50051), // message-intake gRPC
    RECOVERY_GRPC_PORT: portVar(50053), // the recovery service's gRPC
    RELAY_GRPC_PORT: portVar(50052), // the egress relay's gRPC
    METRICS_PORT: portVar(9464), // first metrics port; services take consecutive ones
    DATA_DIR: z.string().default('./.wirehook'), // SQLite file, secret key, JetStream store
    NATS_URL: z
      .string()
      .optional()
      .transform((v) => v || undefined), // default: start nats-server on NATS_PORT
    REDIS_URL: z
      .string()
      .optional()
      .transform((v) => v || undefined), // default: start redis-server on REDIS_PORT
    NATS_PORT: portVar(4222), // where the nats-server started here listens
    REDIS_PORT: portVar(6379), // where the redis-server started here listens
    DISPATCHERS: z.coerce.number().int().min(1).max(16).default(2), // dispatcher replicas
  }),
  process.env,
  'cluster',
);

const say = (line: string) => process.stderr.write(`cluster: ${line}\n`);
const dataDir = resolve(config.DATA_DIR);
mkdirSync(dataDir, { recursive: true });
// The pid files of the servers started here: a server left running by an earlier run (its
// launcher killed before the watchdog existed, or the machine's own) is found by them.
const runDir = join(dataDir, 'run');
mkdirSync(runDir, { recursive: true });
const pidFile = (server: string) => join(runDir, `${server}.pid`);
const servers: ChildProcess[] = [];
let stopping = false;
let cluster: Cluster | undefined;
// Whatever happens to this process, the servers it started go with it: closing their stdin
// tells their watchdog (below) to stop them, and the pipe closes by itself if this process is
// SIGKILLed.
process.on('exit', () => {
  for (const s of servers) s.stdin?.end();
});

/**
 * Runs a server (`"$@"`) so that it stops when this process goes: a watchdog reads the
 * shell's stdin — a pipe from here — and sends the server SIGTERM (then SIGKILL) at its end
 * of file. Background jobs of a non-interactive shell read /dev/null, hence fd 3.
 */
const WATCHDOG = [
  'exec 3<&0',
  '"$@" 3<&- </dev/null &',
  'pid=$!',
  '( read -r _ <&3; kill -TERM "$pid" 2>/dev/null; sleep 10; kill -KILL "$pid" 2>/dev/null ) &',
  'exec 3<&-',
  'wait "$pid"',
].join('\n');

/**
 * Starts a server this launcher owns. Its output is read and shown, prefixed (a pipe nobody
 * reads fills up, and nats-server then blocks on its next log line); if it dies, everything
 * stops: a cluster missing its broker would only look alive.
 */
function startServer(name: string, args: string[], urlVariable: string): void {
  if (!onPath(name)) {
    say(`cannot run ${name}: it is not installed (./dev installs it; or sudo apt-get install -y ${name}), or set ${urlVariable}`);
    process.exit(1);
  }
  const child = spawn('sh', ['-c', WATCHDOG, 'sh', name, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.on('error', (err) => {
    say(`cannot run ${name} (${err.message}); install it or set ${urlVariable}`);
    process.exit(1);
  });
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => process.stdout.write(`[${name}] ${line}\n`));
  }
  child.once('exit', (code, signal) => {
    if (stopping) return;
    say(`${name} exited (${signal ?? `code ${code}`}); stopping the cluster`);
    void stop(1);
  });
  servers.push(child);
}

/**
 * Refuses a port something already listens on: the launcher would otherwise talk to it as
 * if it had started it (a nats-server or redis-server left by an earlier run, or another
 * program), and say it had.
 */
async function requireFreePort(port: number, what: string, urlVariable: string, portVariable: string): Promise<void> {
  const stale = staleServer(what);
  if (stale !== undefined) {
    say(
      `a ${what} from an earlier run over this DATA_DIR is still running (pid ${stale}, from ${pidFile(what)}); ` +
        `it would share its files with ours. Stop it (kill ${stale}), or set ${urlVariable} to use it.`,
    );
    process.exit(1);
  }
  if (!(await answers('127.0.0.1', port, 500))) return;
  say(
    `port ${port} (${what}) is already in use — a ${what} left by an earlier run, or another program ` +
      `(see: ss -ltnp 'sport = :${port}'). Stop it, set ${urlVariable} to use it, or ${portVariable} to start ours elsewhere.`,
  );
  process.exit(1);
}

/** The pid in `server`'s pid file when that process is alive and is that server (pids get reused). */
function staleServer(server: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile(server), 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim().startsWith(server.slice(0, 15)) ? pid : undefined;
  } catch {
    return undefined; // gone (or no /proc: then only the port check below applies)
  }
}

let natsUrl = config.NATS_URL;
if (natsUrl === undefined) {
  await requireFreePort(config.NATS_PORT, 'nats-server', 'NATS_URL', 'NATS_PORT');
  startServer(
    'nats-server',
    ['-js', '-sd', resolve(dataDir, 'nats'), '-a', '127.0.0.1', '-p', String(config.NATS_PORT), '-P', pidFile('nats-server')],
    'NATS_URL',
  );
  natsUrl = `nats://127.0.0.1:${config.NATS_PORT}`;
}
let redisUrl = config.REDIS_URL;
if (redisUrl === undefined) {
  await requireFreePort(config.REDIS_PORT, 'redis-server', 'REDIS_URL', 'REDIS_PORT');
  startServer(
    'redis-server',
    ['--port', String(config.REDIS_PORT), '--bind', '127.0.0.1', '--save', '', '--dir', dataDir, '--pidfile', pidFile('redis-server')],
    'REDIS_URL',
  );
  redisUrl = `redis://127.0.0.1:${config.REDIS_PORT}`;
}
await Promise.all([waitForPort(natsUrl), waitForPort(redisUrl)]);

const env: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
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
  // A crashed service is reported at once and the whole cluster stops (exit 1): this is the
  // local launcher, where a half-running cluster only misleads; in Kubernetes the
  // orchestrator restarts pods instead.
  onExit: (service, code, signal) => {
    if (stopping) return;
    say(`${service} exited (${signal ?? `code ${code}`}); stopping the cluster`);
    void stop(1);
  },
});
process.stderr.write(`\nWirehook (cluster mode): API on ${cluster.apiUrl}/v1 — ${cluster.specs.length} services, NATS ${natsUrl}, Redis ${redisUrl}\n\n`);

/** Waits until something accepts TCP connections at the URL's host and port (at most 15 s). */
async function waitForPort(url: string): Promise<void> {
  const { hostname, port } = new URL(url);
  const deadline = Date.now() + 15_000;
  while (!(await answers(hostname.replace(/^\[|\]$/g, ''), Number(port), 1_000))) {
    if (Date.now() > deadline) throw new Error(`nothing answers at ${url}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Whether something accepts a TCP connection at host:port within `timeoutMs`. */
function answers(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise<boolean>((done) => {
    const socket = connect(port, host, () => {
      socket.end();
      done(true);
    });
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      done(false);
    });
    socket.once('error', () => done(false));
  });
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
  process.exit(code);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());

/** Whether `binary` is on PATH (the watchdog shell would only say "not found"). */
function onPath(binary: string): boolean {
  return (process.env['PATH'] ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, binary), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
