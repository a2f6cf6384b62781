import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** The two environments a key (and everything it touches) belongs to. */
export const ENVIRONMENTS = ['live', 'test'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** The five scopes of the spec. */
export const SCOPES = ['messages:send', 'messages:retry', 'logs:read', 'consumers:write', 'endpoints:write'] as const;
export type Scope = (typeof SCOPES)[number];

/** A new API key in clear (`sk_live_…` / `sk_test_…`); only its hash is ever stored. */
export function newApiKey(env: Environment): string {
  return `sk_${env}_${randomBytes(24).toString('base64url')}`;
}

/** The environment a key's prefix names, or undefined when it is not a Wirehook key. */
export function apiKeyEnvironment(key: string): Environment | undefined {
  if (key.startsWith('sk_live_')) return 'live';
  if (key.startsWith('sk_test_')) return 'test';
  return undefined;
}

/**
 * The stored form of an API key. Keys carry 192 random bits, so a plain SHA-256 is enough:
 * a slow password hash would only add latency to every request.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A new portal link token: the link's only credential (192 random bits); only its hash is stored. */
export function newPortalToken(): string {
  return `pt_${randomBytes(24).toString('base64url')}`;
}

/** The stored form of a portal token (as for API keys, a plain SHA-256 suffices for 192 random bits). */
export function hashPortalToken(token: string): string {
  return createHash('sha256').update(`portal:${token}`).digest('hex');
}

/** A new Standard Webhooks signing secret: `whsec_` + base64 of 24 random bytes. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** One key of the ring that seals signing secrets: an id (stored beside what it sealed) and 32 bytes. */
export interface SealingKey {
  id: string;
  key: Buffer;
}

/** What a key id may look like: it is written into every sealed text and named in messages. */
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** The id of a key given without one: a fingerprint, so the same key always has the same id. */
export function keyFingerprint(key: Buffer): string {
  return `k${createHash('sha256').update(key).digest('hex').slice(0, 10)}`;
}

/**
 * Reads a key ring as WIREHOOK_SECRET_KEY (or its key file) writes it: keys separated by
 * commas or new lines, each `ID:BASE64` or a bare `BASE64` (its id is then its fingerprint),
 * newest first. The first key seals; every key opens.
 * @throws Error saying which entry is wrong (callers name the variable).
 */
export function parseKeyRing(text: string): SealingKey[] {
  const entries = text
    .split(/[,\n]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw new Error('holds no key (e.g. openssl rand -base64 32)');
  const keys = entries.map((entry, index): SealingKey => {
    const colon = entry.indexOf(':');
    const id = colon === -1 ? undefined : entry.slice(0, colon);
    const key = Buffer.from(colon === -1 ? entry : entry.slice(colon + 1), 'base64');
    const which = entries.length === 1 ? 'the key' : `key ${index + 1}`;
    if (key.length !== 32) throw new Error(`${which} must be 32 bytes in base64 (e.g. openssl rand -base64 32)`);
    if (id !== undefined && !KEY_ID.test(id)) throw new Error(`${which}: its id must be 1–32 letters, digits, - or _ (ID:BASE64)`);
    return { id: id ?? keyFingerprint(key), key };
  });
  const ids = keys.map((k) => k.id);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice !== undefined) throw new Error(`names key id ${twice} twice`);
  return keys;
}

/** A sealed text does not open: sealed with a key the ring lacks, tampered with, or bound to something else. */
export class UnsealError extends Error {
  override readonly name = 'UnsealError';
}

/**
 * Encrypts signing secrets at rest with AES-256-GCM. They must be recoverable to sign
 * (unlike API keys), so the store holds only `v3.<key id>.<iv>.<tag>.<ciphertext>`, bound to
 * what it belongs to (the endpoint id, as GCM's additional data): a sealed secret copied onto
 * another endpoint's record does not open there. The box holds a ring of keys: the newest
 * seals, all open, so a key can be rotated without a moment where some secret does not open
 * (docs/operations.md). `v2` texts (no key id) and `v1` texts (sealed before binding) still
 * open with whichever key of the ring opens them.
 */
export class SecretBox {
  readonly #keys: readonly SealingKey[];

  /** @throws Error unless every key is 32 bytes; the first key seals. */
  constructor(keys: Buffer | readonly SealingKey[]) {
    const ring = Buffer.isBuffer(keys) ? [{ id: keyFingerprint(keys), key: keys }] : keys;
    if (ring.length === 0) throw new Error('a secret box needs at least one key');
    for (const { key } of ring) if (key.length !== 32) throw new Error('secret encryption key must be 32 bytes');
    this.#keys = ring;
  }

  /** A box from a key ring's text (WIREHOOK_SECRET_KEY): see parseKeyRing. */
  static fromBase64(text: string): SecretBox {
    return new SecretBox(parseKeyRing(text));
  }

  /** A new random 32-byte key, base64. */
  static generateKey(): string {
    return randomBytes(32).toString('base64');
  }

  /** The ids of the ring, newest (the sealing key) first. */
  get keyIds(): string[] {
    return this.#keys.map((k) => k.id);
  }

  /** The id of the key that seals. */
  get sealingKeyId(): string {
    return this.#keys[0]!.id;
  }

  /** Seals `plain` for `boundTo` (e.g. the endpoint id) with the newest key: only `open(…, boundTo)` opens it. */
  seal(plain: string, boundTo: string): string {
    return sealWith(this.#keys[0]!, plain, boundTo);
  }

  /** The id of the key `sealed` names (v3), or undefined for older texts that name none. */
  static keyIdOf(sealed: string): string | undefined {
    const [version, keyId] = sealed.split('.');
    return version === 'v3' ? keyId : undefined;
  }

  /** @throws UnsealError when the sealed text was changed, sealed with a key the ring lacks, or bound to something else. */
  open(sealed: string, boundTo: string): string {
    const parts = sealed.split('.');
    const version = parts[0];
    if (version === 'v3') {
      const [, keyId, iv, tag, data] = parts;
      const key = this.#keys.find((k) => k.id === keyId);
      if (key === undefined) throw new UnsealError(`sealed with key ${keyId}, which the key ring does not hold`);
      return openWith(key.key, true, iv, tag, data, boundTo);
    }
    if (version === 'v1' || version === 'v2') {
      const [, iv, tag, data] = parts;
      for (const { key } of this.#keys) {
        try {
          return openWith(key, version === 'v2', iv, tag, data, boundTo);
        } catch {
          // another key of the ring may have sealed it
        }
      }
      throw new UnsealError('no key of the ring opens it');
    }
    throw new UnsealError('not a sealed secret');
  }
}

function sealWith({ id, key }: SealingKey, plain: string, boundTo: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(boundTo, 'utf8'));
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v3', id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
}

function openWith(key: Buffer, bound: boolean, iv: string | undefined, tag: string | undefined, data: string | undefined, boundTo: string): string {
  if (iv === undefined || tag === undefined || data === undefined) throw new UnsealError('not a sealed secret');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    if (bound) decipher.setAAD(Buffer.from(boundTo, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new UnsealError('it does not open: changed, sealed with another key, or bound to another record');
  }
}
