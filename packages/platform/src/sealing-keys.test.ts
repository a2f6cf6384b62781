// The key ring against a real SQLite store: a wrong key is refused with a message naming the
// variable, a rotation keeps every secret open, and re-sealing retires the old key.
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock, newId, SecretBox, type EndpointId, type Tenant } from '@wirehook/core';
import { openSqliteStore, type SqliteStore } from '@wirehook/store';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultKeyFile, loadSealingKeys, resealAll, StartupError, verifySealingKeys, type LoadedKeys } from './sealing-keys.ts';

const A = Buffer.alloc(32, 1).toString('base64');
const B = Buffer.alloc(32, 2).toString('base64');
const ring = (text: string): LoadedKeys => ({ box: SecretBox.fromBase64(text), source: 'WIREHOOK_SECRET_KEY' });

const clock = new ManualClock(Date.UTC(2026, 10, 24));
let store: SqliteStore;
afterEach(async () => store?.close());

/** An endpoint whose secret `keys` sealed. */
async function endpointSealedWith(keys: LoadedKeys, secret = 'whsec_c2VjcmV0'): Promise<{ t: Tenant; id: EndpointId }> {
  const org = await store.orgs.create({ id: newId('org', clock), name: 'Acme', plan: 'free', ownerEmail: null, createdAt: clock.now() });
  const t: Tenant = { orgId: org.id, env: 'live' };
  const consumer = await store.consumers.create(t, { id: newId('consumer', clock), externalId: `c-${clock.now()}`, name: null, createdAt: clock.now() });
  const id = newId('endpoint', clock);
  await store.endpoints.create(
    t,
    {
      id,
      consumerId: consumer.id,
      url: 'https://hooks.example/x',
      description: null,
      eventTypes: null,
      fixedIp: false,
      status: 'active',
      disabledReason: null,
      failingSince: null,
      createdAt: clock.now(),
      retry: { count: 5, interval: '30m' },
      compatSignature: null,
    },
    { sealed: keys.box.seal(secret, id), createdAt: clock.now(), expiresAt: null },
    20,
  );
  return { t, id };
}

describe('verifySealingKeys', () => {
  it('records the sealing key on a new store, then refuses another key, naming the variable and both key ids', async () => {
    store = openSqliteStore({ path: ':memory:' });
    const right = ring(A);
    await verifySealingKeys(store.sealing, right, clock);
    expect((await store.sealing.keyChecks()).map((c) => c.keyId)).toEqual([right.box.sealingKeyId]);
    await verifySealingKeys(store.sealing, right, clock); // again: still fine, nothing added

    const wrong = ring(B);
    const refused = verifySealingKeys(store.sealing, wrong, clock);
    await expect(refused).rejects.toBeInstanceOf(StartupError);
    await expect(refused).rejects.toThrow(
      `WIREHOOK_SECRET_KEY does not open this store's signing secrets: they were sealed with key ${right.box.sealingKeyId}, ` +
        `and the ring holds ${wrong.box.sealingKeyId}.`,
    );
    // A key with the right id and the wrong bytes.
    const impostor = ring(`${right.box.sealingKeyId}:${B}`);
    await expect(verifySealingKeys(store.sealing, impostor, clock)).rejects.toThrow(/has a key named k[0-9a-f]{10}, but it is not the key/);
    expect(await store.sealing.keyChecks()).toHaveLength(1); // nothing recorded for a refused key
  });

  it('a store from before check values is checked against a sealed secret', async () => {
    store = openSqliteStore({ path: ':memory:' });
    const { id } = await endpointSealedWith(ring(A));
    await expect(verifySealingKeys(store.sealing, ring(B), clock)).rejects.toThrow(`endpoint ${id}'s does not open`);
    await verifySealingKeys(store.sealing, ring(A), clock);
    expect(await store.sealing.keyChecks()).toHaveLength(1);
  });
});

describe('rotation', () => {
  it('new key first: old secrets still open; reseal moves them all to the new key and retires the old one', async () => {
    store = openSqliteStore({ path: ':memory:' });
    const old = ring(`a:${A}`);
    await verifySealingKeys(store.sealing, old, clock);
    const endpoints = [];
    for (let i = 0; i < 5; i++) endpoints.push(await endpointSealedWith(old, `whsec_${i}`));

    const rotated = ring(`b:${B},a:${A}`);
    await verifySealingKeys(store.sealing, rotated, clock);
    expect((await store.sealing.keyChecks()).map((c) => c.keyId).sort()).toEqual(['a', 'b']);
    // Once the new key may have sealed something, every process needs both: one with only the
    // old key, or only the new one, is refused.
    await expect(verifySealingKeys(store.sealing, old, clock)).rejects.toThrow(/sealed with key b, and the ring holds a/);
    await expect(verifySealingKeys(store.sealing, ring(`b:${B}`), clock)).rejects.toThrow(/sealed with key a/);

    const report = await resealAll(store.sealing, rotated, clock);
    expect(report).toEqual({
      keyId: 'b',
      walked: { endpoint_secrets: 5, endpoint_headers: 0, endpoint_tls_keys: 0, endpoint_auth_secrets: 0, alert_target_secrets: 0 },
      resealed: 5,
      skipped: 0,
      retiredKeys: ['a'],
      keptKeys: [],
    });
    for (const [i, { t, id }] of endpoints.entries()) {
      const [secret] = await store.endpoints.secrets(t, id, clock.now());
      expect(SecretBox.keyIdOf(secret!.sealed)).toBe('b');
      expect(ring(`b:${B}`).box.open(secret!.sealed, id)).toBe(`whsec_${i}`);
    }
    // The old key can leave the ring; a process still holding only it is refused.
    await verifySealingKeys(store.sealing, ring(`b:${B}`), clock);
    await expect(verifySealingKeys(store.sealing, old, clock)).rejects.toThrow(/sealed with key b, and the ring holds a/);
    // Again: nothing left to do.
    expect((await resealAll(store.sealing, ring(`b:${B}`), clock)).resealed).toBe(0);
  });

  it('a secret sealed with the old key during the walk keeps the old key’s check', async () => {
    store = openSqliteStore({ path: ':memory:' });
    const old = ring(`a:${A}`);
    await verifySealingKeys(store.sealing, old, clock);
    await endpointSealedWith(old);
    const rotated = ring(`b:${B},a:${A}`);
    // A gateway still on the old ring seals a new secret after the re-sealing walk (before the check walk).
    const realPage = store.sealing.sealedSecrets.bind(store.sealing);
    let pages = 0;
    vi.spyOn(store.sealing, 'sealedSecrets').mockImplementation(async (column, after, limit) => {
      if (pages++ === 2) await endpointSealedWith(old, 'whsec_late');
      return realPage(column, after, limit);
    });
    const report = await resealAll(store.sealing, rotated, clock);
    expect(report.keptKeys).toEqual(['a']);
    expect(report.retiredKeys).toEqual([]);
    expect((await store.sealing.keyChecks()).map((c) => c.keyId).sort()).toEqual(['a', 'b']);
  });
});

describe('loadSealingKeys', () => {
  const dirs = () => {
    const root = mkdtempSync(join(tmpdir(), 'wirehook-keys-'));
    return { dataDir: join(root, 'data'), env: { XDG_CONFIG_HOME: join(root, 'config') } };
  };

  it('makes the key file outside DATA_DIR, owner-only, and reads the same key after', () => {
    const { dataDir, env } = dirs();
    const first = loadSealingKeys({ DATA_DIR: dataDir }, env);
    const file = defaultKeyFile(env);
    expect(first.source).toBe(`the key file ${file}`);
    expect(file.startsWith(dataDir)).toBe(false);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.warning).toBeUndefined();
    expect(loadSealingKeys({ DATA_DIR: dataDir }, env).box.sealingKeyId).toBe(first.box.sealingKeyId);
  });

  it('create: false (admin secrets reseal) refuses a missing ring, naming it, and makes no key file', () => {
    const { dataDir, env } = dirs();
    const file = defaultKeyFile(env);
    expect(() => loadSealingKeys({ DATA_DIR: dataDir }, env, { create: false })).toThrow(
      new StartupError(`no key ring: ${file} does not exist; set WIREHOOK_SECRET_KEY or WIREHOOK_SECRET_KEY_FILE to the ring this store was sealed with`),
    );
    expect(existsSync(file)).toBe(false);
    // One that exists is read as ever.
    const made = loadSealingKeys({ DATA_DIR: dataDir }, env);
    expect(loadSealingKeys({ DATA_DIR: dataDir }, env, { create: false }).box.sealingKeyId).toBe(made.box.sealingKeyId);
  });

  it('a key file left in DATA_DIR by an earlier version is used, with a warning saying how to move it', () => {
    const { dataDir, env } = dirs();
    loadSealingKeys({ DATA_DIR: dataDir, WIREHOOK_SECRET_KEY_FILE: join(dataDir, 'secret.key') }, env);
    const keys = loadSealingKeys({ DATA_DIR: dataDir }, env);
    expect(keys.source).toBe(`the key file ${join(dataDir, 'secret.key')}`);
    expect(keys.warning).toMatch(/sits in DATA_DIR beside the database it opens[\s\S]*WIREHOOK_SECRET_KEY_FILE/);
  });

  it('a key file that cannot be made is named, with what to set instead', () => {
    const { dataDir } = dirs();
    const blocker = join(mkdtempSync(join(tmpdir(), 'wirehook-keyfile-')), 'not-a-dir');
    writeFileSync(blocker, 'a file where a directory should be');
    expect(() => loadSealingKeys({ DATA_DIR: dataDir, WIREHOOK_SECRET_KEY_FILE: join(blocker, 'secret.key') })).toThrow(
      /^cannot make the key file .*not-a-dir\/secret\.key \((ENOTDIR|EEXIST)\): set WIREHOOK_SECRET_KEY, or WIREHOOK_SECRET_KEY_FILE to a writable place$/,
    );
  });

  it('a key file that does not parse is named', () => {
    const { dataDir, env } = dirs();
    const file = join(mkdtempSync(join(tmpdir(), 'wirehook-keyfile-')), 'ring');
    writeFileSync(file, `a:${A}\nb:short\n`);
    expect(() => loadSealingKeys({ DATA_DIR: dataDir, WIREHOOK_SECRET_KEY_FILE: file }, env)).toThrow(`the key file ${file}: key 2 must be 32 bytes`);
    expect(readFileSync(file, 'utf8')).toContain('b:short'); // left as it was
  });
});
