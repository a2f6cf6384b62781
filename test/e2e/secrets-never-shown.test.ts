// An endpoint's custom header values, its client certificate's key, its OAuth client secret and
// the access tokens fetched with it, once set, appear in no output of a run: not in an API response, a log line (at debug), a span of the trace, or a
// metric — across a create, a PATCH, deliveries that succeed and fail, and every read.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '@wirehook/platform';
import { eventually, jsonLines, recordSpans, type SpanRecorder, testCa, testClientCertificate } from '@wirehook/testkit';
import { startWirehook, type Harness } from '../support/harness.ts';
import { type NamedReceiver, startReceiver, TEST_ALLOW_HOSTS, TEST_RESOLVE } from '../support/receivers.ts';
import { TokenServer } from '../support/token-server.ts';

const HEADER_VALUE = 'hv-7f3a91c2-never-shown-b8e4';
const PATCHED_VALUE = 'hv-patched-0d5c-never-shown-19af';

let wh: Harness;
let rx: NamedReceiver;
let recorder: SpanRecorder;
let tokens: TokenServer;
const logs = jsonLines();

beforeAll(async () => {
  recorder = await recordSpans('secrets-e2e');
  const logger = createLogger({ name: 'wirehook', instance: 'secrets', level: 'debug', format: 'json', destination: logs.destination });
  rx = await startReceiver({ clientCa: (await testCa()).caPem });
  tokens = await TokenServer.start({ clientSecret: 'cs-5e1c0d-never-shown-a7b2' });
  wh = await startWirehook({ allowHosts: TEST_ALLOW_HOSTS, resolve: TEST_RESOLVE, ca: (await testCa()).caPem, logger });
}, 60_000);

afterAll(async () => {
  await wh?.close();
  await rx?.receiver.close();
  await tokens?.close();
  await recorder?.stop();
});

it('header values, the client key, the OAuth client secret and its tokens never appear in responses, logs, spans or metrics', async () => {
  const { certPem, keyPem } = await testClientCertificate();
  // A line from the middle of the key's base64: any copy of the key would carry it.
  const keyLine = keyPem.split('\n').filter((l) => l.length > 40 && !l.startsWith('-----'))[1]!;
  const t = await wh.tenant();
  const responses: unknown[] = [];
  const call = async (r: Promise<{ status: number; body: unknown }>) => {
    const res = await r;
    responses.push(res.body);
    return res as { status: number; body: any };
  };
  const consumerId = (await call(t.api.post('/v1/consumers', { external_id: 'secretive' }))).body.id;
  const created = await call(
    t.api.post('/v1/endpoints', {
      consumer_id: consumerId,
      url: rx.url(),
      headers: { 'X-Api-Key': HEADER_VALUE },
      tls: { client_certificate: certPem, client_key: keyPem },
      auth: tokens.auth({ scope: 'hooks' }),
    }),
  );
  rx.receiver.respondWith(tokens.requireBearer());
  expect(created.status).toBe(201);
  const id = created.body.id;
  const ok = (await call(t.api.post('/v1/messages', { consumer: 'secretive', event_type: 'a.b', payload: { n: 1 } }))).body.id;
  await eventually(() => expect(rx.receiver.requests.some((r) => r.headers['webhook-id'] === ok && r.headers['x-api-key'] === HEADER_VALUE)).toBe(true));
  await call(
    t.api.patch(`/v1/endpoints/${id}`, {
      headers: { 'X-Api-Key': PATCHED_VALUE },
      tls: { client_certificate: certPem, client_key: keyPem },
      auth: tokens.auth({ scope: 'hooks other' }),
    }),
  );
  rx.receiver.respondWith({ status: 500 });
  const failing = (await call(t.api.post('/v1/messages', { consumer: 'secretive', event_type: 'a.b', payload: { n: 2 } }))).body.id;
  await eventually(async () => expect((await call(t.api.get(`/v1/messages/${failing}`))).body.deliveries[0].attempts).toHaveLength(1));
  expect(rx.receiver.requests.find((r) => r.headers['webhook-id'] === failing)?.headers['x-api-key']).toBe(PATCHED_VALUE);
  for (const path of [`/v1/endpoints/${id}`, '/v1/endpoints', `/v1/endpoints/${id}/stats`, `/v1/messages/${ok}`, `/v1/messages/${failing}`, '/v1/messages']) {
    await call(t.api.get(path));
  }
  const metrics = await (await fetch(`${wh.embedded.metricsUrl()}/metrics`)).text();

  const outputs = {
    responses: JSON.stringify(responses),
    logs: JSON.stringify(logs.lines),
    spans: JSON.stringify(recorder.spans().map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status }))),
    metrics,
  };
  // The run did produce each kind of output (a check that could pass on nothing proves nothing).
  expect(logs.lines.length).toBeGreaterThan(0);
  expect(recorder.spans().length).toBeGreaterThan(0);
  expect(outputs.responses).toContain('"x-api-key":"…b8e4"'); // shown redacted
  // Tokens were fetched and sent (two: the PATCH changed the scope), so their absence means something.
  expect(tokens.issued.length).toBe(2);
  expect(rx.receiver.requests.find((r) => r.headers['webhook-id'] === ok)?.headers['authorization']).toBe(`Bearer ${tokens.issued[0]!.token}`);
  for (const [where, text] of Object.entries(outputs)) {
    for (const secret of [HEADER_VALUE, PATCHED_VALUE, keyLine, 'PRIVATE KEY', tokens.clientSecret, ...tokens.issued.map((i) => i.token)])
      expect(text.includes(secret), `${secret.slice(0, 12)}… in ${where}`).toBe(false);
  }
});
