import { randomUUID } from 'node:crypto';
import { context, isSpanContextValid, SpanStatusCode, trace, TraceFlags, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { spansRecorded, toErrorResponse, WirehookError } from '@wirehook/core';

/**
 * Marks `span` with what `err` was. A WirehookError the caller is answered with (4xx: a
 * refused input, a plan limit) is an outcome, not a failure: it gets `error.type` only.
 * Anything else (and a 5xx WirehookError) marks the span as failed and records the exception.
 */
export function recordError(span: Span, err: unknown): void {
  if (err instanceof WirehookError) {
    span.setAttribute('error.type', err.code);
    if (toErrorResponse(err).status < 500) return;
  } else {
    span.setAttribute('error.type', err instanceof Error ? err.name : 'unknown');
  }
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/**
 * Runs `work` inside a new active span of `tracerName` (so the spans and log lines it makes
 * are its children) and ends the span when the work settles; a rejection is recorded
 * (`recordError`) and passed on. Without tracing started, the span is a no-op.
 */
export function withSpan<T>(tracerName: string, name: string, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  if (!spansRecorded()) {
    // Nothing records: the work runs in the active trace (its ids reach the log lines), or in a new one.
    const active = trace.getActiveSpan();
    if (active !== undefined) return work(active);
    const span = unrecordedSpan(context.active());
    return context.with(trace.setSpan(context.active(), span), () => work(span));
  }
  return trace.getTracer(tracerName).startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (err) {
      recordError(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * A span that only carries ids, for a process that records none: a new span id in the
 * trace of `parent` (a caller's `traceparent`), or in a new trace. Flagged unsampled, as it
 * goes on to the next service.
 */
export function unrecordedSpan(parent: Context): Span {
  const caller = trace.getSpanContext(parent);
  // A UUID's hex digits are random but for the version nibble; its fast pooled source beats building ids by hand.
  const uuid = randomUUID();
  const traceId = caller !== undefined && isSpanContextValid(caller) ? caller.traceId : uuid.replaceAll('-', '');
  const spanId = `${uuid.slice(24)}${uuid.slice(19, 23)}`;
  return trace.wrapSpanContext({ traceId, spanId, traceFlags: TraceFlags.NONE });
}
