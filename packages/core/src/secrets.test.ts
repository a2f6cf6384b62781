import { describe, expect, it } from 'vitest';
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
    const sealed = box.seal('whsec_abc');
    expect(sealed).not.toContain('whsec_abc');
    expect(box.open(sealed)).toBe('whsec_abc');
    expect(() => new SecretBox(Buffer.alloc(32, 2)).open(sealed)).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('whsec_xyz').toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
    expect(() => new SecretBox(Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});
