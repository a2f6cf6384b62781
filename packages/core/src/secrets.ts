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

/** A new Standard Webhooks signing secret: `whsec_` + base64 of 24 random bytes. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * Encrypts signing secrets at rest with AES-256-GCM. They must be recoverable to sign
 * (unlike API keys), so the store holds only `v2.<iv>.<tag>.<ciphertext>`, bound to what it
 * belongs to (the endpoint id, as GCM's additional data): a sealed secret copied onto another
 * endpoint's record does not open there. `v1` texts (sealed before binding) still open.
 */
export class SecretBox {
  readonly #key: Buffer;

  /** @throws Error unless `key` is 32 bytes. */
  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('secret encryption key must be 32 bytes');
    this.#key = key;
  }

  /** A box from a base64 key (WIREHOOK_SECRET_KEY). */
  static fromBase64(key: string): SecretBox {
    return new SecretBox(Buffer.from(key, 'base64'));
  }

  /** A new random 32-byte key, base64. */
  static generateKey(): string {
    return randomBytes(32).toString('base64');
  }

  /** Seals `plain` for `boundTo` (e.g. the endpoint id): only `open(…, boundTo)` opens it. */
  seal(plain: string, boundTo: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(boundTo, 'utf8'));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v2', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
  }

  /** @throws Error when the sealed text was changed, sealed with another key, or bound to something else. */
  open(sealed: string, boundTo: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if ((version !== 'v1' && version !== 'v2') || iv === undefined || tag === undefined || data === undefined) {
      throw new Error('not a sealed secret');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
    if (version === 'v2') decipher.setAAD(Buffer.from(boundTo, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}
