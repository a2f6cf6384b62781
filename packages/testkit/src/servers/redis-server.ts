import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
export async function startRedisServer(options: { replicaOf?: number } = {}): Promise<RedisServer> {
  // A replica of the server on that loopback port (a Sentinel failover's other half).
  const replica = options.replicaOf === undefined ? [] : ['--replicaof', '127.0.0.1', String(options.replicaOf)];
  const server = await startSupervised({
    binary: 'redis-server',
    fallbacks: ['/usr/bin/redis-server'],
    testsName: 'Redis',
    dirScope: 'run', // each (re)start is a fresh, empty server
    dirPrefix: 'wirehook-redis-',
    // No --logfile: the log goes to stdout, where the supervisor reads it.
    args: (port, dir) => [
      ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      ...['--dir', dir, '--daemonize', 'no'],
      ...replica,
    ],
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

/**
 * A real Redis Sentinel (redis-server in sentinel mode) on a free loopback port, watching the
 * primary on `primaryPort` as `name`, quorum 1, declaring it down after `downAfterMs`. Its
 * `url` is the REDIS_URL of that group: `redis+sentinel://127.0.0.1:<port>/<name>`.
 */
export async function startRedisSentinel(primaryPort: number, name = 'wirehook', downAfterMs = 1_000): Promise<RedisServer> {
  const server = await startSupervised({
    binary: 'redis-server',
    fallbacks: ['/usr/bin/redis-server'],
    testsName: 'Redis',
    dirScope: 'run',
    dirPrefix: 'wirehook-sentinel-',
    // Sentinel rewrites its config file as it learns the group: it must be a file of its own.
    args: (port, dir) => {
      const conf = join(dir, 'sentinel.conf');
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 1`,
          `sentinel down-after-milliseconds ${name} ${downAfterMs}`,
          `sentinel failover-timeout ${name} ${Math.max(2 * downAfterMs, 2_000)}`,
          '',
        ].join('\n'),
      );
      return [conf, '--sentinel'];
    },
    isReady: (port) => answersPing(port),
    readyTimeoutMs: 10_000,
    stopGraceMs: 5_000,
  });
  return { url: `redis+sentinel://127.0.0.1:${server.port}/${name}`, ...server };
}
