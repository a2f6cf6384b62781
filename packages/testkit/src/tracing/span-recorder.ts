import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { startTracing } from '@wirehook/platform/tracing';

// What tests compare recorded spans with, for test code that has no OpenTelemetry dependency.
export { SpanKind, SpanStatusCode } from '@opentelemetry/api';
export type { ReadableSpan } from '@opentelemetry/sdk-trace';

/** Tracing started for a test, keeping every ended span in memory. */
export interface SpanRecorder {
  /** The spans ended so far, in the order they ended. */
  spans(): ReadableSpan[];
  /** The ended spans of one trace. */
  trace(traceId: string): ReadableSpan[];
  /** Forgets the spans recorded so far. */
  reset(): void;
  /** Ends tracing and clears its global registrations, so another test file may start it. */
  stop(): Promise<void>;
}

/**
 * Starts tracing the way every service does (`startTracing`: W3C propagator, AsyncLocalStorage
 * context, a tracer provider) but with an InMemorySpanExporter instead of OTLP, and without
 * hooking libraries (vitest loads them). One per test file; stop it in afterAll.
 */
export async function recordSpans(serviceName = 'wirehook-test'): Promise<SpanRecorder> {
  const exporter = new InMemorySpanExporter();
  const tracing = await startTracing({
    serviceName,
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
    instrumentLibraries: false,
  });
  const spans = () => exporter.getFinishedSpans();
  return {
    spans,
    trace: (traceId) => spans().filter((s) => s.spanContext().traceId === traceId),
    reset: () => exporter.reset(),
    stop: () => tracing.stop(),
  };
}
