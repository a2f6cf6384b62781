// Cluster mode against an authenticated nats-server: `wirehook migrate` makes the streams with
// each way of giving credentials (user:password@ in NATS_URL, NATS_USER/NATS_PASSWORD,
// NATS_TOKEN, NATS_NKEY_SEED_FILE, NATS_CREDS_FILE against a server in operator mode, TLS with
// NATS_TLS_CA_FILE, and a client certificate for a server that verifies clients) under
// NATS_PREFIX; a service given a wrong credential fails start-up at once with one line naming
// NATS and the URL, never the secret; bad combinations are refused at load, naming the variable.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credsAuthenticator } from '@nats-io/transport-node';
import { nkeys } from '@wirehook/bus';
import { freePort, startNatsServer, testCa, type NatsServer, spawnTestProcess } from '@wirehook/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { natsTopology } from '../support/nats-topology.ts';
import { testOperator } from '../support/nats-operator.ts';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'wirehook-nats-auth-'));
const servers: NatsServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

async function server(options: Parameters<typeof startNatsServer>[0]): Promise<NatsServer> {
  const s = await startNatsServer(options);
  servers.push(s);
  return s;
}

/** Runs a process of the image (`migrate`, or a service's main) and resolves with its exit code and stderr. */
function run(args: string[], env: Record<string, string>, timeoutMs = 30_000): Promise<{ code: number | null; stderr: string }> {
  const child = spawnTestProcess(process.execPath, args, {
    env: { ...process.env, DATA_DIR: mkdtempSync(join(dir, 'data-')), MONGODB_URL: '', LOG_LEVEL: 'warn', MIGRATE_WAIT_SECONDS: '10', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}

const migrate = (env: Record<string, string>) => run([join(root, 'scripts/service.ts'), 'migrate'], env);

describe('wirehook migrate against an authenticated nats-server', () => {
  it('user:password@ in NATS_URL and NATS_USER/NATS_PASSWORD: streams made under NATS_PREFIX; a wrong password: exit 1, one line, no secret', async () => {
    const s = await server({ user: { user: 'wh', password: 'p@ss:w0rd/x' } });
    const inUrl = s.url.replace('nats://', `nats://wh:${encodeURIComponent('p@ss:w0rd/x')}@`);
    const viaUrl = await migrate({ NATS_URL: inUrl, NATS_PREFIX: 'one' });
    expect(viaUrl.stderr).toContain(`migrate: JetStream streams at ${s.url} are current`);
    expect(viaUrl.code).toBe(0);
    const viaEnv = await migrate({ NATS_URL: s.url, NATS_USER: 'wh', NATS_PASSWORD: 'p@ss:w0rd/x', NATS_PREFIX: 'two' });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);

    const wrong = await migrate({ NATS_URL: s.url.replace('nats://', 'nats://wh:not-it@') });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`migrate: NATS at ${s.url}: authorization violation — check the user:password in NATS_URL\n`);
    expect(wrong.stderr).not.toContain('not-it');
    expect(wrong.stderr).not.toContain('waiting for'); // refused, not retried
  });

  it('NATS_TOKEN, NATS_NKEY_SEED_FILE and TLS with NATS_TLS_CA_FILE', async () => {
    const tokenServer = await server({ token: 'tok-9876543210' });
    const token = await migrate({ NATS_URL: tokenServer.url, NATS_TOKEN: 'tok-9876543210' });
    expect(token.code, token.stderr).toBe(0);

    const user = nkeys.createUser();
    const nkeyServer = await server({ nkeyUsers: [user.getPublicKey()] });
    const seedFile = join(dir, 'migrate.nk');
    writeFileSync(seedFile, `${new TextDecoder().decode(user.getSeed())}\n`);
    const nkey = await migrate({ NATS_URL: nkeyServer.url, NATS_NKEY_SEED_FILE: seedFile });
    expect(nkey.code, nkey.stderr).toBe(0);

    const tlsServer = await server({ tls: {} });
    const { caFile } = await testCa();
    const tls = await migrate({ NATS_URL: tlsServer.url, NATS_TLS_CA_FILE: caFile });
    expect(tls.code, tls.stderr).toBe(0);
  });

  it("NATS_CREDS_FILE, nats-server in operator mode: the stream is made in the user's account; a user of an unknown account: exit 1, one line", async () => {
    const operator = await testOperator();
    const s = await server({ operator: operator.server });
    const credsFile = join(dir, 'wirehook.creds');
    writeFileSync(credsFile, operator.creds, { mode: 0o600 });
    const ok = await migrate({ NATS_URL: s.url, NATS_CREDS_FILE: credsFile, NATS_PREFIX: 'op' });
    expect(ok.stderr).toContain(`migrate: JetStream streams at ${s.url} are current`);
    expect(ok.code).toBe(0);
    const creds = { authenticator: credsAuthenticator(new TextEncoder().encode(operator.creds)) };
    expect(await natsTopology(s.url, creds)).toEqual([
      { name: 'OP_DISPATCH', subjects: ['op.dispatch'], consumers: ['op-dispatchers op.dispatch'], published: 0 },
    ]);

    const strangerFile = join(dir, 'stranger.creds');
    writeFileSync(strangerFile, operator.strangerCreds, { mode: 0o600 });
    const wrong = await migrate({ NATS_URL: s.url, NATS_CREDS_FILE: strangerFile });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(
      `migrate: NATS at ${s.url}: authorization violation — check NATS_CREDS_FILE (${strangerFile}): ` +
        'is the user JWT valid and its account known to the server?\n',
    );
    expect(wrong.stderr).not.toContain('waiting for');
  });

  it('a client certificate (NATS_TLS_CERT_FILE + NATS_TLS_KEY_FILE) for a server with tls verify; without one: exit 1 at once, one line', async () => {
    const s = await server({ tls: { verifyClients: true } });
    const { caFile } = await testCa();
    const certFile = join(dir, 'client-cert.pem');
    const keyFile = join(dir, 'client-key.pem');
    writeFileSync(certFile, s.clientCertificate!.certPem);
    writeFileSync(keyFile, s.clientCertificate!.keyPem, { mode: 0o600 });
    const ok = await migrate({ NATS_URL: s.url, NATS_TLS_CA_FILE: caFile, NATS_TLS_CERT_FILE: certFile, NATS_TLS_KEY_FILE: keyFile });
    expect(ok.code, ok.stderr).toBe(0);

    const without = await migrate({ NATS_URL: s.url, NATS_TLS_CA_FILE: caFile });
    expect(without.code).toBe(1);
    expect(without.stderr).toContain(
      `migrate: NATS at ${s.url}: the server verifies client certificates (tls verify) and none is configured — set NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE\n`,
    );
    expect(without.stderr).not.toContain('waiting for'); // refused, not retried
  });

  it('bad combinations are refused at load, naming the variable and the path, never a secret', async () => {
    const missing = join(dir, 'nope.creds');
    const res = await migrate({ NATS_USER: 'wh', NATS_TOKEN: 'tok-secret-value', NATS_CREDS_FILE: missing, NATS_TLS_CERT_FILE: join(dir, 'nope.pem') });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('migrate: invalid configuration');
    expect(res.stderr).toContain('✖ is set without NATS_PASSWORD: set both, or neither\n  → at NATS_USER');
    expect(res.stderr).toContain(`✖ names ${missing}, which cannot be read (no such file)\n  → at NATS_CREDS_FILE`);
    expect(res.stderr).toContain('✖ NATS_TOKEN and NATS_CREDS_FILE are set together');
    expect(res.stderr).toContain('✖ is set without NATS_TLS_KEY_FILE: a client certificate needs both\n  → at NATS_TLS_CERT_FILE');
    expect(res.stderr).not.toContain('tok-secret-value');
  });
});

it('a service given a wrong credential fails start-up at once: exit 1, one line naming NATS and the URL without the password', async () => {
  const s = await server({ user: { user: 'wh', password: 'right-one' } });
  const res = await run([join(root, 'services/message-intake/src/main.ts')], {
    NATS_URL: s.url,
    NATS_USER: 'wh',
    NATS_PASSWORD: 'wrong-one',
    HOST: '127.0.0.1',
    METRICS_PORT: String(await freePort()),
    GRPC_PORT: String(await freePort()),
    INTERNAL_AUTH_TOKEN: 'x'.repeat(32),
    LOG_LEVEL: 'silent',
  });
  expect(res.code).toBe(1);
  expect(res.stderr).toBe(`message-intake: NATS at ${s.url}: authorization violation — check NATS_USER/NATS_PASSWORD\n`);
});
