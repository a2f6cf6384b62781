import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode, trace, type SpanContext } from '@opentelemetry/api';
import { NotFoundError, type EndpointId, type OrgId } from '@wirehook/core';
import { createLogger } from '@wirehook/platform';
import { eventually, jsonLines, recordSpans, type SpanRecorder } from '@wirehook/testkit';
import { MessageIntake } from './gen/wirehook/intake/v1/intake_pb.ts';
import { bindService, startGrpcServer, type GrpcServerHandle } from './grpc-server.ts';
import { serveItem } from './grpc-tracing.ts';
import { IntakeGrpcClient } from './intake-grpc-client.ts';
import { createClient, type GrpcClient, type ServiceImpl } from './grpc-service.ts';
import { tenantToProto } from './intake-codec.ts';

const TOKEN = 'test-internal-auth-token-of-32-chars-or-more';
const METHOD = 'wirehook.intake.v1.MessageIntake/ReleaseHeld';
const tenant = tenantToProto({ orgId: 'org_01KAAAAAAAAAAAAAAAAAAAAAAA' as OrgId, env: 'live' });
const endpointId = 'ep_01KCCCCCCCCCCCCCCCCCCCCCCC' as EndpointId;

/** What the server's handler saw of the trace, and what it is told to do. */
const server = {
  active: undefined as SpanContext | undefined,
  answer: async (): Promise<number> => 3,
};

const impl = {
  releaseHeld: async () => {
    server.active = trace.getActiveSpan()?.spanContext();
    return { released: await server.answer() };
  },
} as unknown as ServiceImpl<typeof MessageIntake>;

describe('trace context over gRPC (real loopback server)', () => {
  let recorder: SpanRecorder;
  let handle: GrpcServerHandle;
  let client: GrpcClient<typeof MessageIntake>;
  const { destination: logged, lines } = jsonLines();

  beforeAll(async () => {
    recorder = await recordSpans();
    const logger = createLogger({ name: 'intake-test', destination: logged });
    handle = await startGrpcServer({
      address: '127.0.0.1:0',
      services: [bindService(MessageIntake, impl)],
      onError: (err, path) => logger.error({ err, path }, 'gRPC call failed'),
      authToken: TOKEN,
    });
    client = createClient(MessageIntake, { address: `127.0.0.1:${handle.port}`, authToken: TOKEN });
  });
  afterAll(async () => {
    client.close();
    await handle.stop();
    await recorder.stop();
  });
  beforeEach(() => {
    recorder.reset();
    server.active = undefined;
    server.answer = async () => 3;
  });

  /** Calls ReleaseHeld inside a new `request` span; returns its context and the call's outcome. */
  const callInSpan = () =>
    trace.getTracer('rpc-test').startActiveSpan('request', async (span) => {
      const outcome = await client.rpc.releaseHeld({ tenant, endpointId }).catch((err: unknown) => err);
      span.end();
      return { request: span.spanContext(), outcome };
    });
  /** The client and server spans of one trace, once both have ended. */
  const callSpans = async (traceId: string) => {
    await eventually(() => expect(recorder.trace(traceId).filter((s) => s.name === METHOD)).toHaveLength(2));
    const spans = recorder.trace(traceId);
    return {
      clientSpan: spans.find((s) => s.name === METHOD && s.kind === SpanKind.CLIENT)!,
      serverSpan: spans.find((s) => s.name === METHOD && s.kind === SpanKind.SERVER)!,
    };
  };

  it('the server handler runs in the caller’s trace: request → CLIENT span → SERVER span', async () => {
    const { request, outcome } = await callInSpan();
    expect(outcome).toMatchObject({ released: 3 });
    const { clientSpan, serverSpan } = await callSpans(request.traceId);

    expect(clientSpan.parentSpanContext?.spanId).toBe(request.spanId);
    expect(clientSpan.attributes).toEqual({
      'rpc.system.name': 'grpc',
      'rpc.method': METHOD,
      'rpc.status_code': 'OK',
      'server.address': '127.0.0.1',
      'server.port': handle.port,
    });
    expect(serverSpan.parentSpanContext).toMatchObject({ spanId: clientSpan.spanContext().spanId, isRemote: true });
    expect(serverSpan.attributes).toEqual({ 'rpc.system.name': 'grpc', 'rpc.method': METHOD, 'rpc.status_code': 'OK' });
    expect(server.active).toMatchObject({ traceId: request.traceId, spanId: serverSpan.spanContext().spanId });
    expect([clientSpan.status.code, serverSpan.status.code]).toEqual([SpanStatusCode.UNSET, SpanStatusCode.UNSET]);
  });

  it('the items of one batched call each continue their own caller’s trace; the call itself makes no span', async () => {
    const BATCH = 'wirehook.intake.v1.MessageIntake/SendBatch';
    const seen: Array<SpanContext | undefined> = [];
    let calls = 0;
    const batchImpl = {
      sendBatch: async ({ sends }: { sends: Array<{ traceContext: Record<string, string> }> }) => {
        calls++;
        const outcomes = await Promise.all(
          sends.map(({ traceContext }, i) =>
            serveItem(`/${BATCH}`, traceContext, async () => {
              seen.push(trace.getActiveSpan()?.spanContext());
              return { outcome: { case: 'sent' as const, value: { id: `msg_${i}`, deliveries: 1, usageMonth: 1, replayed: false } } };
            }),
          ),
        );
        return { outcomes };
      },
    } as unknown as ServiceImpl<typeof MessageIntake>;
    const batchServer = await startGrpcServer({ address: '127.0.0.1:0', services: [bindService(MessageIntake, batchImpl, ['sendBatch'])], authToken: TOKEN });
    const intake = new IntakeGrpcClient({ address: `127.0.0.1:${batchServer.port}`, authToken: TOKEN });
    try {
      const input = { tenant: { orgId: 'org_01KAAAAAAAAAAAAAAAAAAAAAAA' as OrgId, env: 'live' as const }, idempotencyKey: null };
      const org = { id: input.tenant.orgId, name: 'Acme', plan: 'starter' as const, ownerEmail: null, createdAt: 0 };
      const requests = await Promise.all(
        ['a', 'b'].map((name) =>
          trace.getTracer('rpc-test').startActiveSpan(name, async (span) => {
            await intake.send({ ...input, org, body: { consumer: 'c', event_type: 'e', payload: name } });
            span.end();
            return span.spanContext();
          }),
        ),
      );
      expect(calls).toBe(1); // both sends in one call
      for (const request of requests) {
        const spans = recorder.trace(request.traceId).filter((s) => s.name === BATCH);
        const client = spans.find((s) => s.kind === SpanKind.CLIENT);
        const server = spans.find((s) => s.kind === SpanKind.SERVER);
        expect(spans).toHaveLength(2);
        expect(client?.parentSpanContext?.spanId).toBe(request.spanId);
        expect(server?.parentSpanContext).toMatchObject({ spanId: client?.spanContext().spanId, isRemote: true });
        expect(seen).toContainEqual(expect.objectContaining({ traceId: request.traceId, spanId: server?.spanContext().spanId }));
      }
      // Nothing else: no span of the call itself, in a trace of its own.
      expect(recorder.spans().filter((s) => s.name === BATCH)).toHaveLength(4);
    } finally {
      intake.close();
      await batchServer.stop();
    }
  });

  it('a call made outside any span starts a trace the server continues', async () => {
    await client.rpc.releaseHeld({ tenant, endpointId });
    const started = recorder.spans().find((s) => s.kind === SpanKind.CLIENT)!;
    expect(started.parentSpanContext).toBeUndefined();
    const { serverSpan } = await callSpans(started.spanContext().traceId);
    expect(serverSpan.parentSpanContext?.spanId).toBe(started.spanContext().spanId);
  });

  it('a call refused before it is sent (closed client) rejects and still ends its span, failed', async () => {
    const closed = createClient(MessageIntake, { address: `127.0.0.1:${handle.port}`, authToken: TOKEN });
    closed.close();
    await expect(closed.rpc.releaseHeld({ tenant, endpointId })).rejects.toThrow();
    const [span] = recorder.spans();
    expect(span).toMatchObject({ name: METHOD, kind: SpanKind.CLIENT, status: { code: SpanStatusCode.ERROR } });
  });

  it('a WirehookError fails the client span only: the server answered the caller correctly', async () => {
    server.answer = async () => {
      throw new NotFoundError(`endpoint ${endpointId} not found`);
    };
    const { request, outcome } = await callInSpan();
    expect(outcome).toBeInstanceOf(NotFoundError);
    const { clientSpan, serverSpan } = await callSpans(request.traceId);
    expect(clientSpan.status).toEqual({ code: SpanStatusCode.ERROR, message: `endpoint ${endpointId} not found` });
    expect(clientSpan.attributes).toMatchObject({ 'rpc.status_code': 'NOT_FOUND', 'error.type': 'NOT_FOUND' });
    expect(serverSpan.status.code).toBe(SpanStatusCode.UNSET);
    expect(serverSpan.attributes['rpc.status_code']).toBe('NOT_FOUND');
  });

  it('an unexpected failure fails both spans, records the exception, and its log line carries the trace ids', async () => {
    server.answer = async () => {
      throw new TypeError("Cannot read properties of undefined (reading 'id')");
    };
    lines.length = 0;
    const { request } = await callInSpan();
    const { clientSpan, serverSpan } = await callSpans(request.traceId);
    expect(clientSpan.attributes).toMatchObject({ 'rpc.status_code': 'INTERNAL', 'error.type': 'INTERNAL' });
    expect(serverSpan.status).toEqual({ code: SpanStatusCode.ERROR, message: 'internal error' });
    expect(serverSpan.events.map((e) => e.name)).toEqual(['exception']);
    await eventually(() => expect(lines).toHaveLength(1));
    expect(lines[0]).toMatchObject({
      msg: 'gRPC call failed',
      path: `/${METHOD}`,
      trace_id: request.traceId,
      span_id: serverSpan.spanContext().spanId,
      trace_flags: '01',
    });
  });
});
