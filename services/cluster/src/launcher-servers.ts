// The launcher's first step after claiming its DATA_DIR: NATS and Redis — the ones it is
// given (NATS_URL, REDIS_URL), or its own nats-server and redis-server — answering.
import { resolve } from 'node:path';
import { parseRedisUrl } from '@wirehook/kv';
import { type ClusterLauncher, type ServerUrls, withoutPassword } from './launcher.ts';
import { answers, startServer, waitForPort } from './servers.ts';

/** How long a server, ours or NATS_URL's / REDIS_URL's, may take to accept connections. */
const SERVER_WAIT_MS = 15_000;

/**
 * NATS and Redis for the services: each given one as it is, each other one started here
 * (refused when its port is taken); resolves once both accept connections, or fails the
 * launcher with one line naming what to change.
 */
export async function startServers(launcher: ClusterLauncher): Promise<ServerUrls> {
  const { config, dataDir } = launcher;
  const natsUrl =
    config.NATS_URL ??
    (await ownServer(
      launcher,
      'nats-server',
      config.NATS_PORT,
      ['-js', '-sd', resolve(dataDir, 'nats'), '-a', '127.0.0.1', '-p', String(config.NATS_PORT), '-P', launcher.pidFile('nats-server')],
      { url: 'NATS_URL', port: 'NATS_PORT' },
      'nats',
    ));
  const redisUrl =
    config.REDIS_URL ??
    (await ownServer(
      launcher,
      'redis-server',
      config.REDIS_PORT,
      ['--port', String(config.REDIS_PORT), '--bind', '127.0.0.1', '--save', '', '--dir', dataDir, '--pidfile', launcher.pidFile('redis-server')],
      { url: 'REDIS_URL', port: 'REDIS_PORT' },
      'redis',
    ));
  await Promise.all([
    awaitServer(launcher, natsUrl, natsAddress(natsUrl), { variable: 'NATS_URL', own: config.NATS_URL === undefined, server: 'nats-server' }),
    awaitServer(launcher, redisUrl, redisAddress(redisUrl), { variable: 'REDIS_URL', own: config.REDIS_URL === undefined, server: 'redis-server' }),
  ]);
  return { natsUrl, redisUrl };
}

/**
 * Starts a server of ours: if it dies, everything stops (a cluster missing its broker would
 * only look alive). @returns its URL once it is started (not yet answering).
 */
async function ownServer(
  launcher: ClusterLauncher,
  name: string,
  port: number,
  args: string[],
  variables: { url: string; port: string },
  scheme: string,
): Promise<string> {
  await requireFreePort(launcher, port, name, variables);
  const child = startServer(name, args, {
    urlVariable: variables.url,
    onLine: (line) => process.stdout.write(`[${name}] ${line}\n`),
    onFailure: (reason) => void launcher.fail(reason),
  });
  if (!child) return launcher.fail(`cannot run ${name}: it is not installed (./dev installs it; or sudo apt-get install -y ${name}), or set ${variables.url}`);
  child.once('exit', (code, signal) => {
    if (!launcher.stopping) void launcher.fail(`${name} exited (${signal ?? `code ${code}`}); stopping the cluster`);
  });
  launcher.adoptServer(child);
  return `${scheme}://127.0.0.1:${port}`;
}

/** Refuses a port something already listens on: the launcher would talk to it as if it had started it. */
async function requireFreePort(launcher: ClusterLauncher, port: number, what: string, variables: { url: string; port: string }): Promise<void> {
  if (!(await answers('127.0.0.1', port, 500))) return;
  await launcher.fail(
    `port ${port} (${what}) is already in use — a ${what} left by an earlier run, or another program ` +
      `(see: ss -ltnp 'sport = :${port}'). Stop it, set ${variables.url} to use it, or ${variables.port} to start ours elsewhere.`,
  );
}

/** Where a NATS URL's server listens (4222 unless it names a port). */
function natsAddress(url: string): { host: string; port: number } {
  const { hostname, port } = new URL(url);
  return { host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) || 4222 };
}

/** Where a Redis URL's server listens (6379 unless it names a port); null for a Sentinel group, whose primary the services find themselves. */
function redisAddress(url: string): { host: string; port: number } | null {
  const target = parseRedisUrl(url);
  if (target.kind === 'sentinel') return null;
  const { hostname, port } = new URL(target.url);
  return { host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) || 6379 };
}

/** Waits for a server to accept connections at `address`; one line naming what to change when it does not. */
async function awaitServer(
  launcher: ClusterLauncher,
  url: string,
  address: { host: string; port: number } | null,
  what: { variable: string; own: boolean; server: string },
): Promise<void> {
  if (address === null) return;
  if (await waitForPort(address.host, address.port, SERVER_WAIT_MS)) return;
  const seconds = SERVER_WAIT_MS / 1_000;
  await launcher.fail(
    what.own
      ? `the ${what.server} started here does not answer at ${url} after ${seconds} s; its output above says why`
      : `nothing answers at ${what.variable} (${withoutPassword(url)}) after ${seconds} s; start it, or unset ${what.variable} to start ${what.server} here`,
  );
}
