import { SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { toErrorResponse, WirehookError } from '@wirehook/core';

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
