// Recovery, the egress relay, the portal and alerting in cluster mode, each its own process. Recovery: the gateway starts it over gRPC,
// the recovery process drives it as dispatch jobs on JetStream; SIGKILLed mid-way and
// restarted, it carries on after the dead run's lease, and every failed delivery is re-sent
// exactly once with its webhook-id. Relay: a fixed_ip endpoint's webhooks leave from the
// relay process's pool address (the local cluster's default, 127.0.0.2); killed, its
// sends fail as the relay's fault and the endpoint is not blamed; the gateway lists that
// address (GET /v1/egress-ips). Portal: its service serves
// the page and token API for the links the gateway makes.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually, verifyWebhook } from '@wirehook/testkit';
import { startClusterHarness, type ClusterHarness } from '../support/cluster-harness.ts';
import { startReceiver, type NamedReceiver } from '../support/receivers.ts';

let h: ClusterHarness;
let rx: NamedReceiver;

beforeAll(async () => {
  h = await startClusterHarness({ dispatchers: 1 });
  rx = await startReceiver();
}, 180_000); // a loaded CI machine starts ten processes slowly
afterAll(async () => {
  await h?.close();
  await rx?.receiver.close();
});

it('120 failed deliveries re-sent once each, paced, through a SIGKILL of the recovery process; ends done', async () => {
  const t = await h.tenant();
  const consumerId = (await t.api.post('/v1/consumers', { external_id: 'c' })).body.id;
  const endpoint = (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url(), retry: { count: 0, interval: '1m' } })).body.id;
  rx.receiver.respondWith({ status: 503 });
  const since = h.clock.now();
  const ids: string[] = [];
  for (let i = 0; i < 120; i++) ids.push((await t.api.post('/v1/messages', { consumer: 'c', event_type: 'a.b', payload: { i } })).body.id);
  await eventually(
    async () => {
      for (const id of ids) expect((await t.api.get(`/v1/messages/${id}`)).body.status).toBe('failed');
    },
    60_000,
    250,
  );
  rx.receiver.respondWith({});
  rx.receiver.clear();
  const received = () => rx.receiver.requests.filter((r) => ids.includes(r.headers['webhook-id']!));

  const started = await t.api.post(`/v1/endpoints/${endpoint}/recover`, { since });
  expect(started.status).toBe(202);
  expect(started.body).toMatchObject({ status: 'running', total: 120 });
  const rid = started.body.id;
  await eventually(() => expect(received()).toHaveLength(50), 30_000, 100);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(received()).toHaveLength(50); // the next 50 wait for the clock's 10 s

  // The process driving it dies with its lease; a new one takes over once the lease is out.
  await h.cluster.kill('recovery', 'SIGKILL');
  await h.cluster.restart('recovery');
  await h.advance(10_000);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(received()).toHaveLength(50);
  await h.advance(60_000);
  await eventually(() => expect(received()).toHaveLength(100), 30_000, 100);
  await eventually(
    async () => {
      for (const id of ids.slice(0, 100)) expect((await t.api.get(`/v1/messages/${id}`)).body.status).toBe('success');
    },
    30_000,
    250,
  );
  await h.advance(10_000);
  await eventually(() => expect(received()).toHaveLength(120), 30_000, 100);
  await eventually(
    async () => expect((await t.api.get(`/v1/endpoints/${endpoint}/recoveries/${rid}`)).body).toMatchObject({ status: 'done', queued: 120 }),
    30_000,
    200,
  );
  for (const id of ids) expect(received().filter((r) => r.headers['webhook-id'] === id)).toHaveLength(1);
}, 180_000);

it('fixed_ip: sent by the egress relay process from the pool address; relay down: a relay error, the endpoint not blamed', async () => {
  const t = await h.tenant();
  const consumerId = (await t.api.post('/v1/consumers', { external_id: 'fixed' })).body.id;
  const endpoint = (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url(), fixed_ip: true })).body.id;
  const send = async () => (await t.api.post('/v1/messages', { consumer: 'fixed', event_type: 'a.b', payload: {} })).body.id as string;
  const id = await send();
  await eventually(() => expect(rx.receiver.requests.filter((r) => r.headers['webhook-id'] === id)).toHaveLength(1), 30_000, 100);
  expect(rx.receiver.requests.find((r) => r.headers['webhook-id'] === id)!.remoteAddress).toBe('127.0.0.2');
  // The receiver has the request before the dispatcher records the attempt (after the response).
  await eventually(
    async () => {
      const attempt = (await t.api.get(`/v1/messages/${id}`)).body.deliveries[0].attempts[0];
      expect(attempt).toMatchObject({ via: 'relay', source_ip: '127.0.0.2', response_status: 200 });
    },
    30_000,
    100,
  );
  // The gateway process lists the pool the relay process sent from, to any key.
  const anyKey = await h.key(t.orgId, { scopes: ['messages:send'] });
  expect((await anyKey.api.get('/v1/egress-ips')).body).toEqual({ items: [{ ip: '127.0.0.2', family: 4, retiring_at: null }] });

  await h.cluster.kill('egress-relay', 'SIGKILL');
  const failing = await send();
  await eventually(async () => expect((await t.api.get(`/v1/messages/${failing}`)).body.deliveries[0].attempts.length).toBeGreaterThan(0), 30_000, 200);
  const failed = (await t.api.get(`/v1/messages/${failing}`)).body.deliveries[0];
  expect(failed.status).toBe('retrying');
  expect(failed.attempts[0]).toMatchObject({ via: 'relay', source_ip: null, error: expect.stringMatching(/^relay: unreachable at 127\.0\.0\.1:\d+/) });
  expect((await t.api.get(`/v1/endpoints/${endpoint}`)).body).toMatchObject({ status: 'active', failing_since: null });

  // Back up: a retry goes out from the pool. Until the dispatcher has reconnected (its backoff
  // is at most 2 s, longer on a busy machine) a retry may still fail as relay-unreachable: each
  // poll moves the clock to the delivery's next attempt, so the retries go on until one is sent.
  await h.cluster.restart('egress-relay');
  await eventually(
    async () => {
      const delivery = (await t.api.get(`/v1/messages/${failing}`)).body.deliveries[0];
      if (delivery.next_attempt_at !== null && delivery.next_attempt_at > h.clock.now()) await h.advance(delivery.next_attempt_at - h.clock.now());
      expect(
        rx.receiver.requests.filter((r) => r.headers['webhook-id'] === failing),
        JSON.stringify(delivery.attempts),
      ).toHaveLength(1);
    },
    60_000,
    500,
  );
  expect(rx.receiver.requests.find((r) => r.headers['webhook-id'] === failing)!.remoteAddress).toBe('127.0.0.2');
}, 120_000);

it('the portal service serves the page and its token API for links the gateway makes', async () => {
  const t = await h.tenant({ plan: 'starter' });
  const consumerId = (await t.api.post('/v1/consumers', { external_id: 'portal' })).body.id;
  const made = await t.api.post(`/v1/consumers/${consumerId}/portal`, { frame_origin: 'https://dash.example.com', locale: 'en' });
  expect(made.status).toBe(201);
  const spec = h.cluster.specs.find((s) => s.name === 'portal')!;
  const base = `http://127.0.0.1:${spec.env['PORT']}`;
  // The link names the portal's public URL (the launcher points PORTAL_PUBLIC_URL at the portal's port).
  expect(made.body.url).toMatch(new RegExp(`^http://localhost:${spec.env['PORT']}/l/pt_`));
  const token = (made.body.url as string).split('/l/')[1]!;
  const page = await fetch(`${base}/l/${token}`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-security-policy')).toContain('frame-ancestors https://dash.example.com');
  const session = await fetch(`${base}/api/session`, { headers: { authorization: `Bearer ${token}` } });
  expect(await session.json()).toMatchObject({ consumer: { id: consumerId }, locale: 'en' });
  expect((await fetch(`http://127.0.0.1:${spec.metricsPort}/readyz`)).status).toBe(200);
});

it('the alerting service sends a failure notice, signed, to the organization’s webhook target', async () => {
  const t = await h.tenant();
  await t.api.put('/v1/alert-conditions', { delivery_failure: 'first' });
  const alerts = await startReceiver();
  try {
    const target = await t.api.post('/v1/alert-targets', { type: 'webhook', url: alerts.url('/alerts') });
    expect(target.status).toBe(201);
    const consumerId = (await t.api.post('/v1/consumers', { external_id: 'alerted' })).body.id;
    const endpoint = (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url('/alerted'), retry: { count: 0, interval: '1m' } })).body.id;
    rx.receiver.respondWith({ status: 500 });
    await t.api.post('/v1/messages', { consumer: 'alerted', event_type: 'a.b', payload: {} });
    await eventually(() => expect(alerts.receiver.requests).toHaveLength(1), 30_000, 200);
    rx.receiver.respondWith({});
    const body = verifyWebhook(target.body.secret, alerts.receiver.requests[0]!) as { type: string; data: { endpoints: { id: string }[] } };
    expect(body.type).toBe('alert.delivery_failure');
    expect(body.data.endpoints.map((e) => e.id)).toEqual([endpoint]);
  } finally {
    await alerts.receiver.close();
  }
});
