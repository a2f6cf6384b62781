// The NATS variables parsed into NatsBus's options: one way of authenticating, files checked,
// problems naming the variable (and a file's path), never a secret.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkNatsEnv, natsEnv, parseNatsEnv } from './common-env.ts';

const dir = mkdtempSync(join(tmpdir(), 'wirehook-nats-env-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const schema = z.object(natsEnv).superRefine(checkNatsEnv);
const parse = (env: Record<string, string>) => {
  const loaded = schema.safeParse(env);
  if (!loaded.success) return { problems: loaded.error.issues.map((i) => `${i.path.join('.')} ${i.message}`) };
  return { options: parseNatsEnv(loaded.data).options! };
};
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const CREDS =
  '-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.e30.sig\n------END NATS USER JWT------\n\n' +
  '-----BEGIN USER NKEY SEED-----\nSUAFAKE\n------END USER NKEY SEED------\n';

describe('NATS connection options from the environment', () => {
  it('defaults: no auth, no TLS, prefix wirehook, streams bounded (a day, 64 MiB)', () => {
    expect(parse({}).options).toEqual({
      servers: 'nats://127.0.0.1:4222',
      auth: { kind: 'none' },
      prefix: 'wirehook',
      streamSettings: { replicas: 1, storage: 'file', maxAgeMs: 86_400_000, maxBytes: 64 * 1024 * 1024 },
    });
  });

  it('user:password@ in NATS_URL becomes user/pass (decoded), the URL loses it; token@ is a token', () => {
    expect(parse({ NATS_URL: 'nats://wh:p%40ss@nats:4222' }).options).toMatchObject({
      servers: 'nats://nats:4222',
      auth: { kind: 'user', user: 'wh', password: 'p@ss', fromUrl: true },
    });
    expect(parse({ NATS_URL: 'tls://s3cr3t@connect.ngs.global' }).options).toMatchObject({
      servers: 'tls://connect.ngs.global',
      auth: { kind: 'token', token: 's3cr3t', fromUrl: true },
    });
  });

  it('user info that is not valid percent-encoding is refused, naming NATS_URL, never showing the password', () => {
    const { problems } = parse({ NATS_URL: 'nats://wh:s3cr%zz@nats:4222' });
    expect(problems).toEqual(['NATS_URL its user info (before @) is not valid percent-encoding: encode % as %25']);
    expect(JSON.stringify(problems)).not.toContain('s3cr');
  });

  it('each variable gives its kind; files by path; TLS files', () => {
    expect(parse({ NATS_USER: 'a', NATS_PASSWORD: 'b' }).options?.auth).toEqual({ kind: 'user', user: 'a', password: 'b', fromUrl: false });
    expect(parse({ NATS_TOKEN: 't' }).options?.auth).toEqual({ kind: 'token', token: 't', fromUrl: false });
    const seedFile = file('u.nk', 'SUAEXAMPLE\n');
    expect(parse({ NATS_NKEY_SEED_FILE: seedFile }).options?.auth).toEqual({ kind: 'nkey', seedFile });
    const credsFile = file('u.creds', CREDS);
    expect(parse({ NATS_CREDS_FILE: credsFile }).options?.auth).toEqual({ kind: 'creds', credsFile });
    const pem = file('x.pem', 'PEM');
    expect(parse({ NATS_TLS_CA_FILE: pem, NATS_TLS_CERT_FILE: pem, NATS_TLS_KEY_FILE: pem }).options?.tls).toEqual({
      caFile: pem,
      certFile: pem,
      keyFile: pem,
    });
    // Empty is unset (the launchers pass empty values through).
    expect(parse({ NATS_TOKEN: '', NATS_USER: '' }).options?.auth).toEqual({ kind: 'none' });
  });

  it('bad combinations and files: one problem each, naming the variable, never a secret', () => {
    const notSeed = file('bad.nk', 'hello');
    const notCreds = file('bad.creds', 'hello');
    const { problems } = parse({
      NATS_URL: 'nats://u:url-secret@h:4222',
      NATS_PASSWORD: 'pw-secret',
      NATS_NKEY_SEED_FILE: notSeed,
      NATS_CREDS_FILE: notCreds,
      NATS_TLS_KEY_FILE: join(dir, 'missing.pem'),
    });
    expect(problems).toEqual([
      'NATS_PASSWORD is set without NATS_USER: set both, or neither',
      `NATS_NKEY_SEED_FILE (${notSeed}) does not hold a user nkey seed (one line starting with SU, as nk -gen user prints)`,
      `NATS_CREDS_FILE (${notCreds}) is not a NATS credentials file (it needs a BEGIN NATS USER JWT block and a BEGIN USER NKEY SEED block)`,
      'NATS_NKEY_SEED_FILE user:password in NATS_URL and NATS_NKEY_SEED_FILE and NATS_CREDS_FILE are set together: ' +
        'nats-server takes one way of authenticating per connection; keep one',
      `NATS_TLS_KEY_FILE names ${join(dir, 'missing.pem')}, which cannot be read (no such file)`,
      'NATS_TLS_KEY_FILE is set without NATS_TLS_CERT_FILE: a client certificate needs both',
    ]);
    expect(problems!.join('\n')).not.toMatch(/secret/);
  });

  it('NATS_PREFIX: lower case, digits, - and _ (stream names are its upper case)', () => {
    expect(parse({ NATS_PREFIX: 'acme-prod_2' }).options?.prefix).toBe('acme-prod_2');
    for (const bad of ['Acme', 'a.b', 'a b', '-a', 'x'.repeat(33), 'a*']) {
      expect(parse({ NATS_PREFIX: bad }).problems?.[0]).toMatch(/^NATS_PREFIX must be lower-case letters/);
    }
  });

  it('bounds: NATS_STREAM_MAX_BYTES at least 1 MiB', () => {
    expect(parse({ NATS_STREAM_MAX_BYTES: '1000' }).problems).toEqual(['NATS_STREAM_MAX_BYTES must be whole bytes, at least 1048576 (1 MiB)']);
    expect(parse({ NATS_STREAM_MAX_BYTES: '2097152', NATS_STREAM_MAX_AGE_SECONDS: '0' }).options?.streamSettings).toMatchObject({
      maxBytes: 2_097_152,
      maxAgeMs: 0,
    });
  });
});
