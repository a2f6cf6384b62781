import { isSpanContextValid, trace } from '@opentelemetry/api';
import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

/** Paths whose values are never written to a log line. */
const REDACT = [
  'req.headers.authorization',
  'headers.authorization',
  '*.secret',
  '*.key',
  '*.payload',
  'secret',
  'key',
  'payload',
];

/**
 * The ids of the span active where a line is logged (`trace_id`, `span_id`, `trace_flags`,
 * as the OpenTelemetry log data model names them), so a log line leads to its trace and a
 * trace to its log lines. Nothing outside a span, or when tracing is not started.
 */
export function traceFields(): Record<string, string> {
  const ids = trace.getActiveSpan()?.spanContext();
  if (ids === undefined || !isSpanContextValid(ids)) return {};
  return { trace_id: ids.traceId, span_id: ids.spanId, trace_flags: ids.traceFlags.toString(16).padStart(2, '0') };
}

/**
 * The one JSON logger of a process; components take `logger.child({ component })`. Each line
 * logged inside a span carries its trace ids (`traceFields`).
 */
export function createLogger(options: { name: string; level?: string; destination?: NodeJS.WritableStream }): Logger {
  return pino(
    { name: options.name, level: options.level ?? 'info', redact: { paths: REDACT, censor: '[redacted]' }, mixin: traceFields },
    options.destination ?? process.stdout,
  );
}

/** A logger that writes nothing (tests). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
