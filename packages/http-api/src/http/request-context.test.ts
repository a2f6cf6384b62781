import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { context, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { createHttpMetrics, createLogger, createRegistry } from '@wirehook/platform';
import { startTracing, type Tracing } from '@wirehook/platform/tracing';
import { jsonLines } from '@wirehook/testkit';
import express, { type Request, type Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestLog } from './request-log.ts';

// Without spans, the request and response are not bound to the request's context (issue 46):
// the two continuations that come from another context, the body's end and the response's
// 'finish', must bring the request's trace ids back themselves — the body parser does (raw-body
// binds its callback to the caller's context), the request log binds its listener. Each event
// here is emitted from the root context, as the socket's read or write callback would emit it.

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const inRequest = trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext({ traceId, spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.NONE }));
const fromRoot = (emit: () => void) => context.with(ROOT_CONTEXT, () => setImmediate(emit));
const readJsonBody = () => express.json({ limit: 1_100_000 });

describe('a request’s context across the events of its body and its response', () => {
  let tracing: Tracing;
  beforeAll(async () => {
    tracing = await startTracing({ serviceName: 'request-context', spanProcessors: [], instrumentLibraries: false });
  });
  afterAll(async () => {
    await tracing?.stop();
  });

  it('the JSON body parser: the handler after it runs in the request’s trace when the body ends in another context', async () => {
    const body = '{"n":1}';
    const req = Object.assign(new PassThrough(), {
      headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
      method: 'POST',
      url: '/',
    });
    const seen = await new Promise<{ traceId: string | undefined; body: unknown }>((resolve, reject) => {
      context.with(inRequest, () =>
        readJsonBody()(req as unknown as Request, {} as Response, (err?: unknown) =>
          err ? reject(err) : resolve({ traceId: trace.getActiveSpan()?.spanContext().traceId, body: (req as unknown as Request).body }),
        ),
      );
      fromRoot(() => req.end(body));
    });
    expect(seen).toEqual({ traceId, body: { n: 1 } });
  });

  it('the JSON body parser: a body over the limit is refused, in the request’s trace too', async () => {
    const req = Object.assign(new PassThrough(), { headers: { 'content-type': 'application/json', 'content-length': '3000000' }, method: 'POST', url: '/' });
    const seen = await new Promise<{ traceId: string | undefined; status: unknown }>((resolve) => {
      context.with(inRequest, () =>
        readJsonBody()(req as unknown as Request, {} as Response, (err?: unknown) =>
          resolve({ traceId: trace.getActiveSpan()?.spanContext().traceId, status: (err as { status?: number } | undefined)?.status }),
        ),
      );
      // The parser answers once the refused body has been read to its end (dumped).
      fromRoot(() => req.end('{}'));
    });
    expect(seen).toEqual({ traceId, status: 413 });
  });

  it('requestLog: the line logged on the response’s finish carries the request’s trace id', async () => {
    const { destination, lines } = jsonLines();
    const log = requestLog(createLogger({ name: 'gateway', level: 'debug', destination }), createHttpMetrics(createRegistry('request_context')));
    const res = Object.assign(new EventEmitter(), { statusCode: 202, locals: { requestId: 'req-1' } });
    context.with(inRequest, () => log({ method: 'POST', originalUrl: '/v1/messages' } as Request, res as unknown as Response, () => {}));
    await new Promise<void>((resolve) => fromRoot(() => (res.emit('finish'), resolve())));
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.find((line) => line['msg'] === 'request')).toMatchObject({ trace_id: traceId, request_id: 'req-1', status: 202 });
  });
});
