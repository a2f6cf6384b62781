import { randomBytes } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { isIP, type Socket } from 'node:net';
import { ManualClock } from '@wirehook/core';
import {
  closedPort,
  RECEIVER_TEST_HOST,
  TestReceiver,
  testClientCertificate,
  untrustedCertificate,
  untrustedReceiver,
  type TestReceiverOptions,
} from '@wirehook/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AddressPolicy } from './address-policy.ts';
import { MAX_TLS_SESSION_AGE_MS, MAX_TLS_SESSION_BYTES, TlsSessions } from './guarded-connector.ts';
import { HttpEgress, type ClientTls, type HttpEgressOptions } from './http-egress.ts';
import type { LookupFn } from './resolve-host.ts';

interface CountingLookup extends LookupFn {
  calls: string[];
}

/** Answers from a table (each entry answered in turn, the last one repeated); else ENOTFOUND. */
function tableLookup(table: Record<string, string[][]>): CountingLookup {
  const calls: string[] = [];
  const fn = async (host: string) => {
    const answers = table[host];
    const answer = answers?.[Math.min(calls.filter((h) => h === host).length, answers.length - 1)];
    calls.push(host);
    if (answer === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return answer.map((address) => ({ address, family: isIP(address) }));
  };
  return Object.assign(fn, { calls });
}

const allowLocalhost = new AddressPolicy({ allowHosts: 'localhost' });
const HEADERS = {
  'content-type': 'application/json',
  'webhook-id': 'msg_test',
  'webhook-timestamp': '1700000000',
  'webhook-signature': 'v1,abc=',
  'user-agent': 'Wirehook/1',
};

/**
 * Safety net for this file: whatever the code under test decides, no socket may connect
 * beyond loopback (the tests feed private and public addresses to the guard). Node emits
 * 'lookup' for each address before connecting and gives up when the socket is destroyed.
 */
const offLoopback: string[] = [];
function loopbackOnly({ socket }: { socket: Socket }): void {
  socket.on('lookup', (_err: Error | null, ip: string | undefined) => {
    if (ip === undefined || ip === '::1' || /^(::ffff:)?127\./.test(ip)) return;
    offLoopback.push(ip);
    socket.destroy(new Error(`test guard: refused to connect to ${ip}`));
  });
}
const onSocket = (message: unknown) => loopbackOnly(message as { socket: Socket });

let receiver: TestReceiver;
const egresses: HttpEgress[] = [];

function egress(options: Partial<HttpEgressOptions> = {}): HttpEgress {
  const created = new HttpEgress({ policy: allowLocalhost, ca: receiver.caPem, ...options });
  egresses.push(created);
  return created;
}

function post(client: HttpEgress, url: string, body = '{"type":"t","data":{}}') {
  return client.send({ url, headers: HEADERS, body });
}

beforeAll(async () => {
  subscribe('net.client.socket', onSocket);
  receiver = await TestReceiver.start();
});

afterAll(async () => {
  unsubscribe('net.client.socket', onSocket);
  await receiver.close();
});

beforeEach(() => {
  receiver.clear();
  receiver.respondWith({});
});

afterEach(async () => {
  await Promise.all(egresses.splice(0).map((e) => e.close()));
  expect(offLoopback.splice(0)).toEqual([]);
});

describe('HttpEgress: answered requests', () => {
  it('sends one POST with the headers and body as given and reports a 2xx as ok', async () => {
    receiver.respondWith({ status: 204 });
    const body = '{"type":"invoice.paid","data":{"note":"café ☕"}}';
    const result = await post(egress(), `${receiver.url}/hooks/in?x=1#frag`, body);
    expect(result).toMatchObject({ ok: true, status: 204, responseHead: '', error: null, sourceIp: '127.0.0.1' });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(receiver.requests).toHaveLength(1);
    const got = receiver.requests[0]!;
    expect(got.method).toBe('POST');
    expect(got.path).toBe('/hooks/in?x=1');
    expect(got.body).toBe(body);
    expect(got.headers).toMatchObject({ ...HEADERS, 'content-length': String(Buffer.byteLength(body)), host: `localhost:${receiver.port}` });
  });

  it('keeps only the first responseHeadBytes of the response body', async () => {
    receiver.respondWith({ status: 200, body: `${'a'.repeat(100)}${'b'.repeat(200_000)}` });
    const result = await post(egress({ responseHeadBytes: 100 }), receiver.url);
    expect(result.ok).toBe(true);
    expect(result.responseHead).toBe('a'.repeat(100));
  });

  it('does not cut a UTF-8 character in half at the byte limit', async () => {
    receiver.respondWith({ status: 200, body: 'é'.repeat(10) });
    const result = await post(egress({ responseHeadBytes: 5 }), receiver.url);
    expect(result.responseHead).toBe('éé');
  });

  it('reports a 500 as http_status with the head of the answer', async () => {
    receiver.respondWith({ status: 500, body: 'boom' });
    const result = await post(egress(), receiver.url);
    expect(result).toMatchObject({ ok: false, status: 500, responseHead: 'boom', error: 'http_status: 500', sourceIp: '127.0.0.1' });
  });

  it('does not follow a redirect: one request, reported as redirect', async () => {
    receiver.respondWith({ redirectTo: `${receiver.url}/elsewhere` });
    const result = await post(egress(), `${receiver.url}/first`);
    expect(result).toMatchObject({ ok: false, status: 302, error: `redirect: 302 to ${receiver.url}/elsewhere not followed` });
    expect(receiver.requests.map((r) => r.path)).toEqual(['/first']);
  });

  it('reports the Retry-After header of an answer, and null without one', async () => {
    receiver.respondWith({ status: 429, headers: { 'retry-after': '4' } });
    expect(await post(egress(), receiver.url)).toMatchObject({ ok: false, status: 429, retryAfter: '4' });
    receiver.respondWith({ status: 503 });
    expect((await post(egress(), receiver.url)).retryAfter).toBeNull();
  });

  it('reports a 3xx without a location as http_status', async () => {
    receiver.respondWith({ status: 304 });
    expect((await post(egress(), receiver.url)).error).toBe('http_status: 304');
  });
});

describe('HttpEgress: failures', () => {
  it('gives up after timeoutMs when the receiver never answers', async () => {
    receiver.respondWith({ hang: true });
    const result = await post(egress({ timeoutMs: 300 }), receiver.url);
    expect(result).toMatchObject({ ok: false, status: null, responseHead: null, error: 'timeout: no response within 0.3 s' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(1500);
    // The request did go out, so its socket is known.
    expect(result.sourceIp).toBe('127.0.0.1');
    expect(receiver.requests).toHaveLength(1);
  });

  it('counts a slow answer against the same limit', async () => {
    receiver.respondWith({ delayMs: 600 });
    const result = await post(egress({ timeoutMs: 200 }), receiver.url);
    expect(result.error).toBe('timeout: no response within 0.2 s');
  });

  it('reports a refused connection with its code', async () => {
    const port = await closedPort();
    const result = await post(egress(), `https://localhost:${port}/`);
    expect(result).toMatchObject({ ok: false, status: null, sourceIp: null });
    expect(result.error).toMatch(/^connection: ECONNREFUSED\b/);
  });

  it('reports an untrusted certificate as tls with its code, and sends nothing', async () => {
    const untrusted = await untrustedReceiver();
    try {
      const result = await post(egress(), untrusted.url);
      expect(result).toMatchObject({ ok: false, status: null, sourceIp: null });
      expect(result.error).toMatch(/^tls: (UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\b/);
      expect(untrusted.connections).toBe(1);
      expect(untrusted.requests).toHaveLength(0);
    } finally {
      await untrusted.close();
    }
  });

  it('reports a name that does not resolve as dns', async () => {
    const lookup = tableLookup({});
    const result = await post(egress({ lookup }), 'https://nx.wirehook.test/');
    expect(result.error).toBe('dns: host "nx.wirehook.test" does not resolve (ENOTFOUND)');
    expect(lookup.calls).toEqual(['nx.wirehook.test']);
  });
});

describe('HttpEgress: SSRF guard at connect time', () => {
  it('blocks a host the policy does not allow; the receiver gets no connection', async () => {
    const before = receiver.connections;
    const result = await post(egress({ policy: new AddressPolicy() }), receiver.url);
    expect(result).toMatchObject({ ok: false, status: null, sourceIp: null });
    expect(result.error).toMatch(/^blocked: host "localhost" resolves to (127\.0\.0\.1, a loopback address|::1, a loopback address)/);
    expect(receiver.connections).toBe(before);
    expect(receiver.requests).toHaveLength(0);
  });

  it('blocks a raw IP host unless it is an allowed address', async () => {
    const before = receiver.connections;
    const result = await post(egress(), `https://127.0.0.1:${receiver.port}/`);
    expect(result.error).toBe('blocked: 127.0.0.1 is a loopback address; webhooks are sent only to public addresses');
    expect(receiver.connections).toBe(before);
  });

  it.each([
    [['10.0.0.7'], '10.0.0.7, a private address'],
    [['93.184.216.34', '169.254.169.254'], '169.254.169.254, a link-local (cloud metadata) address'],
    [['2606:2800:220:1::1', '::ffff:127.0.0.1'], '::ffff:127.0.0.1, an IPv4-mapped form of 127.0.0.1, a loopback address'],
  ])('blocks a public-looking name resolving to %j', async (addresses, named) => {
    const lookup = tableLookup({ 'hooks.example.com': [addresses] });
    const result = await post(egress({ policy: new AddressPolicy(), lookup }), 'https://hooks.example.com/in');
    expect(result.error).toBe(`blocked: host "hooks.example.com" resolves to ${named}; webhooks are sent only to public addresses`);
    expect(lookup.calls).toEqual(['hooks.example.com']);
  });

  it('connects to the address it checked, without a second lookup (DNS rebinding)', async () => {
    // Allowed by address, not by name; every later answer would be refused.
    const policy = new AddressPolicy({ allowHosts: '127.0.0.1' });
    const lookup = tableLookup({ [RECEIVER_TEST_HOST]: [['127.0.0.1'], ['10.0.0.1']] });
    const client = egress({ policy, lookup });
    const url = `https://${RECEIVER_TEST_HOST}:${receiver.port}/pinned`;
    const first = await post(client, url);
    expect(first).toMatchObject({ ok: true, status: 200, sourceIp: '127.0.0.1' });
    expect(lookup.calls).toHaveLength(1);
    expect(receiver.requests[0]?.headers.host).toBe(`${RECEIVER_TEST_HOST}:${receiver.port}`);
    // A new connection resolves again and checks the new answer.
    const second = await post(egress({ policy, lookup }), url);
    expect(second.error).toBe(`blocked: host "${RECEIVER_TEST_HOST}" resolves to 10.0.0.1, a private address; webhooks are sent only to public addresses`);
    expect(receiver.requests).toHaveLength(1);
  });
});

describe('HttpEgress: connections', () => {
  it('reuses keep-alive connections for sequential sends', async () => {
    const before = receiver.connections;
    const client = egress({ connectionsPerOrigin: 2 });
    for (let i = 0; i < 50; i++) {
      const result = await post(client, `${receiver.url}/seq/${i}`);
      expect(result.ok).toBe(true);
    }
    expect(receiver.requests).toHaveLength(50);
    expect(receiver.connections - before).toBeLessThanOrEqual(2);
    expect(new Set(receiver.requests.map((r) => r.connection)).size).toBeLessThanOrEqual(2);
  });

  it('opens at most connectionsPerOrigin connections for concurrent sends', async () => {
    receiver.respondWith({ delayMs: 50 });
    const before = receiver.connections;
    const client = egress({ connectionsPerOrigin: 3 });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => post(client, `${receiver.url}/par/${i}`)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(receiver.requests).toHaveLength(20);
    expect(receiver.connections - before).toBe(3);
  });

  it('a new endpoint on an origin reuses the connections its neighbours opened: no handshake of its own', async () => {
    const before = receiver.connections;
    const client = egress();
    for (let i = 1; i <= 6; i++) {
      expect((await client.send({ url: `${receiver.url}/n/${i}`, poolKey: `ep_${i}`, headers: HEADERS, body: '{}' })).ok).toBe(true);
    }
    // Six endpoints, one after another, on one or two connections (a send that follows an answer
    // at once may find its connection not yet put back, as 'reuses keep-alive connections' does).
    expect(receiver.connections - before).toBeLessThanOrEqual(2);
    expect(client.poolCount).toBe(1);
  });
});

describe('HttpEgress: TLS sessions', () => {
  // Each send on a connection of its own: the receiver closes those open, and the send waits
  // until the client has seen them go (endpoints share their origin's connections).
  const sendTo = async (client: HttpEgress, poolKey: string, { url = receiver.url, tls }: { url?: string; tls?: ClientTls } = {}) => {
    for (const r of [receiver, ...own]) r.closeConnections();
    await vi.waitFor(() => expect(client.connections).toBe(0));
    return client.send({ url: `${url}/s/${poolKey}`, poolKey, headers: HEADERS, body: '{}', ...(tls === undefined ? {} : { tls }) });
  };
  const resumed = (r: TestReceiver = receiver) => r.requests.map((request) => request.tlsResumed);
  // Receivers of the test's own, restarted on their port (with the same `ticketKeys`, one resumes
  // the sessions the one before gave); closed after the test.
  const own: TestReceiver[] = [];
  afterEach(async () => {
    await Promise.all(own.splice(0).map((r) => r.close()));
  });
  const ownReceiver = async (options: TestReceiverOptions = {}) => {
    const r = await TestReceiver.start(options);
    own.push(r);
    return r;
  };
  const restart = async (r: TestReceiver, options: TestReceiverOptions = {}) => {
    await r.close();
    return ownReceiver({ ...options, port: r.port });
  };

  it('resumes the session of a receiver it has talked to when it opens a new connection', async () => {
    const client = egress();
    for (const endpoint of ['ep_1', 'ep_2', 'ep_3']) expect((await sendTo(client, endpoint)).ok).toBe(true);
    expect(new Set(receiver.requests.map((r) => r.connection)).size).toBe(3);
    expect(resumed()).toEqual([false, true, true]);
  });

  it('resumes it after the receiver closed the connections (an idle timeout)', async () => {
    const client = egress();
    expect((await sendTo(client, 'ep_1')).ok).toBe(true);
    receiver.closeConnections();
    expect((await sendTo(client, 'ep_1')).ok).toBe(true);
    expect(new Set(receiver.requests.map((r) => r.connection)).size).toBe(2);
    expect(resumed()).toEqual([false, true]);
  });

  // Sessions are kept by name and port; a Node receiver also refuses a session made for another name (SNI).
  it('makes a full handshake for another name on the same receiver', async () => {
    const lookup = tableLookup({ localhost: [['127.0.0.1']], [RECEIVER_TEST_HOST]: [['127.0.0.1']] });
    const client = egress({ policy: new AddressPolicy({ allowHosts: '127.0.0.1' }), lookup });
    const other = `https://${RECEIVER_TEST_HOST}:${receiver.port}`;
    expect((await sendTo(client, 'ep_1')).ok).toBe(true);
    expect((await sendTo(client, 'ep_2', { url: other })).ok).toBe(true);
    expect((await sendTo(client, 'ep_3', { url: other })).ok).toBe(true);
    expect(resumed()).toEqual([false, false, true]);
  });

  it('never resumes a session made with another client certificate, or with none', async () => {
    const client = egress();
    const cert = await testClientCertificate();
    const mtls: ClientTls = { id: 'etls_1', cert: cert.certPem, key: cert.keyPem, ca: null };
    expect((await sendTo(client, 'ep_1')).ok).toBe(true);
    expect((await sendTo(client, 'ep_2', { tls: mtls })).ok).toBe(true);
    expect((await sendTo(client, 'ep_3', { tls: { ...mtls, id: 'etls_2' } })).ok).toBe(true);
    expect(resumed()).toEqual([false, false, false]);
  });

  it(`offers a session for ${MAX_TLS_SESSION_AGE_MS / 60_000} minutes from the full handshake, however often it was resumed since`, async () => {
    const clock = new ManualClock();
    const client = egress({ clock });
    expect((await sendTo(client, 'ep_1')).ok).toBe(true);
    clock.advance(MAX_TLS_SESSION_AGE_MS - 1);
    expect((await sendTo(client, 'ep_2')).ok).toBe(true); // resumed, a millisecond before the bound
    clock.advance(1);
    expect((await sendTo(client, 'ep_3')).ok).toBe(true); // a full handshake again
    expect((await sendTo(client, 'ep_4')).ok).toBe(true);
    expect(resumed()).toEqual([false, true, false, true]);
  });

  it('offers no session verified "after" now: a clock stepped back makes a full handshake', async () => {
    const clock = new ManualClock();
    clock.set(Date.UTC(2026, 10, 30, 12));
    const client = egress({ clock });
    expect((await sendTo(client, 'ep_1')).ok).toBe(true);
    clock.set(Date.UTC(2026, 10, 30, 12) - 1);
    expect((await sendTo(client, 'ep_2')).ok).toBe(true);
    expect((await sendTo(client, 'ep_3')).ok).toBe(true);
    expect(resumed()).toEqual([false, false, true]);
  });

  it('keeps the session when a connection is refused before TLS (the receiver restarting), and resumes it after', async () => {
    const ticketKeys = randomBytes(48);
    const client = egress();
    const r = await ownReceiver({ ticketKeys });
    expect((await sendTo(client, 'ep_1', { url: r.url })).ok).toBe(true);
    await r.close();
    expect((await sendTo(client, 'ep_2', { url: r.url })).error).toMatch(/^connection: ECONNREFUSED\b/);
    const back = await ownReceiver({ port: r.port, ticketKeys });
    expect((await sendTo(client, 'ep_3', { url: back.url })).ok).toBe(true);
    expect(resumed(back)).toEqual([true]);
  });

  it('forgets a session whose handshake failed: the receiver behind the name changed', async () => {
    const ticketKeys = randomBytes(48);
    const client = egress();
    const first = await ownReceiver({ ticketKeys });
    expect((await sendTo(client, 'ep_1', { url: first.url })).ok).toBe(true);
    // Another server on the port: new ticket keys (the offer refused), a certificate not trusted.
    const other = await restart(first, { certificate: await untrustedCertificate() });
    expect((await sendTo(client, 'ep_2', { url: other.url })).error).toMatch(/^tls: /);
    // The first one back: it would resume the session, had it been offered.
    const back = await restart(other, { ticketKeys });
    expect((await sendTo(client, 'ep_3', { url: back.url })).ok).toBe(true);
    expect(resumed(back)).toEqual([false]);
  });

  it('dates the tickets of a full handshake made after its offer was refused from that handshake', async () => {
    const clock = new ManualClock();
    const client = egress({ clock });
    const first = await ownReceiver();
    expect((await sendTo(client, 'ep_1', { url: first.url })).ok).toBe(true);
    clock.advance(MAX_TLS_SESSION_AGE_MS - 60_000);
    const r = await restart(first); // new ticket keys: the offer is refused
    expect((await sendTo(client, 'ep_2', { url: r.url })).ok).toBe(true);
    clock.advance(120_000); // past the hour since the first handshake, two minutes after the second
    expect((await sendTo(client, 'ep_3', { url: r.url })).ok).toBe(true);
    expect(resumed(r)).toEqual([false, true]);
  });

  it('resumes across a receiver’s restart with the same ticket keys, and makes a full handshake with new ones', async () => {
    const ticketKeys = randomBytes(48);
    const client = egress();
    const first = await ownReceiver({ ticketKeys });
    expect((await sendTo(client, 'ep_1', { url: first.url })).ok).toBe(true);
    const same = await restart(first, { ticketKeys });
    expect((await sendTo(client, 'ep_2', { url: same.url })).ok).toBe(true);
    expect(resumed(same)).toEqual([true]);
    const renewed = await restart(same);
    // The session it offers is refused: a full handshake, and the send goes through.
    expect((await sendTo(client, 'ep_3', { url: renewed.url })).ok).toBe(true);
    expect((await sendTo(client, 'ep_4', { url: renewed.url })).ok).toBe(true);
    expect(resumed(renewed)).toEqual([false, true]);
  });
});

describe('TlsSessions', () => {
  it(`keeps a session of ${MAX_TLS_SESSION_BYTES} bytes, not one of ${MAX_TLS_SESSION_BYTES + 1}`, () => {
    const sessions = new TlsSessions(new ManualClock());
    sessions.keep('a:443', Buffer.alloc(MAX_TLS_SESSION_BYTES));
    sessions.keep('b:443', Buffer.alloc(MAX_TLS_SESSION_BYTES + 1));
    expect(sessions.offer('a:443')?.session.length).toBe(MAX_TLS_SESSION_BYTES);
    expect(sessions.offer('b:443')).toBeUndefined();
  });

  it('dates a ticket from a resumed connection from the full handshake it descends from', () => {
    const clock = new ManualClock();
    const sessions = new TlsSessions(clock);
    sessions.keep('a:443', Buffer.from('first'));
    clock.advance(MAX_TLS_SESSION_AGE_MS - 1);
    sessions.keep('a:443', Buffer.from('second'), sessions.offer('a:443'));
    expect(sessions.offer('a:443')?.session.toString()).toBe('second');
    clock.advance(1);
    expect(sessions.offer('a:443')).toBeUndefined();
  });

  it('keeps the 1,000 receivers connected to last', () => {
    const sessions = new TlsSessions(new ManualClock());
    for (let i = 0; i < 1_000; i++) sessions.keep(`r${i}:443`, Buffer.alloc(16));
    expect(sessions.offer('r0:443')).toBeDefined(); // used: now the most recent
    sessions.keep('r1000:443', Buffer.alloc(16));
    expect(sessions.size).toBe(1_000);
    expect(sessions.offer('r1:443')).toBeUndefined();
    expect(sessions.offer('r0:443')).toBeDefined();
  });

  it('drops a failed offer only while it is still the one kept', () => {
    const sessions = new TlsSessions(new ManualClock());
    sessions.keep('a:443', Buffer.from('first'));
    const offered = sessions.offer('a:443')!;
    sessions.keep('a:443', Buffer.from('newer')); // another connection's ticket, meanwhile
    sessions.drop('a:443', offered);
    expect(sessions.offer('a:443')?.session.toString()).toBe('newer');
    sessions.drop('a:443', sessions.offer('a:443')!);
    expect(sessions.offer('a:443')).toBeUndefined();
  });
});

describe('HttpEgress: the attempt limit counts from when the request is written', () => {
  it('a request queued behind a busy connection is not charged for the wait', async () => {
    receiver.respondWith({ delayMs: 400 });
    const client = egress({ connectionsPerOrigin: 1, timeoutMs: 600 });
    // The second waits ~400 ms for the one connection, then takes ~400 ms: 800 ms in all.
    const results = await Promise.all([post(client, `${receiver.url}/first`), post(client, `${receiver.url}/second`)]);
    expect(results.map((r) => r.ok)).toEqual([true, true]);
    expect(results[1]!.durationMs).toBeGreaterThan(600);
  });

  it('a wait for a connection is bounded too, and named as such', async () => {
    receiver.respondWith({ hang: true });
    const client = egress({ connectionsPerOrigin: 1, timeoutMs: 300 });
    const [first, second] = await Promise.all([post(client, `${receiver.url}/hangs`), post(client, `${receiver.url}/queued`)]);
    expect(first.error).toBe('timeout: no response within 0.3 s');
    expect(second.error).toBe('timeout: no connection within 0.3 s');
    expect(receiver.requests.map((r) => r.path)).toEqual(['/hangs']);
  });

  it('endpoints on one origin each have their own share of its connections: one that hangs does not time the other out', async () => {
    receiver.respondWith((req) => (req.path === '/stuck' ? { hang: true } : {}));
    const before = receiver.connections;
    const client = egress({ connectionsPerOrigin: 1, timeoutMs: 500 });
    const stuck = client.send({ url: `${receiver.url}/stuck`, poolKey: 'ep_stuck', headers: HEADERS, body: '{}' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const healthy = await client.send({ url: `${receiver.url}/healthy`, poolKey: 'ep_healthy', headers: HEADERS, body: '{}' });
    expect(healthy).toMatchObject({ ok: true, status: 200 });
    expect(healthy.durationMs).toBeLessThan(400);
    expect((await stuck).error).toBe('timeout: no response within 0.5 s');
    // One pool for the origin, which opened a second connection for the second endpoint.
    expect(client.poolCount).toBe(1);
    expect(receiver.connections - before).toBe(2);
  });

  it("a new endpoint on an origin is not held behind another's first connection, still being made (no HTTP/2 probe)", async () => {
    // The first connection's lookup is held until the second endpoint's send has its answer: a
    // pool that queued the second request behind that connection (undici's HTTP/2 probe,
    // allowH2) would wait here until the test timed out.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let lookups = 0;
    const lookup: LookupFn = async () => {
      if (lookups++ === 0) await held;
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const client = egress({ policy: new AddressPolicy({ allowHosts: '127.0.0.1' }), lookup });
    const url = (path: string) => `https://${RECEIVER_TEST_HOST}:${receiver.port}${path}`;
    const first = client.send({ url: url('/first'), poolKey: 'ep_first', headers: HEADERS, body: '{}' });
    await vi.waitFor(() => expect(lookups).toBe(1));
    const second = await client.send({ url: url('/second'), poolKey: 'ep_second', headers: HEADERS, body: '{}' });
    expect(second).toMatchObject({ ok: true, status: 200 });
    release();
    expect(await first).toMatchObject({ ok: true, status: 200 });
    expect(client.poolCount).toBe(1);
  });

  it('close() waits for the sends in flight, those waiting for a slot included; a send after it is refused as data', async () => {
    receiver.respondWith({ delayMs: 100 });
    const client = new HttpEgress({ policy: allowLocalhost, ca: receiver.caPem, connectionsPerOrigin: 1 });
    const sends = [post(client, `${receiver.url}/first`), post(client, `${receiver.url}/waited`)];
    // Twice: the second call waits for the first's work.
    await Promise.all([client.close(), client.close()]);
    expect((await Promise.all(sends)).map((r) => r.ok)).toEqual([true, true]);
    expect(receiver.requests.map((r) => r.path)).toEqual(['/first', '/waited']);
    expect(await post(client, `${receiver.url}/late`)).toMatchObject({ ok: false, status: null, error: 'connection: the egress client is closed' });
  });

  it('an endpoint waits for its own slots, not for its neighbours’', async () => {
    receiver.respondWith((req) => (req.path === '/busy/1' ? { hang: true } : {}));
    const client = egress({ connectionsPerOrigin: 1, timeoutMs: 500 });
    const send = (poolKey: string, path: string) => client.send({ url: `${receiver.url}${path}`, poolKey, headers: HEADERS, body: '{}' });
    const [first, second, other] = await Promise.all([send('ep_busy', '/busy/1'), send('ep_busy', '/busy/2'), send('ep_other', '/other')]);
    expect(first.error).toBe('timeout: no response within 0.5 s');
    // Its one slot taken: the busy endpoint's second send waited, and was never written.
    expect(second.error).toBe('timeout: no connection within 0.5 s');
    expect(other).toMatchObject({ ok: true, status: 200 });
    expect(receiver.requests.map((r) => r.path).sort()).toEqual(['/busy/1', '/other']);
  });
});

describe('HttpEgress: caller errors', () => {
  it('throws a TypeError for a URL it cannot send to', async () => {
    const client = egress();
    await expect(client.send({ url: 'not a url', headers: {}, body: '' })).rejects.toThrow(TypeError);
    await expect(client.send({ url: 'ftp://localhost/', headers: {}, body: '' })).rejects.toThrow(/not http\(s\)/);
  });

  it('refuses bad options', () => {
    expect(() => new HttpEgress({ policy: allowLocalhost, timeoutMs: 0 })).toThrow(RangeError);
    expect(() => new HttpEgress({ policy: allowLocalhost, connectionsPerOrigin: 0 })).toThrow(RangeError);
    expect(() => new HttpEgress({ policy: allowLocalhost, responseHeadBytes: -1 })).toThrow(RangeError);
  });
});
