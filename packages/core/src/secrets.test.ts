import { describe, expect, it } from 'vitest';
import { createCipheriv } from 'node:crypto';
import { apiKeyEnvironment, hashApiKey, newApiKey, newSigningSecret, parseKeyRing, SecretBox } from './secrets.ts';

describe('secrets', () => {
  it('API keys name their environment and hash stably', () => {
    const key = newApiKey('test');
    expect(key).toMatch(/^sk_test_[A-Za-z0-9_-]{32}$/);
    expect(apiKeyEnvironment(key)).toBe('test');
    expect(apiKeyEnvironment(newApiKey('live'))).toBe('live');
    expect(apiKeyEnvironment('pk_live_x')).toBeUndefined();
    expect(hashApiKey(key)).toBe(hashApiKey(key));
    expect(hashApiKey(key)).not.toContain(key);
  });

  it('signing secrets are whsec_ + base64 of 24 bytes', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(24);
  });

  it('SecretBox seals so that only the same key opens, and tampering is detected', () => {
    const box = new SecretBox(Buffer.alloc(32, 1));
    const sealed = box.seal('whsec_abc', 'ep_1');
    expect(sealed).toMatch(/^v3\.k[0-9a-f]{10}\./);
    expect(sealed).not.toContain('whsec_abc');
    expect(box.open(sealed, 'ep_1')).toBe('whsec_abc');
    expect(() => new SecretBox(Buffer.alloc(32, 2)).open(sealed, 'ep_1')).toThrow();
    const parts = sealed.split('.');
    parts[4] = Buffer.from('whsec_xyz').toString('base64url');
    expect(() => box.open(parts.join('.'), 'ep_1')).toThrow();
    expect(() => new SecretBox(Buffer.alloc(16))).toThrow(/32 bytes/);
  });

  it('a sealed secret is bound to its endpoint: copied onto another endpoint, it does not open', () => {
    const box = new SecretBox(Buffer.alloc(32, 1));
    const sealed = box.seal('whsec_abc', 'ep_victim');
    expect(() => box.open(sealed, 'ep_attacker')).toThrow();
    expect(box.open(sealed, 'ep_victim')).toBe('whsec_abc');
  });

  it('a v1 text (sealed before binding) still opens', () => {
    const key = Buffer.alloc(32, 1);
    const iv = Buffer.alloc(12, 7);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const data = Buffer.concat([cipher.update('whsec_old', 'utf8'), cipher.final()]);
    const v1 = ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
    expect(new SecretBox(key).open(v1, 'ep_any')).toBe('whsec_old');
  });

  it('a v2 text (no key id) opens with whichever key of the ring sealed it', () => {
    const old = Buffer.alloc(32, 1);
    const key = Buffer.alloc(32, 1);
    const iv = Buffer.alloc(12, 7);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from('ep_1'));
    const data = Buffer.concat([cipher.update('whsec_v2', 'utf8'), cipher.final()]);
    const v2 = ['v2', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
    const ring = new SecretBox([
      { id: 'new', key: Buffer.alloc(32, 9) },
      { id: 'old', key: old },
    ]);
    expect(ring.open(v2, 'ep_1')).toBe('whsec_v2');
    expect(() => ring.open(v2, 'ep_2')).toThrow(/no key of the ring/);
  });

  it('a key ring seals with its newest key and opens with any; a text sealed with a key it lacks names that key', () => {
    const a = { id: 'a', key: Buffer.alloc(32, 1) };
    const b = { id: 'b', key: Buffer.alloc(32, 2) };
    const oldBox = new SecretBox([a]);
    const rotated = new SecretBox([b, a]);
    const sealedOld = oldBox.seal('whsec_1', 'ep_1');
    const sealedNew = rotated.seal('whsec_2', 'ep_1');
    expect(SecretBox.keyIdOf(sealedOld)).toBe('a');
    expect(SecretBox.keyIdOf(sealedNew)).toBe('b');
    expect(rotated.open(sealedOld, 'ep_1')).toBe('whsec_1');
    expect(rotated.open(sealedNew, 'ep_1')).toBe('whsec_2');
    expect(() => oldBox.open(sealedNew, 'ep_1')).toThrow(/sealed with key b, which the key ring does not hold/);
    // The same id with other bytes is a wrong key, not a missing one.
    expect(() => new SecretBox([{ id: 'b', key: Buffer.alloc(32, 3) }]).open(sealedNew, 'ep_1')).toThrow(/does not open/);
  });

  it('parseKeyRing reads ID:BASE64 and bare keys, newest first, and says which entry is wrong', () => {
    const k1 = Buffer.alloc(32, 1).toString('base64');
    const k2 = Buffer.alloc(32, 2).toString('base64');
    const ring = parseKeyRing(`2026-11:${k2}, ${k1}\n`);
    expect(ring.map((k) => k.id)).toEqual(['2026-11', expect.stringMatching(/^k[0-9a-f]{10}$/)]);
    expect(parseKeyRing(k1)[0]!.id).toBe(ring[1]!.id); // a fingerprint: the same key, the same id
    expect(() => parseKeyRing('')).toThrow(/holds no key/);
    expect(() => parseKeyRing('short')).toThrow(/^the key must be 32 bytes/);
    expect(() => parseKeyRing(`${k1},nope:abc`)).toThrow(/^key 2 must be 32 bytes/);
    expect(() => parseKeyRing(`bad id:${k1}`)).toThrow(/its id must be/);
    expect(() => parseKeyRing(`x:${k1},x:${k2}`)).toThrow(/names key id x twice/);
  });
});
