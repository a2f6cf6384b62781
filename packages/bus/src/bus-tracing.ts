import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { spansRecorded } from '@wirehook/core';
import type { BusMessage, HandleResult, PublishOptions } from './bus.ts';

// Trace context across the bus, shared by both adapters: a publish is a PRODUCER span whose
// context travels in the message headers (W3C `traceparent`); handling a message is a
// CONSUMER span continuing it. Attribute names are OpenTelemetry's messaging conventions
// (still incubating there, so written out rather than imported).

const TRACER = '@wirehook/bus';

/** Which broker carries the messages (`messaging.system`). */
export type MessagingSystem = 'nats' | 'memory';

/**
 * Runs `send` in a PRODUCER span (`publish <subject>`, child of the active span) and hands
 * it the headers to publish: the caller's, plus the span's trace context unless the caller
 * set one. A rejection marks the span failed and is passed on.
 */
export function tracePublish(
  system: MessagingSystem,
  subject: string,
  options: PublishOptions,
  send: (headers: Record<string, string>) => Promise<void>,
): Promise<void> {
  if (!spansRecorded()) {
    // Nothing records: the active trace context travels on, without a span of its own.
    const headers: Record<string, string> = {};
    propagation.inject(context.active(), headers);
    return send(Object.assign(headers, options.headers));
  }
  const attributes: Attributes = {
    'messaging.system': system,
    'messaging.operation.type': 'send',
    'messaging.operation.name': 'publish',
    'messaging.destination.name': subject,
    ...(options.msgId === undefined ? {} : { 'messaging.message.id': options.msgId }),
  };
  const span = trace.getTracer(TRACER).startSpan(`publish ${subject}`, { kind: SpanKind.PRODUCER, attributes });
  const headers: Record<string, string> = {};
  propagation.inject(trace.setSpan(context.active(), span), headers);
  Object.assign(headers, options.headers);
  return settle(span, send(headers));
}

/** The trace context a message's headers carry (the publisher's span), or none. */
export function messageTraceContext(headers: Readonly<Record<string, string>>): Context {
  return propagation.extract(ROOT_CONTEXT, headers);
}

/**
 * Runs `handler` on `message` in a CONSUMER span (`process <subject>`) continuing the
 * publisher's trace, so whatever the handler does — store calls, sends, log lines — joins
 * the trace of the request that caused the message. A throw marks the span failed and is
 * passed on; a `retryInMs` answer is recorded as such.
 */
export function traceHandle(system: MessagingSystem, message: BusMessage, handler: (message: BusMessage) => Promise<HandleResult>): Promise<HandleResult> {
  if (!spansRecorded()) return context.with(message.traceContext, () => Promise.resolve().then(() => handler(message)));
  const attributes: Attributes = {
    'messaging.system': system,
    'messaging.operation.type': 'process',
    'messaging.operation.name': 'process',
    'messaging.destination.name': message.subject,
    'wirehook.bus.delivery_count': message.deliveryCount,
  };
  const span = trace.getTracer(TRACER).startSpan(`process ${message.subject}`, { kind: SpanKind.CONSUMER, attributes }, message.traceContext);
  return context.with(trace.setSpan(message.traceContext, span), () => {
    const handled = Promise.resolve().then(() => handler(message));
    return settle(
      span,
      handled.then((result) => {
        if (result !== 'ack') span.setAttribute('wirehook.bus.retry_in_ms', result.retryInMs);
        return result;
      }),
    );
  });
}

async function settle<T>(span: Span, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    span.recordException(err instanceof Error ? err : String(err));
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
    throw err;
  } finally {
    span.end();
  }
}
