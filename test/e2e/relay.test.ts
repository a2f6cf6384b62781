// fixed_ip endpoints through the egress relay (in-process in embedded mode): each request
// leaves from the endpoint's pool address — the receiver on 127.0.0.N sees which, since
// loopback is a /8 — and the attempt says `via: relay` with that `source_ip`; other endpoints
// go direct. Without a pool, fixed_ip sends fail as the relay's fault: retried, and never
// counted toward the endpoint's automatic stop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISABLE_AFTER_MS } from '@wirehook/core';
import { createLogger } from '@wirehook/platform';
import { eventually, jsonLines, readMetric, testCa, testClientCertificate } from '@wirehook/testkit';
import { sourcesFor } from '@wirehook/egress-relay';
import { startWirehook, type Harness } from '../support/harness.ts';
import { startReceiver, TEST_ALLOW_HOSTS, TEST_RESOLVE, type NamedReceiver } from '../support/receivers.ts';
import { TokenServer } from '../support/token-server.ts';

const HOUR = 3_600_000;

const POOL = { v4: ['127.0.0.2', '127.0.0.3'], v6: [] };
let rx: NamedReceiver;
let ca: string;
beforeAll(async () => {
  ca = (await testCa()).caPem;
  rx = await startReceiver();
});
afterAll(() => rx.receiver.close());

async function setUp(wh: Harness, fixedIp: boolean, url = rx.url()) {
  const t = await wh.tenant();
  const consumer = `c-${Math.random().toString(36).slice(2)}`;
  const consumerId = (await t.api.post('/v1/consumers', { external_id: consumer })).body.id;
  const endpoint = (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url, fixed_ip: fixedIp })).body;
  expect(endpoint.fixed_ip).toBe(fixedIp);
  const send = async () => (await t.api.post('/v1/messages', { consumer, event_type: 'a.b', payload: {} })).body.id as string;
  return { t, endpoint, send, consumer };
}

describe('with RELAY_SOURCE_IPS=127.0.0.2,127.0.0.3', () => {
  let wh: Harness;
  beforeAll(async () => {
    // ::1 allowed: an IPv6-only destination, which this IPv4-only pool cannot send to.
    wh = await startWirehook({ allowHosts: `${TEST_ALLOW_HOSTS},::1`, resolve: TEST_RESOLVE, ca, relaySourceIps: POOL.v4.join(',') });
  });
  afterAll(() => wh.close());
  const metric = (name: string, labels: Record<string, string>) => readMetric(wh.embedded.metricsUrl(), name, labels);

  it('each fixed_ip endpoint sends from its own pool address, every time; the attempt records via relay and that source', async () => {
    // Endpoints until both pool addresses are someone's (the choice is a hash of the endpoint id).
    const endpoints: Awaited<ReturnType<typeof setUp>>[] = [];
    while (new Set(endpoints.map((e) => sourcesFor(POOL, e.endpoint.id).v4)).size < 2) endpoints.push(await setUp(wh, true));
    const sentFrom = async (ip: string) => metric('wirehook_relay_sends_total', { source_ip: ip, outcome: 'success' });
    const before = {
      relayed: await metric('wirehook_delivery_attempts_total', { via: 'relay', outcome: 'success' }),
      v2: await sentFrom('127.0.0.2'),
      v3: await sentFrom('127.0.0.3'),
    };
    for (const e of endpoints) {
      const expected = sourcesFor(POOL, e.endpoint.id).v4!;
      const ids = [await e.send(), await e.send(), await e.send()];
      await eventually(() => expect(rx.receiver.requests.filter((r) => ids.includes(r.headers['webhook-id']!))).toHaveLength(3));
      for (const r of rx.receiver.requests.filter((q) => ids.includes(q.headers['webhook-id']!))) expect(r.remoteAddress).toBe(expected);
      // Received is not yet recorded: the attempt is written after the receiver's answer.
      await eventually(async () =>
        expect((await e.t.api.get(`/v1/messages/${ids[0]}`)).body.deliveries[0].attempts[0]).toMatchObject({
          via: 'relay',
          source_ip: expected,
          response_status: 200,
        }),
      );
    }
    // /metrics: the attempts by via, and the relay's sends by source address.
    const from = (ip: string) => 3 * endpoints.filter((e) => sourcesFor(POOL, e.endpoint.id).v4 === ip).length;
    await eventually(async () =>
      expect(await metric('wirehook_delivery_attempts_total', { via: 'relay', outcome: 'success' })).toBe(before.relayed + 3 * endpoints.length),
    );
    expect(await sentFrom('127.0.0.2')).toBe(before.v2 + from('127.0.0.2'));
    expect(await sentFrom('127.0.0.3')).toBe(before.v3 + from('127.0.0.3'));
  });

  it('relay faults leave a running failure streak as it is: they neither push it to the automatic stop nor clear it', async () => {
    const failing = await startReceiver();
    failing.receiver.respondWith({ status: 500 });
    try {
      const e = await setUp(wh, true, failing.url());
      const first = await e.send();
      await eventually(async () => expect((await e.t.api.get(`/v1/endpoints/${e.endpoint.id}`)).body.failing_since).not.toBeNull());
      const since = (await e.t.api.get(`/v1/endpoints/${e.endpoint.id}`)).body.failing_since as number;
      expect((await e.t.api.get(`/v1/messages/${first}`)).body.deliveries[0].attempts[0]).toMatchObject({ via: 'relay', error: 'http_status: 500' });

      // The endpoint moves to an IPv6-only address the pool has no source for: every attempt is a relay fault.
      expect((await e.t.api.patch(`/v1/endpoints/${e.endpoint.id}`, { url: 'https://[::1]:8443/hook' })).status).toBe(200);
      const relayFaults = await metric('wirehook_delivery_attempts_total', { via: 'relay', outcome: 'relay' });
      await wh.advance(DISABLE_AFTER_MS + HOUR);
      const late = await e.send();
      await eventually(async () => expect((await e.t.api.get(`/v1/messages/${late}`)).body.deliveries[0].attempts).toHaveLength(1));
      expect((await e.t.api.get(`/v1/messages/${late}`)).body.deliveries[0]).toMatchObject({
        status: 'retrying',
        attempts: [{ via: 'relay', source_ip: null, error: 'relay: no source address for ::1 (IPv6 only; RELAY_SOURCE_IPS has none of that family)' }],
      });
      expect(await metric('wirehook_delivery_attempts_total', { via: 'relay', outcome: 'relay' })).toBeGreaterThan(relayFaults);
      // More than five days into the streak, and still running: the relay's faults did not count.
      expect((await e.t.api.get(`/v1/endpoints/${e.endpoint.id}`)).body).toMatchObject({ status: 'active', failing_since: since });

      // Back at the failing receiver, the endpoint's own next failure ends it: the streak was kept, not cleared.
      expect((await e.t.api.patch(`/v1/endpoints/${e.endpoint.id}`, { url: failing.url() })).status).toBe(200);
      await e.send();
      await eventually(async () =>
        expect((await e.t.api.get(`/v1/endpoints/${e.endpoint.id}`)).body).toMatchObject({ status: 'disabled', failing_since: since }),
      );
    } finally {
      await failing.receiver.close();
    }
  });

  // 200 characters (the spec's longest ordering_key) of 3-byte UTF-8 percent-encode to
  // 1,800; the relay refused more than 600, a relay error blocking the lane for the whole policy.
  it('an ordered fixed_ip endpoint delivers the longest non-ASCII ordering_key (200 × €, a 1,800-character header) through the relay', async () => {
    const e = await setUp(wh, true);
    expect((await e.t.api.patch(`/v1/endpoints/${e.endpoint.id}`, { ordering: 'key' })).status).toBe(200);
    const key = '€'.repeat(200);
    const sent = await e.t.api.post('/v1/messages', { consumer: e.consumer, event_type: 'a.b', payload: {}, ordering_key: key });
    expect(sent.status).toBe(202);
    const id = sent.body.id as string;
    await eventually(() => expect(rx.receiver.requests.filter((r) => r.headers['webhook-id'] === id)).toHaveLength(1));
    const request = rx.receiver.requests.find((r) => r.headers['webhook-id'] === id)!;
    expect(request.headers['webhook-ordering-key']).toHaveLength(1_800);
    expect(decodeURIComponent(request.headers['webhook-ordering-key']!)).toBe(key);
    await eventually(async () =>
      expect((await e.t.api.get(`/v1/messages/${id}`)).body.deliveries[0]).toMatchObject({
        status: 'success',
        attempts: [{ via: 'relay', response_status: 200 }],
      }),
    );
  });

  it('a fixed_ip endpoint’s custom headers (Authorization among them) go through the relay as set, beside its compat signature', async () => {
    const e = await setUp(wh, true);
    const patch = {
      headers: { 'X-Gateway-Key': 'relay-key-0042', Authorization: 'Bearer relay-token-77', 'X-Tenant': 'acme' },
      compat_signature: { header: 'X-Partner-Signature', content: 'body', encoding: 'hex' },
    };
    expect((await e.t.api.patch(`/v1/endpoints/${e.endpoint.id}`, patch)).status).toBe(200);
    const sent = await e.t.api.post('/v1/messages', { consumer: e.consumer, event_type: 'a.b', payload: {} });
    const id = sent.body.id as string;
    await eventually(() => expect(rx.receiver.requests.filter((r) => r.headers['webhook-id'] === id)).toHaveLength(1));
    expect(rx.receiver.requests.find((r) => r.headers['webhook-id'] === id)!.headers).toMatchObject({
      'x-gateway-key': 'relay-key-0042',
      authorization: 'Bearer relay-token-77',
      'x-tenant': 'acme',
      'x-partner-signature': expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    await eventually(async () =>
      expect((await e.t.api.get(`/v1/messages/${id}`)).body.deliveries[0]).toMatchObject({ attempts: [{ via: 'relay', response_status: 200 }] }),
    );
  });

  it('a fixed_ip endpoint’s client certificate is presented through the relay (refused as tls without it)', async () => {
    const mutual = await startReceiver({ clientCa: (await testCa()).caPem });
    try {
      const e = await setUp(wh, true, mutual.url());
      const refused = await e.send();
      await eventually(async () =>
        expect((await e.t.api.get(`/v1/messages/${refused}`)).body.deliveries[0].attempts).toEqual([
          expect.objectContaining({ via: 'relay', error: expect.stringMatching(/^tls: /) }),
        ]),
      );
      const { certPem, keyPem } = await testClientCertificate();
      expect((await e.t.api.patch(`/v1/endpoints/${e.endpoint.id}`, { tls: { client_certificate: certPem, client_key: keyPem } })).status).toBe(200);
      const id = await e.send();
      await eventually(() => expect(mutual.receiver.requests.filter((r) => r.headers['webhook-id'] === id)).toHaveLength(1));
      await eventually(async () =>
        expect((await e.t.api.get(`/v1/messages/${id}`)).body.deliveries[0]).toMatchObject({ attempts: [{ via: 'relay', response_status: 200 }] }),
      );
    } finally {
      await mutual.receiver.close();
    }
  });

  it('a fixed_ip endpoint’s OAuth token is fetched through the relay from its pool address, with its client certificate on the same host', async () => {
    // One host requiring a client certificate serves both the token endpoint and the webhook path.
    const tokens = await TokenServer.start({ on: await startReceiver({ clientCa: (await testCa()).caPem }), method: 'client_secret_post' });
    tokens.otherwise = tokens.requireBearer({ status: 204 });
    try {
      const e = await setUp(wh, true, tokens.named.url('/hook'));
      const { certPem, keyPem } = await testClientCertificate();
      const patch = { tls: { client_certificate: certPem, client_key: keyPem }, auth: tokens.auth() };
      expect((await e.t.api.patch(`/v1/endpoints/${e.endpoint.id}`, patch)).status).toBe(200);
      const id = await e.send();
      const webhooks = () => tokens.named.receiver.requests.filter((r) => r.headers['webhook-id'] === id);
      await eventually(() => expect(webhooks()).toHaveLength(1));
      const from = sourcesFor(POOL, e.endpoint.id).v4;
      expect(tokens.requests).toHaveLength(1);
      expect(tokens.requests[0]!.remoteAddress).toBe(from);
      expect(webhooks()[0]).toMatchObject({ remoteAddress: from, headers: { authorization: `Bearer ${tokens.issued[0]!.token}` } });
      await eventually(async () =>
        expect((await e.t.api.get(`/v1/messages/${id}`)).body.deliveries[0]).toMatchObject({ attempts: [{ via: 'relay', response_status: 204 }] }),
      );
    } finally {
      await tokens.close();
    }
  });

  it('an endpoint without fixed_ip goes direct, from the host’s own address', async () => {
    const e = await setUp(wh, false);
    const id = await e.send();
    await eventually(() => expect(rx.receiver.requests.filter((r) => r.headers['webhook-id'] === id)).toHaveLength(1));
    const request = rx.receiver.requests.find((r) => r.headers['webhook-id'] === id)!;
    expect(POOL.v4).not.toContain(request.remoteAddress);
    await eventually(async () =>
      expect((await e.t.api.get(`/v1/messages/${id}`)).body.deliveries[0].attempts[0]).toMatchObject({ via: 'direct', source_ip: request.remoteAddress }),
    );
  });
});

describe('without RELAY_SOURCE_IPS', () => {
  let wh: Harness;
  beforeAll(async () => {
    wh = await startWirehook({ allowHosts: TEST_ALLOW_HOSTS, resolve: TEST_RESOLVE, ca });
  });
  afterAll(() => wh.close());

  it('a fixed_ip send is never made directly: it fails as the relay’s fault, is retried, and does not start the endpoint’s failure streak', async () => {
    const e = await setUp(wh, true);
    const before = rx.receiver.requests.length;
    const id = await e.send();
    await eventually(async () => expect((await e.t.api.get(`/v1/messages/${id}`)).body.deliveries[0].attempts).toHaveLength(1));
    const detail = (await e.t.api.get(`/v1/messages/${id}`)).body;
    expect(detail.deliveries[0]).toMatchObject({ status: 'retrying' });
    expect(detail.deliveries[0].attempts[0]).toMatchObject({
      via: 'relay',
      source_ip: null,
      response_status: null,
      error: 'relay: no source address configured (RELAY_SOURCE_IPS is empty)',
    });
    expect(rx.receiver.requests.length).toBe(before); // nothing left from another address
    const endpoint = (await e.t.api.get(`/v1/endpoints/${e.endpoint.id}`)).body;
    expect(endpoint).toMatchObject({ status: 'active', failing_since: null });
    // Six days of relay failures later, still not stopped: the customer is not at fault.
    // Each day's attempt recorded before the clock moves again: a claim answered after a later
    // move is out of its lease, and put back a lease later than that move (never tried here).
    for (let day = 1; day <= 7; day++) {
      await wh.advance(24 * 3_600_000);
      await eventually(async () => expect((await e.t.api.get(`/v1/messages/${id}`)).body.deliveries[0].attempts).toHaveLength(1 + day));
    }
    expect((await e.t.api.get(`/v1/endpoints/${e.endpoint.id}`)).body).toMatchObject({ status: 'active', failing_since: null });
  });
});

describe('with a pool address this host does not have', () => {
  it('warns at start, naming it; its sends fail as the relay’s fault', async () => {
    const { destination: out, lines } = jsonLines();
    const logger = createLogger({ name: 'wirehook', instance: 'test-1', level: 'info', format: 'json', destination: out });
    const wh = await startWirehook({ allowHosts: TEST_ALLOW_HOSTS, resolve: TEST_RESOLVE, ca, relaySourceIps: '203.0.113.7', logger });
    try {
      await eventually(() =>
        expect(lines.find((l) => l['level'] === 40 && String(l['msg']).startsWith('RELAY_SOURCE_IPS'))).toMatchObject({ missing: ['203.0.113.7'] }),
      );
      const e = await setUp(wh, true);
      const id = await e.send();
      await eventually(async () => expect((await e.t.api.get(`/v1/messages/${id}`)).body.deliveries[0].attempts).toHaveLength(1));
      expect((await e.t.api.get(`/v1/messages/${id}`)).body.deliveries[0].attempts[0].error).toMatch(
        /^relay: cannot send from 203\.0\.113\.7: not an address of this host/,
      );
      expect((await e.t.api.get(`/v1/endpoints/${e.endpoint.id}`)).body).toMatchObject({ failing_since: null });
    } finally {
      await wh.close();
    }
  });
});
