import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants as fsConstants } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** A loopback `redis-server` started by {@link startRedisServer}. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>`; stays the same across `restart()`. */
  readonly url: string;
  readonly port: number;
  /** Stops the server gracefully (SIGTERM, SIGKILL after 5 s) and waits for it to exit. Idempotent. */
  stop(): Promise<void>;
  /** Kills the server with SIGKILL, as a crash would, and waits for it to exit. Idempotent. */
  kill(): Promise<void>;
  /** Starts a fresh, empty server on the same port (stopping the running one first). */
  restart(): Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;
const STOP_GRACE_MS = 5_000;

/**
 * Runs redis-server under `sh` with a watchdog: when this Node process dies by any means,
 * even SIGKILL, the pipe on the shell's stdin closes, the watchdog reads EOF and kills
 * redis-server, so no server outlives the tests. The shell prints redis-server's pid,
 * waits for it, removes its temp dir and exits with its status.
 */
const SUPERVISOR = [
  'exec 3<&0',
  '"$@" 3<&- </dev/null 1>&2 &',
  'pid=$!',
  '( read -r _ <&3; kill -KILL "$pid" ) >/dev/null 2>&1 &',
  'watchdog=$!',
  'echo "$pid"',
  // Once Node is gone, a write to its pipes (dash reports a killed job) would SIGPIPE us.
  'exec 3<&- >/dev/null 2>&1',
  'wait "$pid"; code=$?',
  'kill "$watchdog" 2>/dev/null',
  'rm -rf "$WIREHOOK_REDIS_DIR"',
  'exit "$code"',
].join('\n');

/** Every server this process has running; killed synchronously on exit. */
const running = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const pid of running) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

/**
 * Starts a real `redis-server` on a free loopback port, without persistence, in a temp
 * dir, and resolves once it answers PING. Throws when redis-server is not installed
 * (`./dev test` installs it) or does not come up within 10 s (with its log).
 */
export async function startRedisServer(): Promise<RedisServer> {
  const binary = findRedisServer();
  installExitHook();
  let instance: Instance | undefined;
  let port = 0;
  for (let attempt = 1; instance === undefined; attempt++) {
    port = await freePort();
    try {
      instance = await launch(binary, port);
    } catch (err) {
      // Another process may take the port between freePort() and the bind.
      if (attempt >= 3 || !(err instanceof Error && /already in use/i.test(err.message))) throw err;
    }
  }
  let current: Instance | undefined = instance;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      await current?.stop('SIGTERM');
      current = undefined;
    },
    async kill() {
      await current?.stop('SIGKILL');
      current = undefined;
    },
    async restart() {
      await current?.stop('SIGTERM');
      current = undefined;
      current = await launch(binary, port);
    },
  };
}

/** redis-server on PATH or at /usr/bin/redis-server; throws a loud error when missing. */
function findRedisServer(): string {
  const dirs = (process.env['PATH'] ?? '').split(delimiter).filter((d) => d !== '');
  for (const candidate of [...dirs.map((d) => join(d, 'redis-server')), '/usr/bin/redis-server']) {
    try {
      accessSync(candidate, fsConstants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error(
    'redis-server was not found on PATH or at /usr/bin/redis-server. The Redis tests need a real ' +
      'server: run them through `./dev test`, which installs it, or `sudo apt-get install -y redis-server`.',
  );
}

interface Instance {
  stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<void>;
}

async function launch(binary: string, port: number): Promise<Instance> {
  const dir = await mkdtemp(join(tmpdir(), 'wirehook-redis-'));
  const logFile = join(dir, 'redis.log');
  const args = [
    ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    ...['--dir', dir, '--logfile', logFile, '--daemonize', 'no'],
  ];
  const child = spawn('sh', ['-c', SUPERVISOR, 'sh', binary, ...args], {
    stdio: 'pipe',
    env: { ...process.env, WIREHOOK_REDIS_DIR: dir },
  });
  // Start-up errors (a bad option, a taken port before the log opens) go to stderr.
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 10_000) stderr += chunk.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let pid: number | undefined;
  let gone = false;
  void exited.then(async () => {
    gone = true;
    child.stdin?.destroy();
  });

  const fail = async (reason: string): Promise<never> => {
    const log = await readFile(logFile, 'utf8').catch(() => '');
    await terminate(child, pid, 'SIGKILL', exited);
    await rm(dir, { recursive: true, force: true });
    throw new Error(`redis-server on port ${port} ${reason}; its output:\n${stderr}${log}`);
  };

  try {
    pid = await readPid(child);
  } catch (err) {
    return fail(`did not start (${(err as Error).message})`);
  }
  running.add(pid);
  void exited.then(() => running.delete(pid));

  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await answersPing(port))) {
    if (gone) return fail('exited before it answered PING');
    if (Date.now() > deadline) return fail(`did not answer PING within ${READY_TIMEOUT_MS} ms`);
    await sleep(20);
  }

  // A running server must not keep this process alive; the exit hook and the watchdog
  // end it. (stop() keeps the process alive with its escalation timer while it waits.)
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as Socket | null)?.unref();
  let stopping: Promise<void> | undefined;
  return {
    stop(signal) {
      stopping ??= terminate(child, pid, signal, exited);
      return stopping;
    },
  };
}

/** Signals redis-server and waits for the supervisor to exit, escalating to SIGKILL. */
async function terminate(
  child: ChildProcess,
  pid: number | undefined,
  signal: 'SIGTERM' | 'SIGKILL',
  exited: Promise<void>,
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  if (pid === undefined) {
    child.stdin?.destroy(); // the watchdog has nothing to kill yet; the shell exits
    child.kill('SIGKILL');
  } else {
    signalQuietly(pid, signal);
  }
  const timer = setTimeout(() => {
    if (pid !== undefined) signalQuietly(pid, 'SIGKILL');
  }, STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

function readPid(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const line = text.split('\n')[0];
      if (text.includes('\n') && line !== undefined) {
        child.stdout?.off('data', onData);
        const pid = Number(line.trim());
        if (Number.isSafeInteger(pid) && pid > 0) resolve(pid);
        else reject(new Error(`unexpected supervisor output ${JSON.stringify(line)}`));
      }
    };
    child.stdout?.on('data', onData);
    child.once('error', reject);
    child.once('close', (code) => reject(new Error(`supervisor exited with ${code}`)));
  });
}

/** True when something on the port answers `+PONG` to an inline PING within 500 ms. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
