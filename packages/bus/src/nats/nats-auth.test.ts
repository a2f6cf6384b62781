// NatsBus against a real nats-server with each kind of authentication: it connects, publishes
// and consumes; a wrong credential fails at once with one line naming NATS and the URL
// (never the secret). And NATS_PREFIX: two installs on one server do not take each other's jobs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nkeys } from '@nats-io/transport-node';
import { eventually, startNatsServer, testCa, type NatsServer } from '@wirehook/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { NoResponderError } from '../bus.ts';
import { DISPATCH_SUBJECT, listenSubject } from '../subjects.ts';
import { type NatsAuth, natsAuthOptions, NatsConnectRefusedError, type NatsTls } from './nats-auth.ts';
import { NatsBus } from './nats-bus.ts';

const dir = mkdtempSync(join(tmpdir(), 'wirehook-nats-auth-'));
const servers: NatsServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

async function server(options: Parameters<typeof startNatsServer>[0]): Promise<NatsServer> {
  const started = await startNatsServer(options);
  servers.push(started);
  return started;
}

let prefixes = 0;
/** Connects with `auth`/`tls` under a fresh prefix, publishes one job and takes it back. */
async function roundTrip(url: string, auth: NatsAuth, tls?: NatsTls): Promise<void> {
  const bus = await NatsBus.connect({ servers: url, name: 'auth-test', auth, ...(tls ? { tls } : {}), prefix: `auth${++prefixes}`, reconnectWaitMs: 100 });
  try {
    const got = new Promise<string>((resolve) => {
      bus.consume(DISPATCH_SUBJECT, async (m) => (resolve(new TextDecoder().decode(m.data)), 'ack'), { concurrency: 1 });
    });
    await bus.publish(DISPATCH_SUBJECT, new TextEncoder().encode('dlv_auth'));
    expect(await got).toBe('dlv_auth');
  } finally {
    await bus.close();
  }
}

async function refused(url: string, auth: NatsAuth, tls?: NatsTls): Promise<NatsConnectRefusedError> {
  const err = await NatsBus.connect({ servers: url, name: 'auth-test', auth, ...(tls ? { tls } : {}), reconnectWaitMs: 100 }).then(
    () => {
      throw new Error('connected');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(NatsConnectRefusedError);
  return err as NatsConnectRefusedError;
}

describe('NatsBus authenticates to a real nats-server', () => {
  it('user and password (NATS_USER/NATS_PASSWORD, or user:password@ in the URL); a wrong password: one line, no secret', async () => {
    const s = await server({ user: { user: 'wh', password: 's3cret-pw' } });
    await roundTrip(s.url, { kind: 'user', user: 'wh', password: 's3cret-pw', fromUrl: false });
    // From the URL: the user info is taken out of it (nats.js v3 would drop it) and sent as user/pass.
    const withPassword = s.url.replace('nats://', 'nats://wh:wrong-pw@');
    const err = await refused(withPassword, { kind: 'user', user: 'wh', password: 'wrong-pw', fromUrl: true });
    expect(err.message).toBe(`NATS at ${s.url}: authorization violation — check the user:password in NATS_URL`);
    const env = await refused(s.url, { kind: 'user', user: 'wh', password: 'wrong-pw', fromUrl: false });
    expect(env.message).toBe(`NATS at ${s.url}: authorization violation — check NATS_USER/NATS_PASSWORD`);
    expect(env.message).not.toContain('wrong-pw');
    // No credentials at all against a server that wants some.
    expect((await refused(s.url, { kind: 'none' })).message).toMatch(/authorization violation — the server requires credentials: set NATS_USER/);
  });

  it('a token (NATS_TOKEN); a wrong one: one line', async () => {
    const s = await server({ token: 'tok-0123456789' });
    await roundTrip(s.url, { kind: 'token', token: 'tok-0123456789', fromUrl: false });
    const err = await refused(s.url, { kind: 'token', token: 'tok-wrong', fromUrl: false });
    expect(err.message).toBe(`NATS at ${s.url}: authorization violation — check NATS_TOKEN`);
  });

  it('an nkey seed file (NATS_NKEY_SEED_FILE); an unknown nkey: one line naming the file', async () => {
    const user = nkeys.createUser();
    const stranger = nkeys.createUser();
    const s = await server({ nkeyUsers: [user.getPublicKey()] });
    const seedFile = join(dir, 'user.nk');
    writeFileSync(seedFile, `${new TextDecoder().decode(user.getSeed())}\n`);
    await roundTrip(s.url, { kind: 'nkey', seedFile });
    const strangerFile = join(dir, 'stranger.nk');
    writeFileSync(strangerFile, new TextDecoder().decode(stranger.getSeed()));
    const err = await refused(s.url, { kind: 'nkey', seedFile: strangerFile });
    expect(err.message).toBe(
      `NATS at ${s.url}: authorization violation — check NATS_NKEY_SEED_FILE (${strangerFile}): is its public key a user of the server?`,
    );
  });

  it('TLS with the CA to trust (NATS_TLS_CA_FILE); without it the certificate is refused in one line', async () => {
    const s = await server({ tls: {} });
    expect(s.url).toMatch(/^tls:\/\//);
    const { caFile } = await testCa();
    await roundTrip(s.url, { kind: 'none' }, { caFile });
    const err = await refused(s.url, { kind: 'none' });
    expect(err.message).toMatch(/^NATS at tls:\/\/127\.0\.0\.1:\d+: the server's TLS certificate is not trusted \(\w+\) — check NATS_TLS_CA_FILE/);
  });

  it('a client certificate (NATS_TLS_CERT_FILE/NATS_TLS_KEY_FILE) for a server that verifies clients', async () => {
    const s = await server({ tls: { verifyClients: true } });
    const { caFile } = await testCa();
    const certFile = join(dir, 'client-cert.pem');
    const keyFile = join(dir, 'client-key.pem');
    writeFileSync(certFile, s.clientCertificate!.certPem);
    writeFileSync(keyFile, s.clientCertificate!.keyPem);
    await roundTrip(s.url, { kind: 'none' }, { caFile, certFile, keyFile });
    // Without one: refused before nats.js would wait out its 20 s connect timeout (client-cert-probe.ts).
    const err = await refused(s.url, { kind: 'none' }, { caFile });
    expect(err.message).toBe(
      `NATS at ${s.url}: the server verifies client certificates (tls verify) and none is configured — set NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE`,
    );
  });
});

// Creds (operator mode) need an operator, account and user JWT the server trusts: no JWT
// library is at hand to make them, so this checks what the authenticator answers a nonce.
it('a creds file (NATS_CREDS_FILE): the authenticator reads it at connect and signs the nonce with its seed', () => {
  const user = nkeys.createUser();
  const seed = new TextDecoder().decode(user.getSeed());
  const credsFile = join(dir, 'user.creds');
  writeFileSync(
    credsFile,
    '-----BEGIN NATS USER JWT-----\neyJhbGciOiJlZDI1NTE5LW5rZXkifQ.e30.c2ln\n------END NATS USER JWT------\n\n' +
      `-----BEGIN USER NKEY SEED-----\n${seed}\n------END USER NKEY SEED------\n`,
  );
  const { authenticator } = natsAuthOptions({ kind: 'creds', credsFile }, undefined);
  const answer = authenticator!('nonce-123') as { jwt: string; sig: string };
  expect(answer.jwt).toBe('eyJhbGciOiJlZDI1NTE5LW5rZXkifQ.e30.c2ln');
  const sig = Uint8Array.from(Buffer.from(answer.sig, 'base64url'));
  expect(nkeys.fromPublic(user.getPublicKey()).verify(new TextEncoder().encode('nonce-123'), sig)).toBe(true);
});

describe('NATS_PREFIX: two installs share one nats-server', () => {
  it('names carry the prefix, and a job published under one is not consumed under the other', async () => {
    const s = await server({});
    const a = await NatsBus.connect({ servers: s.url, name: 'install-a', prefix: 'alpha', reconnectWaitMs: 100 });
    const b = await NatsBus.connect({ servers: s.url, name: 'install-b', prefix: 'beta', reconnectWaitMs: 100 });
    try {
      const takenByA: string[] = [];
      const takenByB: string[] = [];
      a.consume(DISPATCH_SUBJECT, async (m) => (takenByA.push(`${m.subject} ${new TextDecoder().decode(m.data)}`), 'ack'), { concurrency: 4 });
      b.consume(DISPATCH_SUBJECT, async (m) => (takenByB.push(`${m.subject} ${new TextDecoder().decode(m.data)}`), 'ack'), { concurrency: 4 });
      for (let i = 0; i < 5; i++) await a.publish(DISPATCH_SUBJECT, new TextEncoder().encode(`dlv_a${i}`));
      await b.publish(DISPATCH_SUBJECT, new TextEncoder().encode('dlv_b0'));
      const deadline = Date.now() + 10_000;
      while ((takenByA.length < 5 || takenByB.length < 1) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      // A moment more: a job leaking across would show up now.
      await new Promise((r) => setTimeout(r, 300));
      expect(takenByA.sort()).toEqual([0, 1, 2, 3, 4].map((i) => `alpha.dispatch dlv_a${i}`));
      expect(takenByB).toEqual(['beta.dispatch dlv_b0']);
      expect(await a.consumerBacklog(DISPATCH_SUBJECT)).toMatchObject({ pending: 0 });
      // Request/reply too: a listener served under alpha is nobody's under beta.
      const subject = listenSubject('ep_shared');
      const served = a.serve(subject, async () => new TextEncoder().encode('alpha'));
      await eventually(async () => expect(new TextDecoder().decode(await a.request(subject, new Uint8Array(), 2_000))).toBe('alpha'));
      await expect(b.request(subject, new Uint8Array(), 2_000)).rejects.toBeInstanceOf(NoResponderError);
      await served.stop();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    // Each install's own stream and consumer, bounded.
    const { connect } = await import('@nats-io/transport-node');
    const { jetstreamManager } = await import('@nats-io/jetstream');
    const nc = await connect({ servers: s.url });
    try {
      const jsm = await jetstreamManager(nc);
      const names: string[] = [];
      for await (const info of jsm.streams.list()) names.push(info.config.name);
      expect(names.sort()).toEqual(['ALPHA_DISPATCH', 'BETA_DISPATCH']);
      const alpha = await jsm.streams.info('ALPHA_DISPATCH');
      expect(alpha.config).toMatchObject({ subjects: ['alpha.dispatch'], max_bytes: 64 * 1024 * 1024, max_age: 86_400 * 1e9, discard: 'old' });
      expect((await jsm.consumers.info('BETA_DISPATCH', 'beta-dispatchers')).config.filter_subject).toBe('beta.dispatch');
    } finally {
      await nc.close();
    }
  });
});
