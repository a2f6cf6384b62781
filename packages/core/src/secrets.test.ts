import { describe, expect, it } from 'vitest';
import { createCipheriv } from 'node:crypto';
import { apiKeyEnvironment, hashApiKey, newApiKey, newSigningSecret, SecretBox } from './secrets.ts';

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
    expect(sealed).toMatch(/^v2\./);
    expect(sealed).not.toContain('whsec_abc');
    expect(box.open(sealed, 'ep_1')).toBe('whsec_abc');
    expect(() => new SecretBox(Buffer.alloc(32, 2)).open(sealed, 'ep_1')).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('whsec_xyz').toString('base64url');
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
});
