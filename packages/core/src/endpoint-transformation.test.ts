// What a transformation's run may send (checkTransformedWebhook): both sides of each limit,
// written out — 1,000,000 bytes of payload JSON, 20 headers, 4,096 bytes of names and values,
// the endpoint URL rules — and the code's own limit, 32,768 bytes.
import { describe, expect, it } from 'vitest';
import {
  checkTransformedWebhook,
  endpointTransformationInput,
  LISTENER_URL_ERROR,
  storedTransformation,
  transformationHash,
  TRANSFORMED_JSON_DEPTH,
  urlBoundsOf,
} from './endpoint-transformation.ts';

const URL_OK = 'https://hooks.example.com/in';
const ok = (payload: unknown = {}, headers: Record<string, string> = {}, url = URL_OK) => checkTransformedWebhook({ payload, headers, url });
/** A payload whose JSON is exactly `bytes` bytes: {"s":"xxx…"}. */
const payloadOf = (bytes: number) => ({ s: 'x'.repeat(bytes - '{"s":""}'.length) });

describe('checkTransformedWebhook', () => {
  it('a payload of 1,000,000 bytes of JSON is sent; 1,000,001 is refused, counted in UTF-8', () => {
    expect(ok(payloadOf(1_000_000))).toMatchObject({ payloadJson: expect.any(String) });
    expect(ok(payloadOf(1_000_001))).toEqual({ error: 'transformation: the returned payload is 1,000,001 bytes of JSON; at most 1,000,000' });
    // 333,334 three-byte characters: fewer UTF-16 units than the limit, more bytes.
    expect(ok({ s: '€'.repeat(333_334) })).toMatchObject({ error: expect.stringMatching(/is 1,000,010 bytes of JSON/) });
  });

  it('a payload nested 256 levels deep is sent (a sender’s 128, wrapped); 257 is refused, and 100,000 without exhausting the stack', () => {
    const nested = (depth: number) => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as unknown;
    expect(TRANSFORMED_JSON_DEPTH).toBe(256);
    expect(ok({ wrapped: nested(128) })).toMatchObject({ payloadJson: expect.any(String) });
    expect(ok(nested(256))).toMatchObject({ payloadJson: expect.any(String) });
    const refused = { error: 'transformation: the returned payload must be JSON nested at most 256 levels deep' };
    expect(ok(nested(257))).toEqual(refused);
    expect(ok(nested(100_000))).toEqual(refused);
  });

  it('20 headers are sent, 21 refused; 4,096 bytes of names and values sent, 4,097 refused', () => {
    const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`x-h${i}`, 'v']));
    expect(ok({}, many(20))).toMatchObject({ headers: many(20) });
    expect(ok({}, many(21))).toMatchObject({
      error: expect.stringMatching(/^transformation: the returned headers are refused: may have at most 20 headers, got 21/),
    });
    const sized = (bytes: number) => ({ 'x-big': 'v'.repeat(bytes - 'x-big'.length) });
    expect(ok({}, sized(4_096))).toMatchObject({ headers: sized(4_096) });
    expect(ok({}, sized(4_097))).toMatchObject({ error: expect.stringMatching(/names and values may total at most 4096 bytes, got 4097/) });
  });

  it('refuses Wirehook’s and the connection’s headers, names given twice, empty and unsafe values; names come out lower-case', () => {
    expect(ok({}, { 'Webhook-Signature': 'v1,x' })).toMatchObject({ error: expect.stringMatching(/Webhook-Signature is set by Wirehook/) });
    expect(ok({}, { 'content-type': 'text/plain' })).toMatchObject({ error: expect.stringMatching(/content-type describes the body/) });
    expect(ok({}, { 'X-A': '1', 'x-a': '2' })).toMatchObject({ error: expect.stringMatching(/given twice/) });
    expect(ok({}, { 'x-a': '' })).toMatchObject({ error: expect.stringMatching(/not empty/) });
    expect(ok({}, { 'x-a': 'a\r\nx-b: 1' })).toMatchObject({ error: expect.stringMatching(/printable ASCII/) });
    expect(ok({}, { 'X-Tenant': 'acme' })).toMatchObject({ headers: { 'x-tenant': 'acme' } });
  });

  it('the URL by the endpoint URL rules, sent as the parser reads it', () => {
    expect(ok({}, {}, 'http://hooks.example.com/in')).toMatchObject({
      error: expect.stringMatching(/^transformation: the returned url .* is refused: .*https/),
    });
    expect(ok({}, {}, 'https://user:pass@hooks.example.com/')).toMatchObject({ error: expect.stringMatching(/is refused/) });
    expect(ok({}, {}, 'https://hooks.example.com:9000/')).toMatchObject({ error: expect.stringMatching(/is refused/) });
    expect(ok({}, {}, `https://hooks.example.com/${'p'.repeat(2_000)}`)).toMatchObject({ error: expect.stringMatching(/is refused/) });
    expect(ok({}, {}, 'https://hooks.example.com:8443/a b')).toMatchObject({ url: 'https://hooks.example.com:8443/a%20b' });
  });

  it('a listener’s URL is kept as it is (http on the developer’s machine), never moved', () => {
    const listener = 'http://localhost:3000/webhook';
    expect(checkTransformedWebhook({ payload: {}, headers: {}, url: listener }, new Set(), listener)).toMatchObject({ url: listener });
    expect(checkTransformedWebhook({ payload: {}, headers: {}, url: URL_OK }, new Set(), listener)).toEqual({ error: LISTENER_URL_ERROR });
  });

  it('an endpoint with auth keeps its origin (its OAuth token goes only there): another host, scheme or port refused, another path taken', () => {
    const origin = new URL(URL_OK).origin;
    const moved = (url: string) => checkTransformedWebhook({ payload: {}, headers: {}, url }, new Set(), undefined, origin);
    expect(moved(`${origin}/elsewhere?x=1`)).toMatchObject({ url: `${origin}/elsewhere?x=1` });
    for (const url of ['https://other.example/in', `${origin}:8443/in`]) {
      expect(moved(url)).toEqual({
        error:
          `transformation: the returned url ${url} is at another origin than the endpoint's (${origin}): ` +
          'an endpoint with auth sends its OAuth token only there',
      });
    }
    // Without auth: any origin the URL rules take.
    expect(checkTransformedWebhook({ payload: {}, headers: {}, url: 'https://other.example/in' }, new Set(), undefined, null)).toMatchObject({
      url: 'https://other.example/in',
    });
  });

  it('urlBoundsOf: a listener keeps its URL; an endpoint with auth its origin; one without, neither', () => {
    expect(urlBoundsOf({ type: 'listen', url: 'http://localhost:3000/hook', auth: null })).toEqual({ listener: true, tokenOrigin: null });
    expect(urlBoundsOf({ type: 'webhook', url: 'https://hooks.acme.example:8443/in?x=1', auth: { type: 'oauth2_client_credentials' } })).toEqual({
      listener: false,
      tokenOrigin: 'https://hooks.acme.example:8443',
    });
    expect(urlBoundsOf({ type: 'webhook', url: 'https://hooks.acme.example/in', auth: null })).toEqual({ listener: false, tokenOrigin: null });
  });

  it('a simulation’s redacted stand-ins (…abcd) are checked as the stored values they stand for, and shown as given', () => {
    expect(checkTransformedWebhook({ payload: {}, headers: { 'x-key': '…cdef' }, url: URL_OK }, new Set(['…cdef']))).toMatchObject({
      headers: { 'x-key': '…cdef' },
    });
    expect(checkTransformedWebhook({ payload: {}, headers: { 'x-key': '…zzzz' }, url: URL_OK }, new Set(['…cdef']))).toMatchObject({
      error: expect.any(String),
    });
  });
});

describe('transformation input', () => {
  it('code of 32,768 bytes is taken, 32,769 refused; empty refused; enabled defaults to true; unknown fields refused', () => {
    expect(endpointTransformationInput.safeParse({ code: 'x'.repeat(32_768) }).data).toEqual({ code: 'x'.repeat(32_768), enabled: true });
    expect(endpointTransformationInput.safeParse({ code: 'x'.repeat(32_769) }).error?.issues[0]?.message).toBe(
      'must be at most 32,768 bytes (UTF-8); it is 32,769',
    );
    expect(endpointTransformationInput.safeParse({ code: '€'.repeat(10_923) }).success).toBe(false); // 32,769 bytes in 10,923 characters
    expect(endpointTransformationInput.safeParse({ code: '' }).success).toBe(false);
    expect(endpointTransformationInput.safeParse({ code: 'x', runtime: 'node' }).success).toBe(false);
  });

  it('stored with the SHA-256 of its code (what a claimed job carries instead of the code)', () => {
    expect(storedTransformation({ code: 'abc', enabled: false })).toEqual({
      code: 'abc',
      enabled: false,
      sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    });
    expect(transformationHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
