// One trace from the public API to the dispatch job: a real HTTP request to the gateway, the
// real gRPC call to message-intake on loopback, the real intake writing to SQLite and
// publishing on the in-process bus, a consumer taking the job.
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SpanKind, trace, type SpanContext } from '@opentelemetry/api';
import { runAdminCommand } from '@wirehook/admin';
import { DISPATCH_SUBJECT, MemoryBus, type BusMessage } from '@wirehook/bus';
import { systemClock } from '@wirehook/core';
import { MessageIntake } from '@wirehook/message-intake';
import { startIntakeGrpcServer } from '@wirehook/message-intake/grpc-server';
import { silentLogger } from '@wirehook/platform';
import { startTracing, type Tracing } from '@wirehook/platform/tracing';
import { IntakeGrpcClient, type GrpcServerHandle } from '@wirehook/rpc';
import { openEmbeddedStore, type Store } from '@wirehook/store';
import { ApiClient, eventually, jsonLines, recordSpans, type ReadableSpan, type SpanRecorder } from '@wirehook/testkit';
import { createGateway } from './create-gateway.ts';
import { gatewayTestDeps } from './testing/gateway-deps.ts';

const TOKEN = 'test-internal-auth-token-of-32-chars-or-more';
const SEND = 'wirehook.intake.v1.MessageIntake/SendBatch';
const hex = (bytes: number) => [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');

/** The gateway, a real gRPC hop to message-intake, SQLite and the in-process bus, wired as cluster mode wires them. */
interface Flow {
  api: ApiClient;
  jobs: { message: BusMessage; active: SpanContext | undefined }[];
  logLines: Record<string, unknown>[];
  close(): Promise<void>;
}

async function startFlow(): Promise<Flow> {
  const jobs: Flow['jobs'] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'wirehook-trace-'));
  const store: Store = openEmbeddedStore(dataDir);
  const bus = new MemoryBus();
  bus.consume(DISPATCH_SUBJECT, async (message) => (jobs.push({ message, active: trace.getActiveSpan()?.spanContext() }), 'ack'), {
    concurrency: 4,
  });
  const intake = new MessageIntake({ store, bus, clock: systemClock, logger: silentLogger() });
  const grpc: GrpcServerHandle = await startIntakeGrpcServer({ intake, address: '127.0.0.1:0', authToken: TOKEN });
  const intakeClient = new IntakeGrpcClient({ address: `127.0.0.1:${grpc.port}`, authToken: TOKEN });

  const { destination: logStream, lines: logLines } = jsonLines();
  const app = createGateway(gatewayTestDeps(store, intakeClient, logStream));
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });

  const org = await runAdminCommand(['org', 'create', '--name', 'Traced', '--plan', 'business'], { store, clock: systemClock });
  const key = await runAdminCommand(['key', 'create', '--org', String(org['id']), '--env', 'live'], { store, clock: systemClock });
  const api = new ApiClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, String(key['key']));
  const consumer = await api.post('/v1/consumers', { external_id: 'cus_traced', name: 'Traced customer' });
  expect(consumer.status).toBe(201);
  const endpoint = await api.post('/v1/endpoints', { consumer_id: consumer.body.id, url: 'https://hooks.example.com/in' });
  expect(endpoint.status).toBe(201);
  return {
    api,
    jobs,
    logLines,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      intakeClient.close();
      await grpc.stop();
      await bus.close();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('one trace from POST /v1/messages through gRPC to the dispatch job', () => {
  let recorder: SpanRecorder;
  let flow: Flow;
  let api: ApiClient;
  let jobs: Flow['jobs'];
  let logLines: Flow['logLines'];

  beforeAll(async () => {
    recorder = await recordSpans('trace-flow');
    flow = await startFlow();
    ({ api, jobs, logLines } = flow);
  });

  afterAll(async () => {
    await flow?.close();
    await recorder?.stop();
  });

  beforeEach(() => {
    recorder.reset();
    jobs.length = 0;
    logLines.length = 0;
  });

  /** Sends one message and waits until its dispatch job was handled; returns the response body. */
  const send = async (headers: Record<string, string> = {}) => {
    const res = await api.post('/v1/messages', { consumer: 'cus_traced', event_type: 'invoice.paid', payload: { n: 1 } }, headers);
    expect(res.status).toBe(202);
    expect(res.body.deliveries).toBe(1);
    // The request's span ends as its response closes, possibly after the client has read it.
    await eventually(() => {
      expect(recorder.spans().map((s) => s.name)).toEqual(expect.arrayContaining(['POST /v1/messages', `process ${DISPATCH_SUBJECT}`]));
      expect(logLines.map((l) => l['msg'])).toContain('request');
    });
    return res.body as { id: string };
  };
  const one = (spans: ReadableSpan[], name: string, kind?: SpanKind) => {
    const found = spans.filter((s) => s.name === name && (kind === undefined || s.kind === kind));
    expect(found, `one span named ${name}`).toHaveLength(1);
    return found[0]!;
  };
  const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
  const idOf = (span: ReadableSpan) => span.spanContext().spanId;

  it('continues the caller’s traceparent into gRPC, the intake, the bus headers and the job handler; log lines carry the ids', async () => {
    const [callerTrace, callerSpan] = [hex(16), hex(8)];
    const sent = await send({ traceparent: `00-${callerTrace}-${callerSpan}-01` });

    const spans = recorder.trace(callerTrace);
    expect(spans).toHaveLength(recorder.spans().length); // nothing of this request left the trace
    const http = one(spans, 'POST /v1/messages', SpanKind.SERVER);
    const grpcClient = one(spans, SEND, SpanKind.CLIENT);
    const grpcServer = one(spans, SEND, SpanKind.SERVER);
    const intakeSend = one(spans, 'MessageIntake.send');
    const publish = one(spans, `publish ${DISPATCH_SUBJECT}`, SpanKind.PRODUCER);
    const processJob = one(spans, `process ${DISPATCH_SUBJECT}`, SpanKind.CONSUMER);

    expect(http.parentSpanContext).toMatchObject({ traceId: callerTrace, spanId: callerSpan, isRemote: true });
    expect(http.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/messages',
      'http.response.status_code': 202,
      'url.path': '/v1/messages',
    });
    expect(parentOf(grpcClient)).toBe(idOf(http));
    expect(parentOf(grpcServer)).toBe(idOf(grpcClient));
    expect(parentOf(intakeSend)).toBe(idOf(grpcServer));
    expect(intakeSend.attributes).toMatchObject({ 'wirehook.message_id': sent.id, 'wirehook.deliveries': 1, 'wirehook.event_type': 'invoice.paid' });
    expect(parentOf(publish)).toBe(idOf(intakeSend));
    expect(parentOf(processJob)).toBe(idOf(publish));

    const [job] = jobs;
    expect(job!.message.headers['traceparent']).toBe(`00-${callerTrace}-${idOf(publish)}-01`);
    expect(job!.active).toMatchObject({ traceId: callerTrace, spanId: idOf(processJob) });

    const requestLine = logLines.find((l) => l['msg'] === 'request' && l['route'] === '/v1/messages');
    expect(requestLine).toMatchObject({ trace_id: callerTrace, span_id: idOf(http), trace_flags: '01' });
  });

  it('starts a trace for a request without traceparent, and the job is in it', async () => {
    await send();
    const http = one(recorder.spans(), 'POST /v1/messages', SpanKind.SERVER);
    expect(http.parentSpanContext).toBeUndefined();
    const traceId = http.spanContext().traceId;
    expect(
      recorder
        .trace(traceId)
        .map((s) => s.name)
        .sort(),
    ).toEqual(['MessageIntake.send', 'POST /v1/messages', SEND, SEND, `process ${DISPATCH_SUBJECT}`, `publish ${DISPATCH_SUBJECT}`].sort());
    expect(jobs[0]!.message.headers['traceparent']).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    expect(logLines.find((l) => l['msg'] === 'request')).toMatchObject({ trace_id: traceId, span_id: idOf(http) });
  });
});

describe('nothing records spans (no OTLP endpoint): the trace ids still flow', () => {
  let tracing: Tracing;
  let flow: Flow;

  beforeAll(async () => {
    tracing = await startTracing({ serviceName: 'trace-flow-ids', spanProcessors: [], instrumentLibraries: false });
    flow = await startFlow();
  });
  afterAll(async () => {
    await flow?.close();
    await tracing?.stop();
  });

  it('the caller’s trace id reaches the request log line, the gRPC hop, the bus headers (unsampled) and the job handler', async () => {
    const [callerTrace, callerSpan] = [hex(16), hex(8)];
    const res = await flow.api.post(
      '/v1/messages',
      { consumer: 'cus_traced', event_type: 'invoice.paid', payload: { n: 1 } },
      { traceparent: `00-${callerTrace}-${callerSpan}-01` },
    );
    expect(res.status).toBe(202);
    await eventually(() => {
      expect(flow.jobs).toHaveLength(1);
      expect(flow.logLines.map((l) => l['msg'])).toContain('request');
    });
    const [job] = flow.jobs;
    expect(job!.message.headers['traceparent']).toMatch(new RegExp(`^00-${callerTrace}-[0-9a-f]{16}-00$`));
    expect(job!.message.headers['traceparent']).not.toContain(callerSpan);
    expect(job!.active).toMatchObject({ traceId: callerTrace, traceFlags: 0 });
    // No span of its own was made for handling the job: it runs in the publisher's context as it came.
    expect(job!.active?.spanId).toBe(job!.message.headers['traceparent']!.split('-')[2]);
    const requestLine = flow.logLines.find((l) => l['msg'] === 'request' && l['route'] === '/v1/messages');
    expect(requestLine).toMatchObject({ trace_id: callerTrace, trace_flags: '00' });
    expect(requestLine!['span_id']).toMatch(/^[0-9a-f]{16}$/);
  });

  it('a request without traceparent gets a new trace id, which the job carries', async () => {
    const res = await flow.api.post('/v1/messages', { consumer: 'cus_traced', event_type: 'invoice.paid', payload: { n: 2 } });
    expect(res.status).toBe(202);
    await eventually(() => expect(flow.jobs).toHaveLength(2));
    const traceId = flow.jobs[1]!.active?.traceId;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(traceId).not.toBe('0'.repeat(32));
    await eventually(() => expect(flow.logLines.filter((l) => l['msg'] === 'request' && l['trace_id'] === traceId)).toHaveLength(1));
  });
});
