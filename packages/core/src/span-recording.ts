// Whether this process records spans. Tracing (platform's startTracing) sets it; the code that
// makes spans on the hot path (requests, gRPC calls, bus messages, webhook POSTs) reads it and,
// while nothing records, keeps only the trace context — a caller's trace, or a new trace id —
// so ids still reach the logs and the next service, without the span bookkeeping nobody reads
// (about 100 µs of CPU per delivery in docs/benchmarks.md). Kept here, free of OpenTelemetry,
// because every package that makes spans depends on core.

let recording = false;

/** True while spans are recorded in this process (tracing started with somewhere to send them). */
export function spansRecorded(): boolean {
  return recording;
}

/** Set by tracing as it starts and stops; nothing else should call it. */
export function setSpansRecorded(on: boolean): void {
  recording = on;
}
