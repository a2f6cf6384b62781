// The relay on its own: it enforces the address rules itself, uses only families it has a
// source for, and over gRPC answers with what happened — or, unreachable, is a relay error.
import { compatSignature, standardWebhookHeaders } from '@wirehook/core';
import { AddressPolicy, HttpEgress } from '@wirehook/egress';
import { bindService, deliverRequestOf, RelayGrpcClient, relayv1, startGrpcServer, tokenRequestOf } from '@wirehook/rpc';
import { freePort, testCa } from '@wirehook/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, testLookup, type NamedReceiver } from '../../../test/support/receivers.ts';
import { relayHandlers, startRelayGrpcServer } from './grpc-server.ts';
import { Registry } from 'prom-client';
import { addressesNotOnThisHost, relayEgressModeVar, relaySourceIpsVar, sourcesFor, type RelayEgressMode } from './relay-sources.ts';
import { EgressRelay } from './relay.ts';

const TOKEN = 'relay-test-token-0123456789abcdef-xyz';
const SECRET = Buffer.from('relay-test-secret-0123456789');
// A receiver on https://rN.receiver.wirehook.test:8443 (the endpoint URL rules hold at the
// relay too: https, port 443 or 8443), reached through testLookup.
let named: NamedReceiver;
let ca: string;
beforeAll(async () => {
  ca = (await testCa()).caPem;
  named = await startReceiver();
});
afterAll(() => named.receiver.close());

const relay = (allowHosts: string, sources = '127.0.0.2', mode: RelayEgressMode = 'bind', registry?: Registry) =>
  new EgressRelay({
    pool: relaySourceIpsVar.parse(sources),
    mode,
    policy: new AddressPolicy({ allowHosts }),
    lookup: testLookup,
    timeoutMs: 2_000,
    connectionsPerOrigin: 2,
    ca,
    registry,
  });
/** What the dispatcher sends (the same header builder): the Standard Webhooks set for `body`. */
const webhookHeaders = (body = '{}') => standardWebhookHeaders([SECRET], 'msg_01KRELAYTEST0000000000000', Date.now(), body);
const request = (url: string, body = '{}') => ({ url, poolKey: 'ep_test', headers: webhookHeaders(body), body });

const receiver = () => named.receiver;
/** An endpoint's OAuth client credentials, its token URL to be set. */
const TOKEN_CREDENTIALS = {
  clientId: 'client',
  clientSecret: 'secret',
  scope: null,
  audience: null,
  tokenAuthMethod: 'client_secret_basic' as const,
};

describe('EgressRelay', () => {
  it('sends from the pool address, checked by its own address rules (private addresses refused unless allowed)', async () => {
    const open = relay(named.host);
    expect(await open.send(request(named.url()))).toMatchObject({ ok: true, status: 200, sourceIp: '127.0.0.2' });
    expect(receiver().requests.at(-1)?.remoteAddress).toBe('127.0.0.2');
    const strict = relay('');
    const refused = await strict.send(request(`https://${named.ip}:8443/hook`));
    expect(refused).toMatchObject({ ok: false, status: null, error: expect.stringMatching(/^blocked: 127\.0\.0\.\d+ is/) });
    await Promise.all([open.close(), strict.close()]);
  });

  it('sticks: an endpoint’s address depends on its id alone (same on another relay replica or after a restart); endpoints share the pool evenly', async () => {
    const keys = Array.from({ length: 8 }, (_, i) => `ep_sticky_${i}`);
    const [one, other] = [relay(named.host, '127.0.0.2,127.0.0.3'), relay(named.host, '127.0.0.2,127.0.0.3')];
    const seen = new Map<string, string>();
    for (const key of keys) {
      for (const r of [one, other, one]) {
        const result = await r.send({ ...request(named.url()), poolKey: key });
        expect(receiver().requests.at(-1)?.remoteAddress).toBe(result.sourceIp);
        expect(result.sourceIp).toBe(seen.get(key) ?? result.sourceIp);
        seen.set(key, result.sourceIp!);
      }
    }
    expect(new Set(seen.values())).toEqual(new Set(['127.0.0.2', '127.0.0.3']));
    await Promise.all([one.close(), other.close()]);

    const pool = relaySourceIpsVar.parse('203.0.113.1,203.0.113.2,203.0.113.3,2001:db8::1');
    const counts = new Map<string, number>();
    for (let i = 0; i < 3_000; i++) {
      const chosen = sourcesFor(pool, `ep_${i}`);
      expect(chosen.v6).toBe('2001:db8::1');
      counts.set(chosen.v4!, (counts.get(chosen.v4!) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual(pool.v4);
    for (const n of counts.values()) expect(n).toBeGreaterThan(850); // 1,000 each if even
  });

  it('a pool that grows or shrinks moves only the endpoints it must', () => {
    const ids = Array.from({ length: 4_000 }, (_, i) => `ep_${i}`);
    const v4 = (sources: string) => {
      const pool = relaySourceIpsVar.parse(sources);
      return ids.map((id) => sourcesFor(pool, id).v4);
    };
    const three = v4('203.0.113.1,203.0.113.2,203.0.113.3');
    const four = v4('203.0.113.1,203.0.113.2,203.0.113.3,203.0.113.4');
    const moved = ids.filter((_, i) => three[i] !== four[i]).length;
    // Added: the endpoints that move all go to the new address, about one in four.
    expect(ids.every((_, i) => three[i] === four[i] || four[i] === '203.0.113.4')).toBe(true);
    expect(moved).toBeGreaterThan(800);
    expect(moved).toBeLessThan(1_200);
    // Removed: only that address's endpoints move; the others keep theirs.
    const two = v4('203.0.113.1,203.0.113.3');
    expect(ids.every((_, i) => three[i] === '203.0.113.2' || three[i] === two[i])).toBe(true);
    // The order addresses are listed in does not matter.
    expect(v4('203.0.113.3,203.0.113.1,203.0.113.2')).toEqual(three);
  });

  it('uses only the families it has a source for, and says so', async () => {
    const v4only = relay('::1');
    const result = await v4only.send(request('https://[::1]:8443/hook'));
    expect(result).toMatchObject({ ok: false, error: 'relay: no source address for ::1 (IPv6 only; RELAY_SOURCE_IPS has none of that family)' });
    await v4only.close();
  });

  it('a pool address this host does not have is a relay error (ours, not the receiver’s), and is found before any send', async () => {
    const misconfigured = relay(named.host, '203.0.113.7');
    const before = receiver().connections;
    const result = await misconfigured.send(request(named.url()));
    expect(result).toMatchObject({
      ok: false,
      status: null,
      sourceIp: null,
      error: 'relay: cannot send from 203.0.113.7: not an address of this host (EADDRNOTAVAIL; check RELAY_SOURCE_IPS)',
    });
    expect(receiver().connections).toBe(before);
    await misconfigured.close();
    expect(await addressesNotOnThisHost(relaySourceIpsVar.parse('127.0.0.2,203.0.113.7,::1,2001:db8::7'))).toEqual(['203.0.113.7', '2001:db8::7']);
  });

  it('nat mode binds nothing: a pool of the NAT’s addresses (not this host’s) sends, recorded as that address; bind mode cannot send from it', async () => {
    const url = named.url();
    const registry = new Registry();
    const nat = relay(named.host, '198.51.100.20', 'nat', registry);
    expect(await nat.send(request(url))).toMatchObject({ ok: true, status: 200, error: null, sourceIp: '198.51.100.20' });
    expect(receiver().requests.at(-1)?.remoteAddress).toBe('127.0.0.1'); // the system's choice; a NAT would translate it
    expect(await registry.getSingleMetricAsString('wirehook_relay_sends_total')).toContain('{source_ip="198.51.100.20",outcome="success"} 1');
    const bound = relay(named.host, '198.51.100.20', 'bind');
    expect(await bound.send(request(url))).toMatchObject({
      ok: false,
      sourceIp: null,
      error: expect.stringMatching(/^relay: cannot send from 198\.51\.100\.20: not an address of this host/),
    });
    await Promise.all([nat.close(), bound.close()]);
  });

  it('nat mode: with several addresses of the connection’s family, all of them (the NAT’s choice is unknown); still only the pool’s families', async () => {
    const url = named.url();
    const nat = relay(`::1,${named.host}`, '198.51.100.21,198.51.100.20,2001:db8::20', 'nat');
    for (const poolKey of ['ep_a', 'ep_b', 'ep_c']) {
      expect(await nat.send({ ...request(url), poolKey })).toMatchObject({ ok: true, sourceIp: '198.51.100.21,198.51.100.20' });
    }
    const v4only = relay('::1', '198.51.100.20', 'nat');
    expect(await v4only.send(request('https://[::1]:8443/hook'))).toMatchObject({
      ok: false,
      sourceIp: null,
      error: 'relay: no source address for ::1 (IPv6 only; RELAY_SOURCE_IPS has none of that family)',
    });
    await Promise.all([nat.close(), v4only.close()]);
  });

  it('sends only what the dispatcher sends: https to 443/8443, Standard Webhooks, custom and compat headers; else a relay error first', async () => {
    const r = relay(`${named.host},127.0.0.0/8`);
    const compat = { header: 'X-Shop-Hmac', content: 'body', encoding: 'hex', prefix: 'sha256=' } as const;
    const withCompat = { ...webhookHeaders(), 'x-shop-hmac': compatSignature(compat, [SECRET], Math.floor(Date.now() / 1000), '{}') };
    expect(await r.send({ ...request(named.url()), headers: withCompat })).toMatchObject({ ok: true, status: 200 });
    // An endpoint's custom headers (20 at most) beside its compat signature: sent.
    const custom = { ...withCompat, authorization: 'Bearer gateway-token', 'x-forwarded-for': '10.0.0.1', 'x-tenant': 'acme' };
    expect(await r.send({ ...request(named.url()), headers: custom })).toMatchObject({ ok: true, status: 200 });

    const before = receiver().connections;
    const refused = async (overrides: { url?: string; headers?: Record<string, string> }) => {
      const result = await r.send({ ...request(named.url()), ...overrides });
      expect(result).toMatchObject({ ok: false, status: null, sourceIp: null, durationMs: 0 });
      return result.error;
    };
    const headers = webhookHeaders();
    const { 'webhook-signature': _signature, ...unsigned } = headers;
    expect(await refused({ url: `http://${named.host}:8443/hook` })).toBe('relay: refused a request the dispatcher does not send: url must use https');
    expect(await refused({ url: `https://${named.host}:9443/hook` })).toBe(
      'relay: refused a request the dispatcher does not send: url must use port 443 or 8443',
    );
    expect(await refused({ url: `https://user:pw@${named.host}:8443/hook` })).toMatch(/^relay: refused .*: url must not contain credentials$/);
    expect(await refused({ headers: { ...headers, host: 'internal.example' } })).toMatch(/header host is not one Wirehook sends/);
    expect(await refused({ headers: { ...headers, cookie: 'a=1' } })).toMatch(/header cookie is not one Wirehook sends/);
    expect(await refused({ headers: { ...headers, 'transfer-encoding': 'chunked' } })).toMatch(/header transfer-encoding is not one Wirehook sends/);
    expect(await refused({ headers: { ...headers, 'content-encoding': 'gzip' } })).toMatch(/header content-encoding is not one Wirehook sends/);
    expect(await refused({ headers: { ...headers, 'x-euro': '5 €' } })).toMatch(/header x-euro is not printable ASCII$/);
    const many = Object.fromEntries(Array.from({ length: 22 }, (_, i) => [`x-h${i}`, 'v']));
    expect(await refused({ headers: { ...headers, ...many } })).toMatch(/22 headers besides Wirehook's: at most 20 custom and one compat signature/);
    expect(await refused({ headers: { ...headers, 'x-big': 'v'.repeat(6_300) } })).toMatch(/headers besides Wirehook's total 6305 bytes/);
    expect(await refused({ headers: unsigned })).toBe('relay: refused a request the dispatcher does not send: header webhook-signature is missing');
    expect(await refused({ headers: { ...headers, 'content-type': 'text/plain' } })).toMatch(/header content-type must be application\/json$/);
    expect(await refused({ headers: { ...headers, 'user-agent': 'curl/8' } })).toMatch(/header user-agent must be Wirehook\/1$/);
    expect(await refused({ headers: { ...headers, 'webhook-signature': 'v2,abc' } })).toMatch(/header webhook-signature is not a list of v1 signatures$/);
    expect(await refused({ headers: { ...headers, 'webhook-timestamp': 'soon' } })).toMatch(/header webhook-timestamp is not whole seconds$/);
    expect(await refused({ headers: { ...headers, 'webhook-id': 'anything' } })).toMatch(/header webhook-id is not a message id$/);
    expect(await refused({ headers: { ...headers, 'Content-Type': 'application/json' } })).toMatch(/header content-type is given twice$/);
    // An ordered delivery's two headers go together, with the values the dispatcher sends.
    expect(await refused({ headers: { ...headers, 'webhook-sequence': '3' } })).toMatch(/webhook-ordering-key and webhook-sequence go together$/);
    expect(await refused({ headers: { ...headers, 'webhook-ordering-key': 'a', 'webhook-sequence': '0' } })).toMatch(/header webhook-sequence is not/);
    expect(receiver().connections).toBe(before); // nothing reached the receiver
    await r.close();
  });

  it('RELAY_EGRESS_MODE: bind unless set; anything but bind or nat is refused, saying what is allowed', () => {
    expect(relayEgressModeVar.parse(undefined)).toBe('bind');
    expect(relayEgressModeVar.parse('nat')).toBe('nat');
    const refused = relayEgressModeVar.safeParse('natt');
    expect(refused.error?.issues[0]?.message).toMatch(/^must be bind .* or nat /);
  });

  it('RELAY_SOURCE_IPS: a value that is not an address is named', () => {
    expect(relaySourceIpsVar.parse(' 127.0.0.2, ::1 ,')).toEqual({ v4: ['127.0.0.2'], v6: ['::1'] });
    const refused = relaySourceIpsVar.safeParse('127.0.0.2,relay.example');
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toMatch(/"relay\.example" is not an IPv4 or IPv6 address/);
  });
});

describe('Relay over gRPC', () => {
  it('answers with the send’s outcome and source; unreachable, it is a relay error (data, not an exception)', async () => {
    const inner = relay(named.host);
    const server = await startRelayGrpcServer({ relay: inner, address: '127.0.0.1:0', authToken: TOKEN });
    const client = new RelayGrpcClient({ address: `127.0.0.1:${server.port}`, authToken: TOKEN, deadlineMs: 5_000 });
    const result = await client.send(request(named.url('/hook?x=1')));
    expect(result).toMatchObject({ ok: true, status: 200, error: null, sourceIp: '127.0.0.2' });
    expect(receiver().requests.at(-1)).toMatchObject({ path: '/hook?x=1', remoteAddress: '127.0.0.2', body: '{}' });
    client.close();
    await server.stop();
    await inner.close();

    const gone = new RelayGrpcClient({ address: `127.0.0.1:${await freePort()}`, authToken: TOKEN, deadlineMs: 1_000 });
    const down = await gone.send(request(named.url()));
    expect(down).toMatchObject({
      ok: false,
      status: null,
      sourceIp: null,
      error: expect.stringMatching(/^relay: unreachable at 127\.0\.0\.1:\d+ \(.*ECONNREFUSED 127\.0\.0\.1:\d+\)$/),
    });
    gone.close();
  });

  it('carries a 429’s or 503’s Retry-After (seconds or an HTTP date) as a direct send reports it, so a fixed_ip endpoint is held too', async () => {
    const busy = await startReceiver();
    const inner = relay(busy.host);
    const server = await startRelayGrpcServer({ relay: inner, address: '127.0.0.1:0', authToken: TOKEN });
    const client = new RelayGrpcClient({ address: `127.0.0.1:${server.port}`, authToken: TOKEN, deadlineMs: 5_000 });
    const direct = new HttpEgress({ policy: new AddressPolicy({ allowHosts: busy.host }), lookup: testLookup, ca });
    const date = new Date(Date.now() + 60_000).toUTCString();
    try {
      for (const [status, header] of [
        [429, '7'],
        [503, date],
      ] as const) {
        busy.receiver.respondWith({ status, headers: { 'retry-after': header } });
        const relayed = await client.send(request(busy.url()));
        expect(relayed).toMatchObject({ ok: false, status, error: `http_status: ${status}`, sourceIp: '127.0.0.2', retryAfter: header });
        expect((await direct.send(request(busy.url()))).retryAfter).toBe(relayed.retryAfter);
      }
      busy.receiver.respondWith({ status: 200 });
      expect(await client.send(request(busy.url()))).toMatchObject({ ok: true, retryAfter: null });
    } finally {
      client.close();
      await Promise.all([server.stop(), inner.close(), direct.close(), busy.receiver.close()]);
    }
  });

  it('fetches an OAuth token from the pool address: the request built by the relay itself, its 16 KB answer carried back', async () => {
    const tokens = await startReceiver();
    const inner = relay(tokens.host);
    const server = await startRelayGrpcServer({ relay: inner, address: '127.0.0.1:0', authToken: TOKEN });
    const client = new RelayGrpcClient({ address: `127.0.0.1:${server.port}`, authToken: TOKEN, deadlineMs: 5_000 });
    // A token response larger than a webhook answer's 1 KB head: a JWT with claims.
    const body = JSON.stringify({ access_token: `eyJ${'a'.repeat(4_000)}`, token_type: 'Bearer', expires_in: 3600 });
    tokens.receiver.respondWith({ status: 200, body, headers: { 'content-type': 'application/json' } });
    const credentials = {
      tokenUrl: tokens.url('/oauth/token'),
      clientId: 'client one',
      clientSecret: 's3cret:+',
      scope: 'hooks orders',
      audience: null,
      tokenAuthMethod: 'client_secret_basic' as const,
    };
    try {
      const answer = await client.fetchToken({ poolKey: 'ep_test', credentials });
      expect(answer).toMatchObject({ ok: true, status: 200, sourceIp: '127.0.0.2', responseHead: body });
      const sent = tokens.receiver.requests.at(-1)!;
      expect(sent).toMatchObject({ path: '/oauth/token', remoteAddress: '127.0.0.2', body: 'grant_type=client_credentials&scope=hooks+orders' });
      // RFC 6749 §2.3.1: the id and secret form-encoded, then Basic.
      expect(sent.headers['authorization']).toBe(`Basic ${Buffer.from('client+one:s3cret%3A%2B').toString('base64')}`);
      expect(sent.headers['content-type']).toBe('application/x-www-form-urlencoded');
      // It is no general HTTP client: a token URL the endpoint rules refuse is refused before any request.
      const before = tokens.receiver.requests.length;
      const refused = await client.fetchToken({ poolKey: 'ep_test', credentials: { ...credentials, tokenUrl: `http://${tokens.host}/oauth/token` } });
      expect(refused).toMatchObject({
        ok: false,
        status: null,
        error: 'relay: refused a token request the dispatcher does not send: token_url must use https',
      });
      const badMethod = await client.fetchToken({ poolKey: 'ep_test', credentials: { ...credentials, tokenAuthMethod: 'private_key_jwt' as never } });
      expect(badMethod.error).toMatch(/^relay: refused a token request the dispatcher does not send: token_auth_method /);
      expect(tokens.receiver.requests.length).toBe(before);
    } finally {
      client.close();
      await Promise.all([server.stop(), inner.close(), tokens.receiver.close()]);
    }
  });

  it('a relay that refuses the call (another INTERNAL_AUTH_TOKEN) or does not answer in time is a relay error saying which', async () => {
    const hanging = await startReceiver();
    hanging.receiver.respondWith({ hang: true });
    const inner = relay(`${named.host},${hanging.host}`);
    const server = await startRelayGrpcServer({ relay: inner, address: '127.0.0.1:0', authToken: TOKEN });
    const address = `127.0.0.1:${server.port}`;
    try {
      const stranger = new RelayGrpcClient({ address, authToken: `${TOKEN}-other`, deadlineMs: 5_000 });
      const before = receiver().requests.length;
      const refused = await stranger.send(request(named.url()));
      expect(refused).toMatchObject({
        ok: false,
        status: null,
        sourceIp: null,
        error: `relay: ${address} refused the call (its INTERNAL_AUTH_TOKEN differs from the dispatcher's)`,
      });
      expect(receiver().requests.length).toBe(before); // refused before anything was sent
      stranger.close();

      // A relay that holds the call past its deadline (here one that never answers): the call runs out first.
      const stuck = await startGrpcServer({
        address: '127.0.0.1:0',
        authToken: TOKEN,
        shutdownGraceMs: 10,
        services: [bindService(relayv1.Relay, { deliver: () => new Promise(() => {}), fetchToken: () => new Promise(() => {}) })],
      });
      const stuckAddress = `127.0.0.1:${stuck.port}`;
      const impatient = new RelayGrpcClient({ address: stuckAddress, authToken: TOKEN, deadlineMs: 300 });
      try {
        const late = await impatient.send(request(hanging.url()));
        expect(late).toMatchObject({ ok: false, status: null, sourceIp: null, error: `relay: no answer from ${stuckAddress} within 300 ms` });
        expect(late.durationMs).toBeGreaterThanOrEqual(250);
      } finally {
        impatient.close();
        await stuck.stop();
      }
    } finally {
      await server.stop();
      await hanging.receiver.close();
      await inner.close();
    }
  });

  it('a dispatcher whose DELIVERY_TIMEOUT_MS is shorter than the relay’s gets its sends’ answers in its calls: the receiver’s timeout', async () => {
    // The relay would wait 15 s for an answer; the dispatcher's 3 s give its calls 2 × 3 + 5 = 11 s (relayCallMs).
    // Answered with the receiver's timeout in time, the attempt is recorded as what it was; sent on past the call's
    // end, the dispatcher would have recorded the relay's failure and sent again what may have arrived.
    const slow = await startReceiver();
    const inner = new EgressRelay({
      pool: relaySourceIpsVar.parse('127.0.0.2'),
      policy: new AddressPolicy({ allowHosts: slow.host }),
      lookup: testLookup,
      timeoutMs: 15_000,
      connectionsPerOrigin: 2,
      ca,
    });
    const server = await startRelayGrpcServer({ relay: inner, address: '127.0.0.1:0', authToken: TOKEN });
    const client = new RelayGrpcClient({ address: `127.0.0.1:${server.port}`, authToken: TOKEN, deliveryTimeoutMs: 3_000 });
    const fetch = { poolKey: 'ep_test', credentials: { ...TOKEN_CREDENTIALS, tokenUrl: slow.url('/oauth/token') } };
    try {
      // First answered, so the channel and both pools' TLS connections are made: what is timed is the answer alone.
      expect(await client.send(request(slow.url()))).toMatchObject({ ok: true, status: 200 });
      expect(await client.fetchToken(fetch)).toMatchObject({ ok: true, status: 200 });
      slow.receiver.respondWith({ hang: true });
      const answered = await client.send(request(slow.url()));
      expect(answered).toMatchObject({ ok: false, status: null, sourceIp: '127.0.0.2', error: 'timeout: no response within 3 s' });
      // A token request through the relay keeps to it alike.
      expect(await client.fetchToken(fetch)).toMatchObject({ ok: false, status: null, error: 'timeout: no response within 3 s' });
      expect(slow.receiver.requests.map((r) => r.path)).toEqual(['/hook', '/oauth/token', '/hook', '/oauth/token']);

      // A call with less time left than its dispatcher's timeout (one of an older dispatcher, which sends none, or one
      // queued while its channel connected): half of what is left less 1 s, so still answered within the call.
      const late = new RelayGrpcClient({ address: `127.0.0.1:${server.port}`, authToken: TOKEN, deadlineMs: 4_000 });
      try {
        // Its channel made first: a token request the relay refuses before sending anything.
        expect((await late.fetchToken({ ...fetch, credentials: { ...fetch.credentials, tokenUrl: `http://${slow.host}/t` } })).error).toMatch(
          /^relay: refused/,
        );
        expect(await late.send(request(slow.url()))).toMatchObject({
          ok: false,
          status: null,
          error: expect.stringMatching(/^timeout: no response within 1\.\d+ s$/),
        });
      } finally {
        late.close();
      }
    } finally {
      client.close();
      await server.stop();
      await slow.receiver.close();
      await inner.close();
    }
  });

  it('a call that reaches it out of time is answered without a send, counted as the relay’s (its dispatcher has given it up)', async () => {
    const registry = new Registry();
    const inner = relay(named.host, '127.0.0.2', 'bind', registry);
    const handlers = relayHandlers(inner);
    // The handlers as grpc-js calls them: the call's deadline set from its grpc-timeout as it arrived.
    const callDue = (deadline: number) => ({ getDeadline: () => deadline }) as never;
    const credentials = { ...TOKEN_CREDENTIALS, tokenUrl: named.url('/oauth/token') };
    const before = receiver().requests.length;
    try {
      const notSent = { ok: false, error: 'relay: the call was out of time before the send began (not sent)' };
      expect(await handlers.deliver(deliverRequestOf(request(named.url())) as never, callDue(Date.now() - 1))).toMatchObject(notSent);
      expect((await handlers.fetchToken(tokenRequestOf({ poolKey: 'ep_test', credentials }) as never, callDue(Date.now() - 1))).answer).toMatchObject(notSent);
      expect(receiver().requests.length).toBe(before);
      expect(await registry.getSingleMetricAsString('wirehook_relay_sends_total')).toContain('{source_ip="none",outcome="relay"} 2');
      // In time, or without a deadline (grpc-js: Infinity), it is sent.
      expect(await handlers.deliver(deliverRequestOf(request(named.url())) as never, callDue(Date.now() + 5_000))).toMatchObject({ ok: true, status: 200 });
      expect(await handlers.deliver(deliverRequestOf(request(named.url())) as never, callDue(Number.POSITIVE_INFINITY))).toMatchObject({ ok: true });
      expect(receiver().requests.length).toBe(before + 2);
    } finally {
      await inner.close();
    }
  });

  it('a dispatcher’s relay client refuses a timeout that is not whole milliseconds, or a deadline shorter than a call of it', () => {
    const address = '127.0.0.1:9';
    expect(() => new RelayGrpcClient({ address, authToken: TOKEN, deliveryTimeoutMs: 1_500.5 })).toThrow(
      'deliveryTimeoutMs must be a positive whole number of milliseconds, got 1500.5',
    );
    expect(() => new RelayGrpcClient({ address, authToken: TOKEN, deliveryTimeoutMs: 0 })).toThrow(RangeError);
    // 2 × 2,000 + 5,000: a deadline of 8,999 ms would give up calls the relay still answers in time.
    expect(() => new RelayGrpcClient({ address, authToken: TOKEN, deliveryTimeoutMs: 2_000, deadlineMs: 8_999 })).toThrow(
      'deadlineMs 8999 is shorter than a relay call of a 2000 ms send (9000 ms)',
    );
    new RelayGrpcClient({ address, authToken: TOKEN, deliveryTimeoutMs: 2_000, deadlineMs: 9_000 }).close();
    new RelayGrpcClient({ address, authToken: TOKEN, deliveryTimeoutMs: 2_000 }).close();
  });
});
