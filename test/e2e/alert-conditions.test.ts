// GET/PUT /v1/alert-conditions: defaults, partial updates, one set per environment of an
// organization (a test key cannot mute live alerting: the live endpoint stopped after 5 days
// still notifies), input refused with the field named, scopes. And /v1/alert-targets, per environment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@wirehook/testkit';
import { startWirehook, type Harness } from '../support/harness.ts';
import { reachingReceivers, startReceiver } from '../support/receivers.ts';

let wh: Harness;
beforeAll(async () => {
  wh = await startWirehook();
});
afterAll(() => wh.close());

describe('/v1/alert-conditions', () => {
  it('defaults; a partial PUT changes only what it names; each environment has its own', async () => {
    const t = await wh.tenant();
    expect((await t.api.get('/v1/alert-conditions')).body).toEqual({ delivery_failure: '60m', automatic_stop: true, pending_retries: 1000, usage: 80 });
    const put = await t.api.put('/v1/alert-conditions', { delivery_failure: '5m' });
    expect(put).toMatchObject({ status: 200, body: { delivery_failure: '5m', automatic_stop: true, pending_retries: 1000, usage: 80 } });
    await t.api.put('/v1/alert-conditions', { usage: 100, automatic_stop: false });
    expect((await t.api.get('/v1/alert-conditions')).body).toEqual({ delivery_failure: '5m', automatic_stop: false, pending_retries: 1000, usage: 100 });
    // The test environment never chose: its own defaults, not the live choice.
    const testKey = await wh.key(t.orgId, { env: 'test' });
    expect((await testKey.api.get('/v1/alert-conditions')).body).toEqual({ delivery_failure: '60m', automatic_stop: true, pending_retries: 1000, usage: 80 });
    const other = await wh.tenant();
    expect((await other.api.get('/v1/alert-conditions')).body.delivery_failure).toBe('60m');
  });

  it('anything else is 422 naming the field; scopes apply', async () => {
    const t = await wh.tenant();
    const cases: [unknown, RegExp][] = [
      [{ delivery_failure: '10m' }, /^delivery_failure: must be one of first, 5m, 15m, 60m/],
      [{ pending_retries: 500 }, /^pending_retries: must be one of 100, 1000, 10000/],
      [{ usage: '80' }, /^usage: must be one of 50, 80, 100/],
      [{ automatic_stop: 'yes' }, /^automatic_stop: must be true or false/],
      [{ colour: 'red' }, /colour/],
    ];
    for (const [body, message] of cases) {
      const res = await t.api.put('/v1/alert-conditions', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.message).toMatch(message);
    }
    expect((await t.api.get('/v1/alert-conditions')).body.delivery_failure).toBe('60m'); // nothing half-written
    const reader = await wh.key(t.orgId, { scopes: ['logs:read'] });
    expect((await reader.api.get('/v1/alert-conditions')).status).toBe(200);
    expect((await reader.api.put('/v1/alert-conditions', { usage: 50 })).status).toBe(403);
  });
});

describe('alert conditions per environment', () => {
  it("a test key's automatic_stop: false leaves live conditions unchanged: a live endpoint failing 5 days is disabled and its notice still sent", async () => {
    const DAY = 24 * 3_600_000;
    const own = await startWirehook(await reachingReceivers());
    const [failing, hooks] = await Promise.all([startReceiver(), startReceiver()]);
    failing.receiver.respondWith({ status: 500, body: 'boom' });
    try {
      const t = await own.tenant();
      const testKey = await own.key(t.orgId, { env: 'test' });
      // Each environment a webhook target of its own.
      expect((await t.api.post('/v1/alert-targets', { type: 'webhook', url: hooks.url('/alerts/live') })).status).toBe(201);
      expect((await testKey.api.post('/v1/alert-targets', { type: 'webhook', url: hooks.url('/alerts/test') })).status).toBe(201);

      const muted = await testKey.api.put('/v1/alert-conditions', { automatic_stop: false });
      expect(muted).toMatchObject({ status: 200, body: { automatic_stop: false } });
      expect((await testKey.api.get('/v1/alert-conditions')).body.automatic_stop).toBe(false);
      expect((await t.api.get('/v1/alert-conditions')).body).toEqual({ delivery_failure: '60m', automatic_stop: true, pending_retries: 1000, usage: 80 });

      // An endpoint in each environment, failing for 5 days.
      const endpointOf = async (api: typeof t.api, consumer: string) => {
        const consumerId = (await api.post('/v1/consumers', { external_id: consumer })).body.id;
        return (await api.post('/v1/endpoints', { consumer_id: consumerId, url: failing.url(`/${consumer}`), retry: { count: 0, interval: '1m' } })).body
          .id as string;
      };
      const send = async (api: typeof t.api, consumer: string) => {
        const id = (await api.post('/v1/messages', { consumer, event_type: 'order.created', payload: {} })).body.id;
        await eventually(async () => expect((await api.get(`/v1/messages/${id}`)).body.deliveries[0].attempts.length).toBeGreaterThan(0));
      };
      const liveEndpoint = await endpointOf(t.api, 'live-customer');
      const testEndpoint = await endpointOf(testKey.api, 'test-customer');
      await send(t.api, 'live-customer');
      await send(testKey.api, 'test-customer');
      own.clock.advance(5 * DAY + 60_000);
      await send(t.api, 'live-customer');
      await send(testKey.api, 'test-customer');
      await eventually(async () => expect((await t.api.get(`/v1/endpoints/${liveEndpoint}`)).body.status).toBe('disabled'));
      await eventually(async () => expect((await testKey.api.get(`/v1/endpoints/${testEndpoint}`)).body.status).toBe('disabled'));

      const stopNotices = (path: string) =>
        hooks.receiver.requests
          .filter((r) => r.path === path)
          .map((r) => JSON.parse(r.body) as { type: string; data: { endpoints: { id: string }[] } })
          .filter((n) => n.type === 'alert.endpoint_disabled');
      await eventually(async () => {
        await own.embedded.alertingWorker.tick();
        expect(stopNotices('/alerts/live').map((n) => n.data.endpoints.map((e) => e.id))).toEqual([[liveEndpoint]]);
      });
      // The test environment's own choice applies to its own stop: no notice there.
      for (let i = 0; i < 3; i++) {
        await own.embedded.alertingWorker.tick();
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      expect(stopNotices('/alerts/test')).toEqual([]);
      expect((await t.api.get('/v1/alert-conditions')).body.automatic_stop).toBe(true);
    } finally {
      await own.close();
      await Promise.all([failing, hooks].map((r) => r.receiver.close()));
    }
  });
});

describe('/v1/alert-targets', () => {
  it('webhook (a secret shown once), chat and e-mail targets; URL rules; list, read, delete', async () => {
    const withSmtp = await startWirehook({ smtpUrl: 'smtp://127.0.0.1:2525' });
    try {
      const t = await withSmtp.tenant();
      const hook = await t.api.post('/v1/alert-targets', { type: 'webhook', url: 'https://localhost:8443/alerts' });
      expect(hook).toMatchObject({
        status: 201,
        body: {
          id: expect.stringMatching(/^atg_/),
          type: 'webhook',
          url: 'https://localhost:8443/alerts',
          created_at: expect.any(Number),
          secret: expect.stringMatching(/^whsec_/),
        },
      });
      const chatUrl = 'https://localhost:8443/services/T000/B000/XXXXsecretXXXXwxyz';
      const chat = await t.api.post('/v1/alert-targets', { type: 'chat', url: chatUrl });
      expect(chat.body).not.toHaveProperty('secret');
      expect(chat.body.url).toBe(chatUrl); // shown whole once, when made
      const mail = await t.api.post('/v1/alert-targets', { type: 'email', address: 'ops@acme.test' });
      expect(mail.body).toEqual({ id: expect.stringMatching(/^atg_/), type: 'email', address: 'ops@acme.test', created_at: expect.any(Number) });

      const listed = (await t.api.get('/v1/alert-targets')).body.items;
      expect(listed.map((x: { id: string }) => x.id)).toEqual([hook.body.id, chat.body.id, mail.body.id]);
      expect(listed[0]).not.toHaveProperty('secret');
      expect((await t.api.get(`/v1/alert-targets/${hook.body.id}`)).body).toMatchObject({ id: hook.body.id, recent: [] });
      // A chat URL is its own credential: read back, it is redacted (the origin and its last 4 characters).
      expect(listed[1].url).toBe('https://localhost:8443/…wxyz');
      expect((await t.api.get(`/v1/alert-targets/${chat.body.id}`)).body.url).toBe('https://localhost:8443/…wxyz');
      expect(JSON.stringify(listed)).not.toContain('secretXXXX');
      expect(listed[0].url).toBe('https://localhost:8443/alerts'); // a webhook target's URL is not its credential (its secret is)

      // Targets belong to the key's environment (spec: a key reads and writes only its own):
      // a test key neither sees nor deletes the live targets, and its own receive only test notices.
      const testKey = await withSmtp.key(t.orgId, { env: 'test' });
      expect((await testKey.api.get('/v1/alert-targets')).body.items).toEqual([]);
      expect((await testKey.api.get(`/v1/alert-targets/${hook.body.id}`)).status).toBe(404);
      expect((await testKey.api.delete(`/v1/alert-targets/${hook.body.id}`)).status).toBe(404);
      const testTarget = await testKey.api.post('/v1/alert-targets', { type: 'webhook', url: 'https://localhost:8443/test-alerts' });
      expect(testTarget.status).toBe(201);
      expect((await testKey.api.get('/v1/alert-targets')).body.items.map((x: { id: string }) => x.id)).toEqual([testTarget.body.id]);
      expect((await t.api.get('/v1/alert-targets')).body.items).toHaveLength(3);

      for (const [body, message] of [
        [{ type: 'webhook', url: 'http://localhost/alerts' }, /^url/],
        [{ type: 'chat', url: 'https://10.0.0.1/x' }, /^url/],
        [{ type: 'email', address: 'not-an-address' }, /^address: must be an e-mail address/],
        [{ type: 'pager', url: 'https://localhost:8443/x' }, /type/],
      ] as const) {
        const res = await t.api.post('/v1/alert-targets', body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.message).toMatch(message);
      }
      expect((await t.api.delete(`/v1/alert-targets/${chat.body.id}`)).status).toBe(204);
      expect((await t.api.delete(`/v1/alert-targets/${chat.body.id}`)).status).toBe(404);
      const other = await withSmtp.tenant();
      expect((await other.api.delete(`/v1/alert-targets/${hook.body.id}`)).status).toBe(404);
      const reader = await withSmtp.key(t.orgId, { scopes: ['logs:read'] });
      expect((await reader.api.post('/v1/alert-targets', { type: 'chat', url: 'https://localhost:8443/x' })).status).toBe(403);
    } finally {
      await withSmtp.close();
    }
  });

  it('without SMTP_URL, an e-mail target is refused, saying what to set', async () => {
    const t = await wh.tenant();
    const res = await t.api.post('/v1/alert-targets', { type: 'email', address: 'ops@acme.test' });
    expect(res).toMatchObject({ status: 422, body: { error: 'invalid', message: expect.stringContaining('SMTP_URL') } });
  });
});
