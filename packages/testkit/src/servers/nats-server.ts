import { writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { startSupervised, type SupervisedServer } from './supervised-process.ts';

/**
 * A loopback nats-server with JetStream, owned by one test file. `stop()` ends it (SIGTERM,
 * then waits for it) and deletes its store; safe to call twice. `kill()` crashes it (SIGKILL);
 * the store stays. `restart()` stops it if it runs and starts it again on the same port with
 * the same store, so streams survive.
 */
export interface NatsServer extends SupervisedServer {
  /** `nats://127.0.0.1:<port>` */
  readonly url: string;
}

export interface NatsServerOptions {
  /** `true`: JetStream without file storage (`max_file_store: 0`), as some operators run it; only memory streams can be made. */
  memoryOnly?: boolean;
}

/**
 * Starts `nats-server -js` on a free loopback port with a fresh temporary store and resolves
 * once it accepts connections. Nothing outlives the test process, even when it is SIGKILLed.
 * @throws Error when nats-server is not installed (`./dev test` installs it) or does not become ready.
 */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServer> {
  const server = await startSupervised({
    binary: 'nats-server',
    fallbacks: ['/usr/sbin/nats-server', '/usr/bin/nats-server'],
    testsName: 'NATS',
    dirScope: 'server',
    dirPrefix: 'wirehook-nats-',
    args: (port, storeDir) => [...(options.memoryOnly ? memoryOnlyConfig(storeDir) : []), '-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port)],
    // "Server is ready" in the log, then an INFO greeting on the port.
    isReady: async (port, log) => log.includes('Server is ready') && (await expectInfo(port)),
    readyTimeoutMs: 15_000,
    stopGraceMs: 10_000,
  });
  return { url: `nats://127.0.0.1:${server.port}`, ...server };
}

/**
 * `-c <file>` of a config limiting JetStream to memory: the command line has no flag for the
 * file store's limit (flags still set the rest). Written into the server's dir, deleted with it.
 */
function memoryOnlyConfig(dir: string): string[] {
  const file = join(dir, 'memory-only.conf');
  writeFileSync(file, 'jetstream {\n  max_memory_store: 256MB\n  max_file_store: 0\n}\n');
  return ['-c', file];
}

/** Resolves true when the port greets a new connection with nats-server's INFO line; rejects otherwise. */
function expectInfo(port: number): Promise<true> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(port, '127.0.0.1');
    socket.setTimeout(5_000, () => socket.destroy(new Error('no INFO greeting from nats-server within 5 s')));
    socket.once('data', (chunk) => {
      socket.destroy();
      if (chunk.toString('utf8').startsWith('INFO')) resolve(true);
      else reject(new Error(`unexpected greeting on port ${port}: ${chunk.toString('utf8').slice(0, 80)}`));
    });
    socket.once('error', reject);
  });
}
