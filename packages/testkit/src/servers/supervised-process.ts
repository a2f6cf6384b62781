import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from './free-port.ts';
import { trackTestProcess, untrackTestProcess } from './test-processes.ts';

/** How to run one kind of loopback server for the tests (see nats-server.ts, redis-server.ts). */
export interface ServerSpec {
  /** The binary's name, which is also its apt package: `nats-server`. */
  readonly binary: string;
  /** Where to look when it is not on PATH. */
  readonly fallbacks: readonly string[];
  /** What the tests that need it are called in the missing-binary error: `NATS`. */
  readonly testsName: string;
  /**
   * `'server'`: one temp dir (a store) for the server's whole life, kept across restarts and
   * deleted by stop(), after which restart() throws. `'run'`: a fresh, empty temp dir for each
   * start, deleted as soon as that run exits.
   */
  readonly dirScope: 'server' | 'run';
  readonly dirPrefix: string;
  readonly args: (port: number, dir: string) => string[];
  /** Polled every 20 ms with the server's output (stdout and stderr) until true; a throw fails the start. */
  readonly isReady: (port: number, output: string) => boolean | Promise<boolean>;
  readonly readyTimeoutMs: number;
  /** How long stop() waits after SIGTERM before it sends SIGKILL. */
  readonly stopGraceMs: number;
}

export interface SupervisedServer {
  readonly port: number;
  /** SIGTERM (SIGKILL after the grace), waits for the exit, deletes a `'server'` dir. Safe to call twice. */
  stop(): Promise<void>;
  /** SIGKILL, as a crash would, and waits for the exit. The dir of a `'server'` stays. */
  kill(): Promise<void>;
  /** Stops the server if it runs and starts it again on the same port (and `'server'` dir). */
  restart(): Promise<void>;
  /** SIGSTOP: the server hangs with its connections open (a hung, not a dead, dependency). `resume()` (SIGCONT) undoes it. */
  pause(): void;
  resume(): void;
}

type StopSignal = 'SIGTERM' | 'SIGKILL';

/**
 * Runs the server under `sh` with a watchdog: when this Node process dies by any means, even
 * SIGKILL, the pipe on the shell's stdin closes, the watchdog reads EOF, kills the server and
 * deletes its dir. The shell prints the server's pid, waits for it, deletes a per-run dir and
 * exits with its status. The server's stdout and stderr stay on our pipe: readiness is read
 * from its output.
 */
const SUPERVISOR = [
  'exec 3<&0',
  '"$@" 3<&- </dev/null 1>&2 &',
  'pid=$!',
  // Once it fires, the watchdog ignores the TERM the shell sends it when the server exits.
  '( read -r _ <&3; trap "" TERM; kill -KILL "$pid"; rm -rf "$WIREHOOK_SERVER_DIR" ) >/dev/null 2>&1 &',
  'watchdog=$!',
  'echo "$pid"',
  // Once Node is gone, a write to its pipes (dash reports a killed job) would SIGPIPE us.
  'exec 3<&- >/dev/null 2>&1',
  'wait "$pid"; code=$?',
  'kill "$watchdog" 2>/dev/null',
  '[ "$WIREHOOK_DIR_PER_RUN" != 1 ] || rm -rf "$WIREHOOK_SERVER_DIR"',
  'exit "$code"',
].join('\n');

// Server pids of this process still running, and dirs not yet deleted: ended when the process
// exits normally (the watchdog covers the abnormal exits).
const livePids = new Set<number>();
const liveDirs = new Set<string>();
let exitHookInstalled = false;

/**
 * Starts the server on a free loopback port and resolves once `spec.isReady` says so.
 * @throws Error when the binary is not installed (`./dev test` installs it) or the server does not become ready.
 */
export async function startSupervised(spec: ServerSpec): Promise<SupervisedServer> {
  const binary = findBinary(spec);
  installExitHook();
  const store = spec.dirScope === 'server' ? await tempDir(spec.dirPrefix) : undefined;
  const start = async (port: number): Promise<Run> => launch(spec, binary, port, store ?? (await tempDir(spec.dirPrefix)));
  let current: Run | undefined;
  let port = 0;
  for (let attempt = 1; current === undefined; attempt++) {
    port = await freePort();
    try {
      current = await start(port);
    } catch (err) {
      // Another process may take the port between freePort() and the bind.
      if (attempt < 3 && err instanceof Error && /already in use/i.test(err.message)) continue;
      if (store !== undefined) await removeDir(store);
      throw err;
    }
  }
  let stopped = false;
  const halt = async (signal: StopSignal): Promise<void> => {
    await current?.stop(signal);
    current = undefined;
  };
  return {
    port,
    stop: async () => {
      stopped = true;
      await halt('SIGTERM');
      if (store !== undefined) await removeDir(store);
    },
    kill: () => halt('SIGKILL'),
    pause: () => current?.signal('SIGSTOP'),
    resume: () => current?.signal('SIGCONT'),
    restart: async () => {
      if (stopped && store !== undefined) throw new Error(`this ${spec.binary} was stopped for good; start a new one`);
      await halt('SIGTERM');
      current = await start(port);
    },
  };
}

function findBinary({ binary, fallbacks, testsName }: ServerSpec): string {
  const onPath = (process.env['PATH'] ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, binary));
  for (const candidate of [...onPath, ...fallbacks]) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; try the next place
    }
  }
  throw new Error(
    `${binary} was not found on PATH or at ${fallbacks.join(', ')}. The ${testsName} tests need a real ` +
      `server: run them through \`./dev test\`, which installs it, or \`sudo apt-get install -y ${binary}\`.`,
  );
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const pid of livePids) signalQuietly(pid, 'SIGKILL');
    for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true });
  });
}

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  liveDirs.add(dir);
  return dir;
}

async function removeDir(dir: string): Promise<void> {
  liveDirs.delete(dir);
  await rm(dir, { recursive: true, force: true });
}

interface Run {
  stop(signal: StopSignal): Promise<void>;
  signal(signal: 'SIGSTOP' | 'SIGCONT'): void;
}

/** Spawns the server under the supervisor and waits until it is ready. */
async function launch(spec: ServerSpec, binary: string, port: number, dir: string): Promise<Run> {
  const perRun = spec.dirScope === 'run';
  const args = spec.args(port, dir);
  const child = spawn('sh', ['-c', SUPERVISOR, 'sh', binary, ...args], {
    stdio: 'pipe',
    env: { ...process.env, WIREHOOK_SERVER_DIR: dir, WIREHOOK_DIR_PER_RUN: perRun ? '1' : '0' },
  });
  let output = '';
  const onOutput = (chunk: Buffer): void => {
    if (output.length < 20_000) output += chunk.toString('utf8');
  };
  child.stderr.on('data', onOutput);
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let gone = false;
  let pid: number | undefined;
  void exited.then(() => {
    gone = true;
    if (pid !== undefined) {
      livePids.delete(pid);
      untrackTestProcess(pid);
    }
    if (perRun) liveDirs.delete(dir); // the shell deleted it
    child.stdin.destroy();
  });

  try {
    pid = await readPid(child);
    livePids.add(pid);
    trackTestProcess({ pid, group: false, command: [binary, ...args].join(' '), startedBy: `startSupervised(${spec.binary})` });
    const deadline = Date.now() + spec.readyTimeoutMs;
    while (!(await spec.isReady(port, output))) {
      if (gone) throw new Error(`${spec.binary} exited before it was ready`);
      if (Date.now() > deadline) throw new Error(`${spec.binary} was not ready within ${spec.readyTimeoutMs} ms`);
      await sleep(20);
    }
  } catch (err) {
    await terminate(child, pid, 'SIGKILL', exited, spec.stopGraceMs);
    if (perRun) await removeDir(dir);
    const command = [binary, ...args].map((arg) => (arg === '' ? "''" : arg)).join(' ');
    throw new Error(`${(err as Error).message} (${command}); its output:\n${output.slice(-4_000)}`, { cause: err });
  }

  // A running server must not keep this process alive; the exit hook and the watchdog end it.
  // (stop() keeps the process alive with its escalation timer while it waits.)
  child.stderr.off('data', onOutput);
  child.stderr.resume();
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as Socket).unref();
  let stopping: Promise<void> | undefined;
  return {
    stop(signal) {
      stopping ??= terminate(child, pid, signal, exited, spec.stopGraceMs);
      return stopping;
    },
    signal(signal) {
      if (pid !== undefined) signalQuietly(pid, signal);
    },
  };
}

/** Signals the server and waits for its supervisor to exit, escalating to SIGKILL after `graceMs`. */
async function terminate(child: ChildProcess, pid: number | undefined, signal: StopSignal, exited: Promise<void>, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  if (pid === undefined) {
    child.stdin?.destroy(); // the watchdog has nothing to kill yet; the shell exits
    child.kill('SIGKILL');
  } else {
    signalQuietly(pid, signal);
  }
  const timer = setTimeout(() => {
    if (pid !== undefined) signalQuietly(pid, 'SIGKILL');
  }, graceMs);
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
