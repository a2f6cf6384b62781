import { SecretBox } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { SigningKeys } from './signing-keys.ts';

describe('SigningKeys', () => {
  it('opens a secret for its own endpoint, and refuses it copied onto another, even once cached', () => {
    const box = new SecretBox(Buffer.alloc(32, 3));
    const sealed = box.seal(`whsec_${Buffer.alloc(24, 1).toString('base64')}`, 'ep_victim');
    const keys = new SigningKeys(box);
    expect(keys.keyOf(sealed, 'ep_victim').type).toBe('secret');
    expect(() => keys.keyOf(sealed, 'ep_attacker')).toThrow();
  });
});
