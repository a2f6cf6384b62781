import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { X509Certificate } from 'node:crypto';
import { systemLookup, type LookupFn } from '@wirehook/egress';
import { testClientCertificate, untrustedCertificate } from '@wirehook/testkit';
import { encodeCursor } from '@wirehook/core';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';

// A resolver with a few fixed names (no outside DNS here); anything else resolves for real.
const TABLE: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34'],
  'private.example.com': ['10.0.0.5'],
  'mixed.example.com': ['93.184.216.34', '192.168.1.10'],
  'metadata.example.com': ['169.254.169.254'],
  'v6.example.com': ['2606:2800:220:1:248:1893:25c8:1946'],
};
const lookup: LookupFn = async (host) => TABLE[host]?.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })) ?? systemLookup(host);

let gw: Harness;
let t: TestTenant;
let consumerId: string;

beforeAll(async () => {
  gw = await startWirehook({ lookup, allowHosts: 'localhost' });
  t = await gw.tenant();
  consumerId = (await t.api.post('/v1/consumers', { external_id: 'ep-owner' })).body.id;
});
afterAll(() => gw.close());

const create = (body: Record<string, unknown>) => t.api.post('/v1/endpoints', { consumer_id: consumerId, ...body });
const pair = async () => {
  const { certPem, keyPem } = await testClientCertificate();
  return { client_certificate: certPem, client_key: keyPem };
};

describe('POST /v1/endpoints', () => {
  it('creates an endpoint with defaults and returns its secret only here', async () => {
    const res = await create({ url: 'https://hooks.example.com/wh' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^ep_/),
      consumer_id: consumerId,
      url: 'https://hooks.example.com/wh',
      description: null,
      event_types: null,
      fixed_ip: false,
      type: 'http',
      status: 'active',
      disabled_reason: null,
      failing_since: null,
      created_at: gw.clock.now(),
      retry: { count: 7, interval: 'progressive' },
      compat_signature: null,
      headers: null,
      tls: null,
      auth: null,
      transformation: null,
      ordering: 'none',
      rate_limit: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
    });
    const got = await t.api.get(`/v1/endpoints/${res.body.id}`);
    expect(got.body).not.toHaveProperty('secret');
    expect(got.body).toMatchObject({ id: res.body.id, recent: [], retrying_count: 0, recovery: null });
    const listed = await t.api.get('/v1/endpoints');
    expect(listed.body.items.find((e: any) => e.id === res.body.id)).not.toHaveProperty('secret');
  });

  it('pages the list by id: up to 1,000 a page (limit), next_cursor null unless more follow (the spec shows no cursor)', async () => {
    const org = await gw.tenant();
    const owner = (await org.api.post('/v1/consumers', { external_id: 'pages' })).body.id;
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await org.api.post('/v1/endpoints', { consumer_id: owner, url: `https://hooks.example.com/h${i}` })).body.id);
    made.sort();
    const all = (await org.api.get('/v1/endpoints')).body;
    expect(all.items.map((e: { id: string }) => e.id)).toEqual(made);
    expect(all.next_cursor).toBeNull();
    const first = (await org.api.get('/v1/endpoints?limit=2')).body;
    expect(first.items.map((e: { id: string }) => e.id)).toEqual(made.slice(0, 2));
    const second = (await org.api.get(`/v1/endpoints?limit=2&cursor=${first.next_cursor}`)).body;
    expect(second.items.map((e: { id: string }) => e.id)).toEqual(made.slice(2));
    expect(second.next_cursor).toBeNull();
    // A page of 1,000 asks the store for one more, to tell whether another page follows (MongoDB answers up to 1,001).
    const endpoints = gw.store.endpoints;
    const list = endpoints.list;
    const asked: (number | undefined)[] = [];
    endpoints.list = (tenant, filter) => (asked.push(filter.limit), list.call(endpoints, tenant, filter));
    try {
      expect((await org.api.get('/v1/endpoints?limit=1000')).status).toBe(200);
      expect((await org.api.get('/v1/endpoints')).status).toBe(200);
    } finally {
      endpoints.list = list;
    }
    expect(asked).toEqual([1_001, 1_001]);
    for (const limit of ['0', '1001', 'x']) expect((await org.api.get(`/v1/endpoints?limit=${limit}`)).status).toBe(422);
    expect((await org.api.get(`/v1/endpoints?cursor=${encodeCursor('con_x', gw.clock.now())}`)).status).toBe(422);
  });

  it('keeps every optional field', async () => {
    const body = {
      url: 'https://v6.example.com:8443/x',
      event_types: ['user.created', 'user.deleted', 'user.created'],
      fixed_ip: true,
      description: 'billing',
      retry: { count: 12, interval: '6h' },
      compat_signature: { header: 'X-Signature', content: 'timestamp_body', encoding: 'hex', prefix: 'sha256=' },
    };
    const res = await create(body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ...body, event_types: ['user.created', 'user.deleted'] });
  });

  it.each([
    ['http://hooks.example.com/', 'url: must use https'],
    ['https://hooks.example.com:8080/', 'url: must use port 443 or 8443'],
    ['https://user:pw@hooks.example.com/', 'url: must not contain credentials'],
    [`https://hooks.example.com/${'a'.repeat(2_000)}`, 'url: must be at most 2000 characters'],
    ['https://93.184.216.34/', /raw IP address/],
    ['https://[2606:2800:220:1:248:1893:25c8:1946]/', /raw IP address/],
    ['https://127.0.0.1:8443/', /raw IP address/],
    ['https://db.internal/', /internal host name/],
    ['https://printer.local/', /internal host name/],
    ['https://intranet/', /internal host name/],
    ['https://private.example.com/', /10\.0\.0\.5.*private/],
    ['https://mixed.example.com/', /192\.168\.1\.10/],
    ['https://metadata.example.com/', /169\.254\.169\.254/],
    ['https://no-such-host.invalid/', /does not resolve/],
  ])('refuses %s with 422', async (url, message) => {
    const res = await create({ url });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('invalid');
    expect(res.body.message).toMatch(message);
  });

  it('lets DELIVERY_ALLOW_HOSTS exempt a listed host, still only with https on 443/8443', async () => {
    expect((await create({ url: 'https://localhost:8443/in' })).status).toBe(201);
    expect((await create({ url: 'http://localhost:8443/in' })).status).toBe(422);
    expect((await create({ url: 'https://localhost:9000/in' })).status).toBe(422);
  });

  it.each([
    [{ count: 12, interval: 'progressive' }, /^retry: count 12 with interval progressive spans more than 3 days/],
    [{ count: 4, interval: '1m' }, /^retry\.count: must be one of 0, 1, 2, 3, 5, 7, 12$/],
    [{ count: 3, interval: '2m' }, /^retry\.interval: must be one of progressive, 1m, 5m, 30m, 1h, 6h$/],
    [{ count: 3 }, /^retry\.interval: is required$/],
  ])('refuses retry %j with 422', async (retry, message) => {
    const res = await create({ url: 'https://hooks.example.com/r', retry });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(message);
  });

  it.each<[Record<string, unknown>, RegExp]>([
    [{ event_types: [] }, /^event_types: must list at least one event type/],
    [{ event_types: ['bad type'] }, /^event_types\.0: may contain only/],
    [{ description: 'd'.repeat(201) }, /^description: must be at most 200/],
    [{ fixed_ip: 'yes' }, /^fixed_ip: /],
    [
      { compat_signature: { header: 'webhook-signature', content: 'body', encoding: 'hex' } },
      /^compat_signature\.header: must not be a header Wirehook sends itself/,
    ],
    // Headers an HTTP client refuses to set: every send would throw and the endpoint be disabled.
    ...['Connection', 'Transfer-Encoding', 'Upgrade', 'Expect', 'TE', 'Host', 'keep-alive', 'Proxy-Authorization'].map(
      (header): [Record<string, unknown>, RegExp] => [
        { compat_signature: { header, content: 'body', encoding: 'hex' } },
        /^compat_signature\.header: must not be a header Wirehook sends itself or a hop-by-hop header/,
      ],
    ),
    [
      { compat_signature: { header: 'X-Sig', content: 'body', encoding: 'hex', prefix: 'sha256=\r\nX-Injected: 1' } },
      /^compat_signature\.prefix: may contain only printable ASCII characters/,
    ],
    [
      { compat_signature: { header: 'X-Sig', content: 'body', encoding: 'hex', prefix: 'sig=€' } },
      /^compat_signature\.prefix: may contain only printable ASCII/,
    ],
    [{ compat_signature: { header: 'X-Sig', content: 'all', encoding: 'hex' } }, /^compat_signature\.content: must be body or timestamp_body$/],
  ])('refuses %j with 422', async (extra, message) => {
    const res = await create({ url: 'https://hooks.example.com/v', ...extra });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(message);
  });

  it('answers 404 for a consumer that does not exist', async () => {
    const res = await t.api.post('/v1/endpoints', { consumer_id: 'con_01KAAAAAAAAAAAAAAAAAAAAAAA', url: 'https://hooks.example.com/' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', message: 'consumer con_01KAAAAAAAAAAAAAAAAAAAAAAA not found' });
  });

  it('allows 20 endpoints per consumer and refuses the 21st with 422', async () => {
    const c = (await t.api.post('/v1/consumers', { external_id: 'twenty' })).body.id;
    const results = await Promise.all(Array.from({ length: 22 }, (_, i) => t.api.post('/v1/endpoints', { consumer_id: c, url: `https://localhost/${i}` })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(20);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.map((r) => r.status)).toEqual([422, 422]);
    expect(refused[0]!.body.message).toMatch(/20 endpoints/);
    expect((await t.api.get(`/v1/endpoints?consumer_id=${c}`)).body.items).toHaveLength(20);
  });
});

describe('custom headers (headers)', () => {
  const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`X-H${i}`, 'v']));
  // 4,096 bytes of names and values: one header `X-Big` (5 bytes) and a value of 4,091.
  const sized = (bytes: number) => ({ 'X-Big': 'v'.repeat(bytes - 5) });

  it('takes 20 headers and 4,096 bytes; refuses 21 and 4,097 with 422', async () => {
    expect((await create({ url: 'https://hooks.example.com/h20', headers: many(20) })).status).toBe(201);
    const over = await create({ url: 'https://hooks.example.com/h21', headers: many(21) });
    expect(over.status).toBe(422);
    expect(over.body.message).toBe('headers: may have at most 20 headers, got 21');
    expect((await create({ url: 'https://hooks.example.com/b1', headers: sized(4_096) })).status).toBe(201);
    const big = await create({ url: 'https://hooks.example.com/b2', headers: sized(4_097) });
    expect(big.status).toBe(422);
    expect(big.body.message).toBe('headers: names and values may total at most 4096 bytes, got 4097');
  });

  it.each<[Record<string, unknown>, RegExp]>([
    [{ 'webhook-id': 'x' }, /^headers\.webhook-id: webhook-id is set by Wirehook/],
    [{ 'Webhook-Signature': 'x' }, /^headers\.Webhook-Signature: Webhook-Signature is set by Wirehook/],
    [{ 'Content-Type': 'text/plain' }, /^headers\.Content-Type: Content-Type describes the body, which Wirehook sets/],
    [{ host: 'evil.example' }, /^headers\.host: host is set by Wirehook or by the connection/],
    [{ 'Transfer-Encoding': 'chunked' }, /^headers\.Transfer-Encoding: /],
    [{ 'User-Agent': 'me' }, /^headers\.User-Agent: /],
    [{ 'Bad Name': 'x' }, /^headers\.Bad Name: "Bad Name" is not a header name/],
    [{ 'X-Split': 'a\r\nX-Injected: 1' }, /^headers\.X-Split: a header value is printable ASCII: no line breaks/],
    [
      { 'X-Pad': ' padded' },
      /^headers\.X-Pad: a header value is printable ASCII: no line breaks, control or non-ASCII characters, no space at either end, not empty$/,
    ],
    [{ 'X-Empty': '' }, /^headers\.X-Empty: a header value is printable ASCII: .*not empty$/],
    [{ 'X-A': 'a', 'x-a': 'b' }, /^headers\.x-a: x-a is given twice/],
    [{ 'X-N': 5 }, /^headers\.X-N: each header value must be a string/],
    [{ 'X-Euro': '5 €' }, /^headers\.X-Euro: a header value is printable ASCII/],
    [{ 'Content-Encoding': 'gzip' }, /^headers\.Content-Encoding: Content-Encoding describes the body/],
    [{ Cookie: 'a=1' }, /^headers\.Cookie: Cookie is set by Wirehook or by the connection/],
    [JSON.parse('{"__proto__": "x"}'), /^headers\.__proto__: "__proto__" is not a header name/],
  ])('refuses %j with 422 and leaves nothing made', async (headers, message) => {
    const before = (await t.api.get('/v1/endpoints')).body.items.length;
    const res = await create({ url: 'https://hooks.example.com/bad-h', headers });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(message);
    expect((await t.api.get('/v1/endpoints')).body.items.length).toBe(before);
  });

  it('refuses the compat signature header’s own name, on create and on a PATCH of either field', async () => {
    const compat = { header: 'X-Partner-Signature', content: 'body', encoding: 'hex' };
    const res = await create({ url: 'https://hooks.example.com/c', compat_signature: compat, headers: { 'x-partner-signature': 'mine' } });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/^headers\.x-partner-signature: X-Partner-Signature is the endpoint's compat_signature header/);
    const ok = await create({ url: 'https://hooks.example.com/c2', headers: { 'X-Partner-Signature': 'mine' } });
    expect(ok.status).toBe(201);
    expect((await t.api.patch(`/v1/endpoints/${ok.body.id}`, { compat_signature: compat })).status).toBe(422);
  });

  it('shows a value shorter than 12 characters as … alone', async () => {
    const made = await create({ url: 'https://hooks.example.com/short', headers: { 'X-Eleven': '01234567890', 'X-Twelve': '012345678901' } });
    expect(made.body.headers).toEqual({ 'x-eleven': '…', 'x-twelve': '…8901' });
  });

  it('never returns a value: create, GET, list and PATCH show …last4', async () => {
    const secret = 'sk-live-abcdefghijklmnop-TAIL';
    const made = await create({ url: 'https://hooks.example.com/redact', headers: { Authorization: `Bearer ${secret}` } });
    expect(made.status).toBe(201);
    expect(made.body.headers).toEqual({ authorization: '…TAIL' });
    const seen = [
      made.body,
      (await t.api.get(`/v1/endpoints/${made.body.id}`)).body,
      (await t.api.get('/v1/endpoints')).body,
      (await t.api.patch(`/v1/endpoints/${made.body.id}`, { description: 'still secret' })).body,
    ];
    for (const body of seen) expect(JSON.stringify(body)).not.toContain(secret.slice(0, 12));
  });
});

describe('client certificate (tls)', () => {
  it.each<[string, () => Promise<Record<string, unknown>>, RegExp]>([
    [
      'no PEM certificate',
      async () => ({ client_certificate: 'hello', client_key: (await testClientCertificate()).keyPem }),
      /^tls\.client_certificate: no PEM certificate/,
    ],
    [
      'a certificate that does not parse',
      async () => ({ client_certificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----', client_key: (await testClientCertificate()).keyPem }),
      /^tls\.client_certificate: certificate 1 is not a valid X\.509 certificate$/,
    ],
    [
      'a key that is not PEM',
      async () => ({ client_certificate: (await testClientCertificate()).certPem, client_key: 'nope' }),
      /^tls\.client_key: not a PEM private key/,
    ],
    [
      'a key of another certificate',
      async () => ({ client_certificate: (await testClientCertificate()).certPem, client_key: (await untrustedCertificate()).keyPem }),
      /^tls\.client_key: does not belong to the client certificate/,
    ],
    ['server_ca that holds no certificate', async () => ({ ...(await pair()), server_ca: 'not a CA' }), /^tls\.server_ca: no PEM certificate/],
    ['no key', async () => ({ client_certificate: (await testClientCertificate()).certPem }), /^tls\.client_key: is required$/],
    [
      'a private key pasted into client_certificate (it would be stored unsealed)',
      async () => ({
        client_certificate: `${(await testClientCertificate()).certPem}\n${(await testClientCertificate()).keyPem}`,
        client_key: (await testClientCertificate()).keyPem,
      }),
      /^tls\.client_certificate: holds a PRIVATE KEY block; only certificates belong here \(a private key goes in client_key, alone\)$/,
    ],
  ])('refuses %s with 422 and makes nothing', async (_, tls, message) => {
    const before = (await t.api.get('/v1/endpoints')).body.items.length;
    const res = await create({ url: 'https://hooks.example.com/tls-bad', tls: await tls() });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(message);
    expect((await t.api.get('/v1/endpoints')).body.items.length).toBe(before);
  });

  it('takes a certificate text of 12,288 characters and a key of 4,096; refuses 12,289 and 4,097 with 422', async () => {
    const { certPem, keyPem } = await testClientCertificate();
    const padded = (text: string, length: number) => text + '\n'.repeat(length - text.length);
    const made = await create({
      url: 'https://hooks.example.com/tls-max',
      tls: { client_certificate: padded(certPem, 12_288), client_key: padded(keyPem, 4_096) },
    });
    expect(made.status).toBe(201);
    const longCert = await create({ url: 'https://hooks.example.com/tls-c', tls: { client_certificate: padded(certPem, 12_289), client_key: keyPem } });
    expect(longCert.status).toBe(422);
    expect(longCert.body.message).toBe('tls.client_certificate: must be at most 12288 characters');
    const longKey = await create({ url: 'https://hooks.example.com/tls-k', tls: { client_certificate: certPem, client_key: padded(keyPem, 4_097) } });
    expect(longKey.status).toBe(422);
    expect(longKey.body.message).toBe('tls.client_key: must be at most 4096 characters');
  });

  it('refuses a certificate expired at the clock’s time, and takes it while still valid', async () => {
    const { certPem } = await testClientCertificate();
    const notAfter = Date.parse(new X509Certificate(certPem).validTo);
    const at = gw.clock.now();
    gw.clock.set(notAfter + 1_000);
    try {
      const res = await create({ url: 'https://hooks.example.com/tls-expired', tls: await pair() });
      expect(res.status).toBe(422);
      expect(res.body.message).toBe(`tls.client_certificate: expired on ${new Date(notAfter).toISOString()}`);
    } finally {
      gw.clock.set(at);
    }
    expect((await create({ url: 'https://hooks.example.com/tls-valid', tls: await pair() })).status).toBe(201);
  });
});

describe('OAuth client credentials (auth)', () => {
  // A consumer of its own: the cases make more endpoints than one consumer may have beside the others'.
  let owner: string;
  beforeAll(async () => {
    owner = (await t.api.post('/v1/consumers', { external_id: 'oauth-owner' })).body.id;
  });
  const create = (body: Record<string, unknown>) => t.api.post('/v1/endpoints', { consumer_id: owner, ...body });
  const auth = (extra: Record<string, unknown> = {}) => ({
    type: 'oauth2_client_credentials',
    token_url: 'https://hooks.example.com/oauth/token',
    client_id: 'wirehook',
    client_secret: 'cs_super_secret_value',
    token_auth_method: 'client_secret_post',
    ...extra,
  });

  it('takes the issue’s shape, shows it without the client secret, and keeps the secret on a PATCH that keeps token_url and client_id', async () => {
    const made = await create({ url: 'https://hooks.example.com/oauth', auth: auth({ scope: 'a b', audience: 'https://api.example.com' }) });
    expect(made.status).toBe(201);
    expect(made.body.auth).toEqual({
      type: 'oauth2_client_credentials',
      token_url: 'https://hooks.example.com/oauth/token',
      client_id: 'wirehook',
      scope: 'a b',
      audience: 'https://api.example.com',
      token_auth_method: 'client_secret_post',
    });
    const id = made.body.id as string;
    const { client_secret: _kept, ...withoutSecret } = auth();
    const same = { ...withoutSecret, scope: 'a b', audience: 'https://api.example.com', token_auth_method: 'client_secret_basic' };
    const patched = await t.api.patch(`/v1/endpoints/${id}`, { auth: same });
    expect(patched.status).toBe(200);
    expect(patched.body.auth).toMatchObject({ scope: 'a b', token_auth_method: 'client_secret_basic' });
    // Another scope asks for another grant: the secret again (a stored secret never asks for more than it was given for).
    expect((await t.api.patch(`/v1/endpoints/${id}`, { auth: { ...same, scope: 'admin' } })).status).toBe(422);
    // Another token endpoint or client needs the secret again: the stored one never goes to another.
    const moved = await t.api.patch(`/v1/endpoints/${id}`, { auth: { ...withoutSecret, token_url: 'https://v6.example.com/token' } });
    expect(moved.status).toBe(422);
    expect(moved.body.message).toBe(
      'auth.client_secret: required when token_url, client_id, scope or audience changes (the stored secret never asks for another grant)',
    );
    expect((await t.api.patch(`/v1/endpoints/${id}`, { auth: { ...withoutSecret, client_id: 'other' } })).status).toBe(422);
    for (const body of [made.body, patched.body, (await t.api.get(`/v1/endpoints/${id}`)).body, (await t.api.get('/v1/endpoints')).body]) {
      expect(JSON.stringify(body)).not.toContain('cs_super_secret_value');
    }
    expect((await t.api.patch(`/v1/endpoints/${id}`, { auth: null })).body.auth).toBeNull();
  });

  it('a PATCH moving url to another origin keeps auth only with its client_secret given again; within the origin, or removing auth, none', async () => {
    const made = await create({ url: 'https://hooks.example.com/oauth-move', auth: auth() });
    const id = made.body.id as string;
    const { client_secret: _kept, ...withoutSecret } = auth();
    // Another path, query or the default port written out: the same origin, the same tokens.
    for (const url of ['https://hooks.example.com/elsewhere?x=1', 'https://hooks.example.com:443/oauth-move']) {
      expect((await t.api.patch(`/v1/endpoints/${id}`, { url })).status).toBe(200);
    }
    // Another host, or the other port: refused with auth left as it is, or given without its secret; nothing changed.
    for (const [url, body] of [
      ['https://v6.example.com/in', {}],
      ['https://hooks.example.com:8443/in', {}],
      ['https://v6.example.com/in', { auth: withoutSecret }],
    ] as const) {
      const refused = await t.api.patch(`/v1/endpoints/${id}`, { url, ...body });
      expect(refused.status).toBe(422);
      expect(refused.body.message).toBe(
        `auth.client_secret: required when url moves to another origin (https://hooks.example.com → ${new URL(url).origin}): ` +
          "the stored secret's tokens go only to the origin it was given for; give auth again with its client_secret, or null",
      );
    }
    expect((await t.api.get(`/v1/endpoints/${id}`)).body.url).toBe('https://hooks.example.com:443/oauth-move');
    // With the secret given again, or without auth: moved.
    expect((await t.api.patch(`/v1/endpoints/${id}`, { url: 'https://v6.example.com/in', auth: auth() })).body.url).toBe('https://v6.example.com/in');
    expect((await t.api.patch(`/v1/endpoints/${id}`, { url: 'https://hooks.example.com/back', auth: null })).body.auth).toBeNull();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no client secret on create', { client_secret: undefined }, 'auth.client_secret: required'],
    ['an http token URL', { token_url: 'http://hooks.example.com/token' }, 'auth.token_url: must use https'],
    ['a token URL on port 9443', { token_url: 'https://hooks.example.com:9443/token' }, 'auth.token_url: must use port 443 or 8443'],
    [
      'a token URL at a private address',
      { token_url: 'https://private.example.com/token' },
      'auth.token_url host "private.example.com" resolves to 10.0.0.5, a private address',
    ],
    [
      'a token URL at the cloud metadata address',
      { token_url: 'https://metadata.example.com/token' },
      'auth.token_url host "metadata.example.com" resolves to 169.254.169.254, a link-local (cloud metadata) address',
    ],
    ['an unknown method', { token_auth_method: 'private_key_jwt' }, 'auth.token_auth_method: must be client_secret_basic or client_secret_post'],
    ['a scope with a double space', { scope: 'a  b' }, 'auth.scope: must be scope tokens'],
    ['a client id of 257 characters', { client_id: 'x'.repeat(257) }, 'auth.client_id: must be at most 256 characters'],
  ])('refuses %s with 422 naming the field, and makes nothing', async (_, extra, message) => {
    const before = (await t.api.get('/v1/endpoints')).body.items.length;
    const res = await create({ url: 'https://hooks.example.com/oauth-bad', auth: auth(extra) });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain(message);
    expect((await t.api.get('/v1/endpoints')).body.items.length).toBe(before);
  });

  it('Authorization is refused as a custom header beside auth (create, or a PATCH of either), and taken without auth', async () => {
    const both = await create({ url: 'https://hooks.example.com/oauth-h', auth: auth(), headers: { Authorization: 'Bearer static' } });
    expect(both.status).toBe(422);
    expect(both.body.message).toMatch(/^headers\.authorization: the endpoint has OAuth client credentials \(auth\)/);
    const headerOnly = await create({ url: 'https://hooks.example.com/oauth-h', headers: { Authorization: 'Bearer static' } });
    expect(headerOnly.status).toBe(201);
    expect((await t.api.patch(`/v1/endpoints/${headerOnly.body.id}`, { auth: auth() })).status).toBe(422);
    const authOnly = await create({ url: 'https://hooks.example.com/oauth-h', auth: auth() });
    expect((await t.api.patch(`/v1/endpoints/${authOnly.body.id}`, { headers: { authorization: 'Bearer x' } })).status).toBe(422);
    // Replacing both at once: auth removed, Authorization taken.
    expect((await t.api.patch(`/v1/endpoints/${authOnly.body.id}`, { auth: null, headers: { authorization: 'Bearer x' } })).status).toBe(200);
  });
});

describe('GET /v1/endpoints', () => {
  it("lists all, or one consumer's, in one page (next_cursor null: fewer than 1,000)", async () => {
    const other = (await t.api.post('/v1/consumers', { external_id: 'other' })).body.id;
    const mine = (await t.api.post('/v1/endpoints', { consumer_id: other, url: 'https://localhost/o' })).body.id;
    const filtered = await t.api.get(`/v1/endpoints?consumer_id=${other}`);
    expect(filtered.body).toEqual({ items: [expect.objectContaining({ id: mine, consumer_id: other })], next_cursor: null });
    const all = await t.api.get('/v1/endpoints');
    expect(all.body.items.length).toBeGreaterThan(1);
    expect(all.body.next_cursor).toBeNull();
  });

  it('answers 404 for unknown and malformed ids', async () => {
    expect((await t.api.get('/v1/endpoints/ep_01KAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
    expect((await t.api.get('/v1/endpoints/whatever')).body).toEqual({ error: 'not_found', message: 'endpoint whatever not found' });
  });
});

describe('PATCH /v1/endpoints/{id}', () => {
  it('changes each field, restores defaults with null, and checks the new URL', async () => {
    const ep = (
      await create({
        url: 'https://hooks.example.com/p',
        retry: { count: 3, interval: '1h' },
        event_types: ['a'],
        compat_signature: { header: 'X-Sig', content: 'body', encoding: 'base64' },
      })
    ).body;
    const path = `/v1/endpoints/${ep.id}`;

    const patched = await t.api.patch(path, { description: 'new', event_types: ['b', 'c'], url: 'https://localhost/q' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ description: 'new', event_types: ['b', 'c'], url: 'https://localhost/q' });
    expect(patched.body).not.toHaveProperty('secret');

    const reset = await t.api.patch(path, { retry: null, compat_signature: null, event_types: null });
    expect(reset.body).toMatchObject({ retry: { count: 7, interval: 'progressive' }, compat_signature: null, event_types: null });

    expect((await t.api.patch(path, { status: 'paused' })).body.status).toBe('paused');
    expect((await t.api.patch(path, { status: 'active' })).body.status).toBe('active');
    expect((await t.api.get(path)).body).toMatchObject({ description: 'new', status: 'active', event_types: null });
    // null clears the description, as GET shows none (the portal's form sends it for an emptied field).
    expect((await t.api.patch(path, { description: null })).body.description).toBeNull();
    expect((await t.api.get(path)).body.description).toBeNull();

    // fixed_ip by PATCH (beyond the spec's inputs; docs/semantics.md): refused while no fixed
    // address is configured (every attempt would fail in the relay), then on, then off again.
    const none = await t.api.patch(path, { fixed_ip: true });
    expect(none.status).toBe(422);
    expect(none.body.message).toMatch(/^fixed_ip: no fixed source addresses are configured/);
    expect((await t.api.get(path)).body.fixed_ip).toBe(false);
    await gw.store.egressIps.sync([{ ip: '203.0.113.7', family: 4 }], gw.clock.now(), 30 * 86_400_000);
    expect((await t.api.patch(path, { fixed_ip: true })).body.fixed_ip).toBe(true);
    expect((await t.api.get(path)).body.fixed_ip).toBe(true);
    expect((await t.api.patch(path, { fixed_ip: false })).body.fixed_ip).toBe(false);
  });

  it.each([
    [{ status: 'disabled' }, /^status: must be active or paused$/],
    [{ url: 'https://private.example.com/' }, /private/],
    [{ retry: { count: 12, interval: 'progressive' } }, /3 days/],
    [{ fixed_ip: 'yes' }, /^fixed_ip: /],
    [{ consumer_id: 'con_x' }, /^unknown field "consumer_id"$/],
  ])('refuses %j with 422 and changes nothing', async (body, message) => {
    const ep = (await create({ url: 'https://hooks.example.com/n' })).body;
    const res = await t.api.patch(`/v1/endpoints/${ep.id}`, body);
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(message);
    const { secret: _secret, ...unchanged } = ep;
    expect((await t.api.get(`/v1/endpoints/${ep.id}`)).body).toMatchObject(unchanged);
  });

  it('re-activates a disabled endpoint and clears its reason', async () => {
    const ep = (await create({ url: 'https://hooks.example.com/d' })).body;
    await gw.store.endpoints.update({ orgId: t.orgId as never, env: 'live' }, ep.id, {
      status: 'disabled',
      disabledReason: 'failing_5_days',
      failingSince: 1,
    });
    const res = await t.api.patch(`/v1/endpoints/${ep.id}`, { status: 'active' });
    expect(res.body).toMatchObject({ status: 'active', disabled_reason: null, failing_since: null });
  });
});

describe('DELETE and rotate-secret', () => {
  it('deletes (204), then 404', async () => {
    const ep = (await create({ url: 'https://hooks.example.com/del' })).body;
    const res = await t.api.delete(`/v1/endpoints/${ep.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect((await t.api.get(`/v1/endpoints/${ep.id}`)).status).toBe(404);
    expect((await t.api.delete(`/v1/endpoints/${ep.id}`)).status).toBe(404);
  });

  it('rotates: returns a new secret; the old one stays valid for 24 hours', async () => {
    const ep = (await create({ url: 'https://hooks.example.com/rot' })).body;
    const res = await t.api.post(`/v1/endpoints/${ep.id}/rotate-secret`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ secret: expect.stringMatching(/^whsec_/) });
    expect(res.body.secret).not.toBe(ep.secret);
    const tenant = { orgId: t.orgId as never, env: 'live' as const };
    const now = gw.clock.now();
    const valid = await gw.store.endpoints.secrets(tenant, ep.id, now);
    expect(valid).toHaveLength(2);
    expect(valid[1]!.expiresAt).toBe(now + 24 * 60 * 60 * 1000);
    expect(await gw.store.endpoints.secrets(tenant, ep.id, now + 24 * 60 * 60 * 1000 + 1)).toHaveLength(1);
    // Secrets are sealed at rest: the clear text is nowhere in the store.
    expect(JSON.stringify(valid)).not.toContain(res.body.secret.slice(6));
  });
});
