import { SecretBox, sealEndpointHeaders, UnsealError } from '@wirehook/core';
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

  it('opens an endpoint’s custom headers and TLS key once; a new sealed text is opened again; another endpoint’s is refused', () => {
    const box = new SecretBox(Buffer.alloc(32, 3));
    let opened = 0;
    const counting = Object.assign(Object.create(box) as SecretBox, {
      open: (sealed: string, boundTo: string) => {
        opened++;
        return box.open(sealed, boundTo);
      },
    });
    const keys = new SigningKeys(counting);
    const first = sealEndpointHeaders(box, 'ep_1', { 'x-api-key': 'one' });
    expect(keys.headersOf('ep_1', first)).toEqual({ 'x-api-key': 'one' });
    expect(keys.headersOf('ep_1', { ...first })).toEqual({ 'x-api-key': 'one' });
    expect(opened).toBe(1);
    const second = sealEndpointHeaders(box, 'ep_1', { 'x-api-key': 'two' });
    expect(keys.headersOf('ep_1', second)).toEqual({ 'x-api-key': 'two' });
    expect(opened).toBe(2);
    expect(() => keys.headersOf('ep_2', second)).toThrow(UnsealError);
    const tls = { certificate: 'CERT', sealedKey: box.seal('-----BEGIN PRIVATE KEY-----', 'ep_1'), serverCa: null, info: {} as never };
    expect(keys.clientTlsOf('ep_1', tls)).toMatchObject({ cert: 'CERT', key: '-----BEGIN PRIVATE KEY-----', ca: null });
    expect(keys.clientTlsOf('ep_1', tls).key).toBe('-----BEGIN PRIVATE KEY-----');
    expect(opened).toBe(4); // the refused ep_2 headers were one try, the key one more
    expect(() => keys.clientTlsOf('ep_2', tls)).toThrow(UnsealError);
  });
});
