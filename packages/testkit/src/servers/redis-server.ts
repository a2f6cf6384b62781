import { createConnection } from 'node:net';
import { startSupervised, type SupervisedServer } from './supervised-process.ts';

/**
 * A loopback `redis-server` started by {@link startRedisServer}. `stop()` stops it gracefully
 * (SIGTERM, SIGKILL after 5 s) and waits for it to exit; `kill()` kills it with SIGKILL, as a
 * crash would; both are idempotent. `restart()` starts a fresh, empty server on the same port
 * (stopping the running one first), also after `stop()`.
 */
export interface RedisServer extends SupervisedServer {
  /** `redis://127.0.0.1:<port>`; stays the same across `restart()`. */
  readonly url: string;
}

/**
 * Starts a real `redis-server` on a free loopback port, without persistence, in a temp
 * dir, and resolves once it answers PING. Nothing outlives the test process, even when it
 * is SIGKILLed. Throws when redis-server is not installed (`./dev test` installs it) or
 * does not come up within 10 s (with its log).
 */
export async function startRedisServer(): Promise<RedisServer> {
  const server = await startSupervised({
    binary: 'redis-server',
    fallbacks: ['/usr/bin/redis-server'],
    testsName: 'Redis',
    dirScope: 'run', // each (re)start is a fresh, empty server
    dirPrefix: 'wirehook-redis-',
    // No --logfile: the log goes to stdout, where the supervisor reads it.
    args: (port, dir) => [...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], ...['--dir', dir, '--daemonize', 'no']],
    isReady: (port) => answersPing(port),
    readyTimeoutMs: 10_000,
    stopGraceMs: 5_000,
  });
  return { url: `redis://127.0.0.1:${server.port}`, ...server };
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
