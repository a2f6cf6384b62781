import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect as tcpConnect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** A loopback nats-server with JetStream, owned by one test file. */
export interface NatsServer {
  /** `nats://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Ends the server (SIGTERM, then waits for it) and deletes its store. Safe to call twice. */
  stop(): Promise<void>;
  /** Crashes the server (SIGKILL). The store stays; `restart()` brings the server back. */
  kill(): Promise<void>;
  /** Stops the server if it runs and starts it again on the same port with the same store, so streams survive. */
  restart(): Promise<void>;
}

const READY_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 10_000;
const FALLBACK_BINARIES = ['/usr/sbin/nats-server', '/usr/bin/nats-server'];

/**
 * Runs nats-server under `sh` with a watchdog: when this Node process dies by any means,
 * even SIGKILL, the pipe on the shell's stdin closes, the watchdog reads EOF, kills the
 * server and deletes its store. The shell prints the server's pid, then waits for it. The
 * server's stderr stays on our pipe: readiness is read from its log.
 */
const SUPERVISOR = [
  'exec 3<&0',
  '"$@" 3<&- </dev/null >/dev/null &',
  'pid=$!',
  // Once it fires, the watchdog ignores the TERM the shell sends it when the server exits.
  '( read -r _ <&3; trap "" TERM; kill -KILL "$pid"; rm -rf "$WIREHOOK_NATS_STORE" ) >/dev/null 2>&1 &',
  'watchdog=$!',
  'echo "$pid"',
  'exec 3<&- >/dev/null 2>&1',
  'wait "$pid"; code=$?',
  'kill "$watchdog" 2>/dev/null',
  'exit "$code"',
].join('\n');

// Server pids of this process still running, and stores not yet deleted: ended when the
// process exits normally (the watchdog covers the abnormal exits).
const livePids = new Set<number>();
const liveStores = new Set<string>();
let exitHookInstalled = false;

/**
 * Starts `nats-server -js` on a free loopback port with a fresh temporary store and resolves
 * once it accepts connections.
 * @throws Error when nats-server is not installed (`./dev test` installs it) or does not become ready.
 */
export async function startNatsServer(): Promise<NatsServer> {
  const binary = findNatsServer();
  installExitHook();
  const storeDir = await mkdtemp(join(tmpdir(), 'wirehook-nats-'));
  liveStores.add(storeDir);
  let instance: Instance | undefined;
  let port = 0;
  for (let attempt = 1; instance === undefined; attempt++) {
    port = await freePort();
    try {
      instance = await launch(binary, storeDir, port);
    } catch (err) {
      // Another process may take the port between freePort() and the bind.
      if (attempt < 3 && err instanceof Error && /address already in use/i.test(err.message)) continue;
      liveStores.delete(storeDir);
      await rm(storeDir, { recursive: true, force: true });
      throw err;
    }
  }
  let current: Instance | undefined = instance;
  let stopped = false;
  const halt = async (signal: 'SIGTERM' | 'SIGKILL'): Promise<void> => {
    await current?.stop(signal);
    current = undefined;
  };
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    stop: async () => {
      stopped = true;
      await halt('SIGTERM');
      liveStores.delete(storeDir);
      await rm(storeDir, { recursive: true, force: true });
    },
    kill: () => halt('SIGKILL'),
    restart: async () => {
      if (stopped) throw new Error('this nats-server was stopped for good; start a new one');
      await halt('SIGTERM');
      current = await launch(binary, storeDir, port);
    },
  };
}

function findNatsServer(): string {
  const onPath = (process.env['PATH'] ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, 'nats-server'));
  for (const candidate of [...onPath, ...FALLBACK_BINARIES]) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; try the next place
    }
  }
  throw new Error(
    `nats-server was not found on PATH or at ${FALLBACK_BINARIES.join(', ')}. The NATS tests need a real ` +
      'server: run them through `./dev test`, which installs it, or `sudo apt-get install -y nats-server`.',
  );
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const pid of livePids) signalQuietly(pid, 'SIGKILL');
    for (const dir of liveStores) rmSync(dir, { recursive: true, force: true });
  });
}

interface Instance {
  stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<void>;
}

/** Spawns the server and waits for "Server is ready" in its log and an INFO greeting on the port. */
async function launch(binary: string, storeDir: string, port: number): Promise<Instance> {
  const args = ['-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port)];
  const child = spawn('sh', ['-c', SUPERVISOR, 'sh', binary, ...args], {
    stdio: 'pipe',
    env: { ...process.env, WIREHOOK_NATS_STORE: storeDir },
  });
  let log = '';
  const onLog = (chunk: Buffer): void => {
    if (log.length < 20_000) log += chunk.toString('utf8');
  };
  child.stderr.on('data', onLog);
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let gone = false;
  let pid: number | undefined;
  void exited.then(() => {
    gone = true;
    if (pid !== undefined) livePids.delete(pid);
    child.stdin.destroy();
  });

  try {
    pid = await readPid(child);
    livePids.add(pid);
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!log.includes('Server is ready')) {
      if (gone) throw new Error('nats-server exited before it was ready');
      if (Date.now() > deadline) throw new Error(`nats-server was not ready within ${READY_TIMEOUT_MS} ms`);
      await sleep(20);
    }
    await expectInfo(port);
  } catch (err) {
    await terminate(child, pid, 'SIGKILL', exited);
    throw new Error(`${(err as Error).message} (${binary} ${args.join(' ')}); its log:\n${log.slice(-4_000)}`, { cause: err });
  }

  // A running server must not keep this process alive; the exit hook and the watchdog end it.
  child.stderr.off('data', onLog);
  child.stderr.resume();
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as Socket).unref();
  let stopping: Promise<void> | undefined;
  return {
    stop(signal) {
      stopping ??= terminate(child, pid, signal, exited);
      return stopping;
    },
  };
}

/** Signals nats-server and waits for its supervisor to exit, escalating to SIGKILL. */
async function terminate(child: ChildProcess, pid: number | undefined, signal: 'SIGTERM' | 'SIGKILL', exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  if (pid === undefined) {
    child.stdin?.destroy(); // the watchdog has nothing to kill yet; the shell exits
    child.kill('SIGKILL');
  } else {
    signalQuietly(pid, signal);
  }
  const timer = setTimeout(() => {
    if (pid !== undefined) signalQuietly(pid, 'SIGKILL');
  }, STOP_TIMEOUT_MS);
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
      const newline = text.indexOf('\n');
      if (newline === -1) return;
      child.stdout?.off('data', onData);
      const pid = Number(text.slice(0, newline).trim());
      if (Number.isSafeInteger(pid) && pid > 0) resolve(pid);
      else reject(new Error(`unexpected supervisor output ${JSON.stringify(text)}`));
    };
    child.stdout?.on('data', onData);
    child.once('error', reject);
    child.once('close', (code) => reject(new Error(`supervisor exited with ${code}`)));
  });
}

/** Resolves when the port greets a new connection with nats-server's INFO line. */
function expectInfo(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(port, '127.0.0.1');
    socket.setTimeout(5_000, () => socket.destroy(new Error('no INFO greeting from nats-server within 5 s')));
    socket.once('data', (chunk) => {
      socket.destroy();
      if (chunk.toString('utf8').startsWith('INFO')) resolve();
      else reject(new Error(`unexpected greeting on port ${port}: ${chunk.toString('utf8').slice(0, 80)}`));
    });
    socket.once('error', reject);
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
