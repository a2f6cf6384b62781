// The last hop of a message's trace, in embedded mode: the dispatcher's POST to the endpoint
// is a span of the trace the API request started (or continued).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runAdminCommand } from '@wirehook/admin';
import { ManualClock } from '@wirehook/core';
import { silentLogger } from '@wirehook/platform';
import { ApiClient, eventually, recordSpans, SpanKind, SpanStatusCode, testCa, type ReadableSpan, type SpanRecorder } from '@wirehook/testkit';
import { embeddedConfigSchema } from '../../services/embedded/src/config.ts';
import { createEmbedded, type Embedded } from '../../services/embedded/src/create-embedded.ts';
import { startReceiver, TEST_ALLOW_HOSTS, TEST_RESOLVE, type NamedReceiver } from '../support/receivers.ts';

const hex = (bytes: number) => [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');

describe('tracing (embedded): the webhook POST joins the message’s trace', () => {
  let recorder: SpanRecorder;
  let dataDir: string;
  let embedded: Embedded;
  let rx: NamedReceiver;
  let api: ApiClient;

  beforeAll(async () => {
    recorder = await recordSpans('tracing-e2e');
    dataDir = mkdtempSync(join(tmpdir(), 'wirehook-tracing-'));
    const config = embeddedConfigSchema.parse({
      PORT: '0',
      METRICS_PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DELIVERY_ALLOW_HOSTS: TEST_ALLOW_HOSTS,
      DELIVERY_RESOLVE: TEST_RESOLVE,
      DELIVERY_TIMEOUT_MS: '2000',
      // Only the intake's dispatch job sends: a sweep could take the job first, in a trace of its own.
      SWEEP_INTERVAL_MS: '60000',
    });
    const clock = new ManualClock(Date.now());
    embedded = createEmbedded(config, { clock, logger: silentLogger(), ca: (await testCa()).caPem });
    for (const c of embedded.components) await c.start();
    rx = await startReceiver();
    const org = await runAdminCommand(['org', 'create', '--name', 'Traced', '--plan', 'business'], { store: embedded.store, clock });
    const key = await runAdminCommand(['key', 'create', '--org', String(org['id']), '--env', 'live'], { store: embedded.store, clock });
    api = new ApiClient(embedded.apiUrl(), String(key['key']));
    const consumer = await api.post('/v1/consumers', { external_id: 'cus_traced' });
    expect((await api.post('/v1/endpoints', { consumer_id: consumer.body.id, url: rx.url('/hook?token=s3cret') })).status).toBe(201);
  });
  afterAll(async () => {
    for (const c of [...(embedded?.components ?? [])].reverse()) await c.stop();
    await rx?.receiver.close();
    await recorder?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  beforeEach(() => {
    recorder.reset();
    rx.receiver.respondWith({});
    rx.receiver.clear();
  });

  /** Sends a message in the caller's trace; returns the spans of that trace once the job's handling ended. */
  async function sendTraced(): Promise<{ traceId: string; spans: ReadableSpan[]; messageId: string }> {
    const traceId = hex(16);
    const res = await api.post(
      '/v1/messages',
      { consumer: 'cus_traced', event_type: 'invoice.paid', payload: { n: 1 } },
      { traceparent: `00-${traceId}-${hex(8)}-01` },
    );
    expect(res.status).toBe(202);
    // Without an x-request-id of the caller's, the response's is the request's trace id.
    expect(res.headers.get('x-request-id')).toBe(traceId);
    await eventually(() => expect(recorder.trace(traceId).map((s) => s.name)).toEqual(expect.arrayContaining(['POST', 'MessageIntake.send'])));
    return { traceId, spans: recorder.trace(traceId), messageId: String(res.body.id) };
  }

  it('a delivered webhook: POST span under the intake span that handed it over, HTTP attributes, no query string, no trace headers sent', async () => {
    const { spans } = await sendTraced();
    const post = spans.find((s) => s.name === 'POST')!;
    // Embedded mode: intake claims the delivery as it writes it and hands it to the dispatcher in-process.
    const intake = spans.find((s) => s.name === 'MessageIntake.send')!;
    expect(spans.map((s) => s.name)).not.toContain('process wirehook.dispatch');
    expect(post.kind).toBe(SpanKind.CLIENT);
    expect(post.parentSpanContext?.spanId).toBe(intake.spanContext().spanId);
    expect(post.status.code).toBe(SpanStatusCode.UNSET);
    expect(post.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'url.full': `https://${rx.host}:8443/hook`,
      'server.address': rx.host,
      'server.port': 8443,
      'network.local.address': expect.stringMatching(/^127\./),
      'wirehook.delivery_id': expect.stringMatching(/^dlv_/),
    });
    expect(rx.receiver.requests).toHaveLength(1);
    expect(rx.receiver.requests[0]!.headers).not.toHaveProperty('traceparent');
  });

  it('a manual retry goes through the bus: its POST span is under the job’s process span, in the retry’s trace', async () => {
    const { messageId } = await sendTraced();
    const detail = await api.get(`/v1/messages/${messageId}`);
    const deliveryId = String((detail.body.deliveries as { id: string }[])[0]!.id);
    const traceId = hex(16);
    const res = await api.post(`/v1/deliveries/${deliveryId}/retry`, undefined, { traceparent: `00-${traceId}-${hex(8)}-01` });
    expect(res.status).toBe(202);
    // The process span ends after the POST span: the attempt is recorded between them.
    await eventually(() => expect(recorder.trace(traceId).map((s) => s.name)).toEqual(expect.arrayContaining(['POST', 'process wirehook.dispatch'])));
    const spans = recorder.trace(traceId);
    const post = spans.find((s) => s.name === 'POST')!;
    const processJob = spans.find((s) => s.name === 'process wirehook.dispatch')!;
    expect(post.parentSpanContext?.spanId).toBe(processJob.spanContext().spanId);
    expect(rx.receiver.requests).toHaveLength(2);
  });

  it('a failed attempt fails its POST span with the status as error.type', async () => {
    rx.receiver.respondWith({ status: 503 });
    const { spans } = await sendTraced();
    const post = spans.find((s) => s.name === 'POST')!;
    expect(post.status.code).toBe(SpanStatusCode.ERROR);
    expect(post.attributes).toMatchObject({ 'http.response.status_code': 503, 'error.type': '503' });
  });
});
