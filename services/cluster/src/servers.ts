// The servers the cluster launcher starts itself (nats-server, redis-server), and the waits
// for a server to answer.
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join } from 'node:path';
import { eachLine } from './output-lines.ts';

/**
 * Runs a server (`"$@"`) so that it stops when the launcher goes: a watchdog reads the
 * shell's stdin — a pipe from the launcher — and sends the server SIGTERM (then SIGKILL after
 * 10 s) at its end of file. Background jobs of a non-interactive shell read /dev/null, hence
 * fd 3. The watchdog waits only as long as the server lives, and the shell ends it once the
 * server has exited: nothing of the wrapper outlives the server.
 */
const WATCHDOG = [
  'exec 3<&0',
  '"$@" 3<&- </dev/null &',
  'pid=$!',
  '( read -r _ <&3; kill -TERM "$pid" 2>/dev/null; i=0',
  '  while [ "$i" -lt 100 ] && kill -0 "$pid" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done',
  '  kill -KILL "$pid" 2>/dev/null ) &',
  'watchdog=$!',
  'exec 3<&-',
  'wait "$pid"',
  'code=$?',
  'kill "$watchdog" 2>/dev/null',
  'exit "$code"',
].join('\n');

/** Options of {@link startServer}. */
export interface ServerOptions {
  /** The URL variable that would make starting it unnecessary, named in errors. */
  urlVariable: string;
  /** Each line of its output. */
  onLine: (line: string) => void;
  /** It could not be run: `reason` says why, in one line. */
  onFailure: (reason: string) => void;
}

/**
 * Starts a server under the watchdog. Its output is read (a pipe nobody reads fills up, and
 * nats-server then blocks on its next log line). @returns the wrapper shell, or undefined
 * when the binary is not on PATH (`onFailure` was called).
 */
export function startServer(name: string, args: string[], options: ServerOptions): ChildProcess | undefined {
  if (!onPath(name)) {
    options.onFailure(`cannot run ${name}: it is not installed (./dev installs it; or sudo apt-get install -y ${name}), or set ${options.urlVariable}`);
    return undefined;
  }
  // A process group of its own: Ctrl-C in the launcher's terminal reaches the launcher, which stops
  // the services first and the servers they use after them (nats-server and redis-server take
  // SIGINT as a stop, though a background job starts with it ignored). The watchdog still ends it
  // with the launcher, however that goes.
  const child = spawn('sh', ['-c', WATCHDOG, 'sh', name, ...args], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  child.on('error', (err) => options.onFailure(`cannot run ${name} (${err.message}); install it or set ${options.urlVariable}`));
  for (const stream of [child.stdout!, child.stderr!]) eachLine(stream, options.onLine);
  return child;
}

/** Whether something accepts TCP connections at host:port within `withinMs`, trying every 100 ms. */
export async function waitForPort(host: string, port: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (!(await answers(host, port, 1_000))) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/** Whether something accepts a TCP connection at host:port within `timeoutMs`. */
export function answers(host: string, port: number, timeoutMs: number): Promise<boolean> {
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
