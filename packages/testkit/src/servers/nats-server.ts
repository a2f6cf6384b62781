import { writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { testCa, testClientCertificate, type ClientCertificate } from '../receiver/test-ca.ts';
import { startSupervised, type SupervisedServer } from './supervised-process.ts';

/**
 * A loopback nats-server with JetStream, owned by one test file. `stop()` ends it (SIGTERM,
 * then waits for it) and deletes its store; safe to call twice. `kill()` crashes it (SIGKILL);
 * the store stays. `restart()` stops it if it runs and starts it again on the same port with
 * the same store, so streams survive.
 */
export interface NatsServer extends SupervisedServer {
  /** `nats://127.0.0.1:<port>` (`tls://…` with `tls`); never with credentials in it. */
  readonly url: string;
  /** With `tls.verifyClients`: a client certificate the server accepts (issued by the test CA). */
  readonly clientCertificate?: ClientCertificate;
}

export interface NatsServerOptions {
  /** `true`: JetStream without file storage (`max_file_store: 0`), as some operators run it; only memory streams can be made. */
  memoryOnly?: boolean;
  /** User/password authentication (`--user`/`--pass`). */
  user?: { user: string; password: string };
  /** Token authentication (`--auth`). */
  token?: string;
  /** Nkey users, by public key (`U…`), in a config file's `authorization.users`. */
  nkeyUsers?: readonly string[];
  /**
   * TLS with the test CA's `localhost`/127.0.0.1 certificate (testCa(): trust its `caFile`);
   * `verifyClients`: `--tlsverify`, a client must present a certificate of that CA.
   */
  tls?: { verifyClients?: boolean };
  /**
   * Operator (decentralized JWT) mode: the operator's JWT, the system account's public key and
   * every account's JWT by public key, preloaded into a MEMORY resolver. Users then connect
   * with a creds file (a user JWT an account signed, and the user's seed).
   */
  operator?: { jwt: string; systemAccount: string; accounts: Readonly<Record<string, string>> };
}

/**
 * Starts `nats-server -js` on a free loopback port with a fresh temporary store and resolves
 * once it accepts connections. Nothing outlives the test process, even when it is SIGKILLed.
 * @throws Error when nats-server is not installed (`./dev test` installs it) or does not become ready.
 */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServer> {
  const ca = options.tls ? await testCa() : undefined;
  const clientCertificate = options.tls?.verifyClients ? await testClientCertificate() : undefined;
  const server = await startSupervised({
    binary: 'nats-server',
    fallbacks: ['/usr/sbin/nats-server', '/usr/bin/nats-server'],
    testsName: 'NATS',
    dirScope: 'server',
    dirPrefix: 'wirehook-nats-',
    args: (port, storeDir) => [
      ...configFile(storeDir, options),
      ...authArgs(options),
      ...(ca ? tlsArgs(storeDir, ca, options.tls?.verifyClients === true) : []),
      '-js',
      '-sd',
      storeDir,
      '-a',
      '127.0.0.1',
      '-p',
      String(port),
    ],
    // "Server is ready" in the log, then an INFO greeting on the port.
    isReady: async (port, log) => log.includes('Server is ready') && (await expectInfo(port)),
    readyTimeoutMs: 15_000,
    stopGraceMs: 10_000,
  });
  return { url: `${ca ? 'tls' : 'nats'}://127.0.0.1:${server.port}`, ...server, ...(clientCertificate ? { clientCertificate } : {}) };
}

/**
 * `-c <file>` of a config for what the command line has no flag for: JetStream limited to
 * memory (flags still set the rest), nkey users, operator mode. Written into the server's dir,
 * deleted with it.
 */
function configFile(dir: string, options: NatsServerOptions): string[] {
  let text = '';
  if (options.memoryOnly) text += 'jetstream {\n  max_memory_store: 256MB\n  max_file_store: 0\n}\n';
  if (options.nkeyUsers?.length) text += `authorization {\n  users = [\n${options.nkeyUsers.map((nkey) => `    { nkey: ${nkey} }\n`).join('')}  ]\n}\n`;
  if (options.operator) text += operatorConfig(options.operator);
  if (text === '') return [];
  const file = join(dir, 'server.conf');
  writeFileSync(file, text);
  return ['-c', file];
}

function operatorConfig(operator: NonNullable<NatsServerOptions['operator']>): string {
  const preload = Object.entries(operator.accounts).map(([key, jwt]) => `  ${key}: ${jwt}\n`);
  return `operator: ${operator.jwt}\nsystem_account: ${operator.systemAccount}\nresolver: MEMORY\nresolver_preload: {\n${preload.join('')}}\n`;
}

function authArgs(options: NatsServerOptions): string[] {
  if (options.user) return ['--user', options.user.user, '--pass', options.user.password];
  if (options.token) return ['--auth', options.token];
  return [];
}

/** `--tls` with the test CA's server certificate (files in the server's dir); `--tlsverify` checks clients against the CA. */
function tlsArgs(dir: string, ca: { caFile: string; certPem: string; keyPem: string }, verifyClients: boolean): string[] {
  const cert = join(dir, 'server-cert.pem');
  const key = join(dir, 'server-key.pem');
  writeFileSync(cert, ca.certPem);
  writeFileSync(key, ca.keyPem, { mode: 0o600 });
  return ['--tls', '--tlscert', cert, '--tlskey', key, ...(verifyClients ? ['--tlsverify', '--tlscacert', ca.caFile] : [])];
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
