import { describe, expect, it } from 'vitest';
import { endpointAuthInput, sealEndpointAuth } from './endpoint-auth.ts';
import { oauthTokenRequest, readTokenResponse, sameHost } from './oauth-token.ts';
import { InvalidError } from './errors.ts';
import type { EndpointAuth } from './model.ts';

const NOW = 1_700_000_000_000;
const ok = (fields: Record<string, unknown>) => ({ status: 200, body: JSON.stringify(fields) });

describe('readTokenResponse', () => {
  it('uses a token until 60 s before expires_in from 120 s up, and for half its life below (119 s: 59.5 s)', () => {
    expect(readTokenResponse(ok({ access_token: 'a', token_type: 'Bearer', expires_in: 3600 }), NOW)).toEqual({ token: 'a', usableUntil: NOW + 3_540_000 });
    expect(readTokenResponse(ok({ access_token: 'a', token_type: 'bearer', expires_in: 120 }), NOW)).toEqual({ token: 'a', usableUntil: NOW + 60_000 });
    expect(readTokenResponse(ok({ access_token: 'a', token_type: 'Bearer', expires_in: 119 }), NOW)).toEqual({ token: 'a', usableUntil: NOW + 59_500 });
    // Without expires_in: 300 s (RFC 6749 §5.1 leaves it to the server), so until 240 s.
    expect(readTokenResponse(ok({ access_token: 'a', token_type: 'Bearer' }), NOW)).toEqual({ token: 'a', usableUntil: NOW + 240_000 });
    // A string expires_in (some servers send "3600").
    expect(readTokenResponse(ok({ access_token: 'a', expires_in: '3600' }), NOW)).toEqual({ token: 'a', usableUntil: NOW + 3_540_000 });
    // A day at most, whatever it says.
    expect(readTokenResponse(ok({ access_token: 'a', expires_in: 1e303 }), NOW)).toEqual({ token: 'a', usableUntil: NOW + 86_340_000 });
  });

  it('a refusal quotes error and error_description of a JSON body, never the client secret in any form it could be echoed in', () => {
    const echoed = JSON.stringify({ error: 'invalid_client', error_description: 'bad secret s3cret:+', client_secret: 's3cret:+' });
    expect(readTokenResponse({ status: 401, body: echoed }, NOW, ['s3cret:+'])).toEqual({
      error: 'auth: token endpoint answered 401: {"error":"invalid_client","error_description":"bad secret …"}',
    });
    const form = readTokenResponse({ status: 400, body: 'got client_secret=s3cret%3A%2B and Basic Y2xpZW50OnMzY3JldA==' }, NOW, ['s3cret:+']);
    expect(form).toEqual({ error: 'auth: token endpoint answered 400: got client_secret=… and Basic …' });
  });

  it('a refusal quotes its status and at most 300 characters of the body, on one line', () => {
    expect(readTokenResponse({ status: 401, body: '{"error":"invalid_client"}\n' }, NOW)).toEqual({
      error: 'auth: token endpoint answered 401: {"error":"invalid_client"}',
    });
    expect(readTokenResponse({ status: 503, body: '' }, NOW)).toEqual({ error: 'auth: token endpoint answered 503' });
    const long = readTokenResponse({ status: 400, body: 'x'.repeat(301) }, NOW);
    expect(long).toEqual({ error: `auth: token endpoint answered 400: ${'x'.repeat(300)}…` });
    expect(readTokenResponse({ status: 400, body: 'x'.repeat(300) }, NOW)).toEqual({ error: `auth: token endpoint answered 400: ${'x'.repeat(300)}` });
  });

  it('a 2xx that is no usable token is an error that never quotes the body (it may hold a token)', () => {
    const errors = [
      readTokenResponse({ status: 200, body: 'access_token=secret-token' }, NOW),
      readTokenResponse(ok({ access_token: 'secret-token', token_type: 'mac' }), NOW),
      readTokenResponse(ok({ token: 'secret-token' }), NOW),
      readTokenResponse(ok({ access_token: 'secret token' }), NOW),
      readTokenResponse(ok({ access_token: 'secret-token', expires_in: 0 }), NOW),
      readTokenResponse(ok({ access_token: 'secret-token', expires_in: 'soon' }), NOW),
    ];
    for (const e of errors) {
      expect(e).toEqual({ error: expect.stringMatching(/^auth: /) });
      expect(JSON.stringify(e)).not.toContain('secret');
    }
  });
});

describe('oauthTokenRequest', () => {
  const c = {
    tokenUrl: 'https://auth.example/t',
    clientId: 'id:1',
    clientSecret: 'p&ss w',
    scope: null,
    audience: 'https://api.example',
    tokenAuthMethod: 'client_secret_post',
  } as const;
  it('client_secret_post: the id and secret in the form, no Authorization', () => {
    const r = oauthTokenRequest(c);
    expect(r.headers['authorization']).toBeUndefined();
    expect(new URLSearchParams(r.body).get('client_secret')).toBe('p&ss w');
    expect(Object.fromEntries(new URLSearchParams(r.body))).toEqual({
      grant_type: 'client_credentials',
      audience: 'https://api.example',
      client_id: 'id:1',
      client_secret: 'p&ss w',
    });
  });
  it('client_secret_basic: the form-encoded id and secret in Basic (a colon in the id survives), not in the form', () => {
    const r = oauthTokenRequest({ ...c, tokenAuthMethod: 'client_secret_basic' });
    expect(r.headers['authorization']).toBe(`Basic ${Buffer.from('id%3A1:p%26ss+w').toString('base64')}`);
    expect(r.body).toBe('grant_type=client_credentials&audience=https%3A%2F%2Fapi.example');
  });
});

describe('auth input', () => {
  const input = {
    type: 'oauth2_client_credentials',
    token_url: 'https://auth.example/token',
    client_id: 'c',
    client_secret: 's',
    token_auth_method: 'client_secret_basic',
  };
  it('takes the issue’s shape and refuses what a token request cannot carry', () => {
    expect(endpointAuthInput.safeParse(input).success).toBe(true);
    expect(endpointAuthInput.safeParse({ ...input, scope: 'a b' }).success).toBe(true);
    for (const bad of [
      { ...input, token_url: 'http://auth.example/token' },
      { ...input, token_url: 'https://auth.example:9443/token' },
      { ...input, scope: 'a  b' },
      { ...input, scope: 'a"b' },
      { ...input, client_id: 'é' },
      { ...input, client_id: 'x'.repeat(257) },
      { ...input, client_secret: 'x'.repeat(1_025) },
      { ...input, token_auth_method: 'private_key_jwt' },
      { ...input, type: 'basic' },
      { ...input, extra: 1 },
    ]) {
      expect(endpointAuthInput.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    expect(endpointAuthInput.safeParse({ ...input, client_id: 'x'.repeat(256), client_secret: 'x'.repeat(1_024) }).success).toBe(true);
  });

  it('keeps the stored secret on a PATCH without one only while token_url, client_id, scope and audience stay', () => {
    const box = { seal: (text: string, to: string) => `sealed(${text},${to})` };
    const current: EndpointAuth = sealEndpointAuth(box, 'ep_1', endpointAuthInput.parse(input), null);
    expect(current.sealedSecret).toBe('sealed(s,ep_1)');
    const { client_secret: _s, ...withoutSecret } = input;
    expect(sealEndpointAuth(box, 'ep_1', endpointAuthInput.parse({ ...withoutSecret, token_auth_method: 'client_secret_post' }), current)).toMatchObject({
      sealedSecret: 'sealed(s,ep_1)',
      tokenAuthMethod: 'client_secret_post',
    });
    // Another grant (scope, audience) needs the secret again: a stored secret never asks for more than it was given for.
    expect(() => sealEndpointAuth(box, 'ep_1', endpointAuthInput.parse({ ...withoutSecret, scope: 'admin' }), current)).toThrow(/client_secret: required/);
    expect(() => sealEndpointAuth(box, 'ep_1', endpointAuthInput.parse({ ...withoutSecret, audience: 'other' }), current)).toThrow(/client_secret: required/);
    expect(() => sealEndpointAuth(box, 'ep_1', endpointAuthInput.parse({ ...withoutSecret, token_url: 'https://evil.example/t' }), current)).toThrow(
      InvalidError,
    );
    expect(() => sealEndpointAuth(box, 'ep_1', endpointAuthInput.parse({ ...withoutSecret, client_id: 'other' }), current)).toThrow(/client_secret: required/);
    expect(() => sealEndpointAuth(box, 'ep_1', endpointAuthInput.parse(withoutSecret), null)).toThrow('auth.client_secret: required');
  });

  it('sameHost compares host names (the port aside)', () => {
    expect(sameHost('https://a.example/hook', 'https://a.example:8443/token')).toBe(true);
    expect(sameHost('https://a.example/hook', 'https://auth.a.example/token')).toBe(false);
  });
});
