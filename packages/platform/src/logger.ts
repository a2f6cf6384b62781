import { hostname } from 'node:os';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import { pino, type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';
import { requiredOnFirstUse } from '@wirehook/core';

// pino-pretty (≈ 40 ms of CPU to import) is required only by a logger that writes to a terminal:
// a service logging JSON — every pod, every test — never loads it.
const pinoPretty = requiredOnFirstUse<typeof PinoPretty>(import.meta.url, 'pino-pretty');

export type { Logger } from 'pino';

/** Paths whose values are never written to a log line. */
const REDACT = ['req.headers.authorization', 'headers.authorization', '*.secret', '*.key', '*.payload', 'secret', 'key', 'payload'];

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

/** How log lines are written: `auto` is `pretty` on a terminal, JSON otherwise. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LoggerOptions {
  /** The service: every line's `service` (and pino's `name`). */
  name: string;
  level?: string;
  format?: LogFormat;
  /** Which replica: every line's `instance`. Default: WIREHOOK_INSTANCE, else the host name (the pod's, in Kubernetes). */
  instance?: string;
  destination?: NodeJS.WritableStream;
}

/**
 * The one logger of a process; components take `logger.child({ component })`. Every line
 * names its `service` and `instance`, and, logged inside a span, carries its trace ids
 * (`traceFields`). JSON for machines; on a terminal one coloured line per event (pino-pretty,
 * pino's own formatter, rather than a hand-written one).
 */
export function createLogger(options: LoggerOptions): Logger {
  const destination = options.destination ?? process.stdout;
  keepLoggingWhenReaderGone(destination);
  const format = options.format ?? 'auto';
  const isTerminal = (destination as { isTTY?: boolean }).isTTY === true;
  const instance = options.instance ?? (process.env['WIREHOOK_INSTANCE'] || hostname());
  const stream =
    format === 'pretty' || (format === 'auto' && isTerminal)
      ? prettyLines(destination, {
          // FORCE_COLOR: the cluster launcher shows its children's lines on its own terminal.
          colorize: isTerminal || (process.env['FORCE_COLOR'] ?? '0') !== '0',
          singleLine: true,
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'pid,hostname,name,service,instance,component,trace_flags',
          messageFormat: '{service}{if component}/{component}{end}: {msg}',
        })
      : destination;
  return pino(
    {
      name: options.name,
      level: options.level ?? 'info',
      base: { service: options.name, instance, pid: process.pid },
      redact: { paths: REDACT, censor: '[redacted]' },
      mixin: traceFields,
    },
    stream,
  );
}

/** A logger that writes nothing (tests). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/**
 * Each line formatted by pino-pretty as it is logged and written straight to `destination`, where
 * it waits with every other write. (pino-pretty's own stream pipes a transform into it: behind a
 * slow reader the pipe paused and the lines waited in the transform, out of sight of a process
 * ending once stdout had written its lines — afterWritten — which then dropped them.)
 */
function prettyLines(destination: NodeJS.WritableStream, options: PinoPretty.PrettyOptions): { write(line: string): void } {
  const pretty = pinoPretty().prettyFactory(options);
  return { write: (line) => void destination.write(pretty(line)) };
}

/** Destinations whose write errors are already taken care of (createLogger may be called again on one). */
const guarded = new WeakSet<NodeJS.WritableStream>();

/**
 * A destination whose reader has gone (EPIPE: the cluster launcher killed, a terminal closed)
 * fails its writes with an 'error' event, which, unheard, ended the process — mid-drain, its
 * sends and a layout upgrade's lease with it. Lines with nowhere to go are dropped; the process
 * carries on with its stop. Any other write failure is said once on stderr. (pino-pretty's own
 * stream used to swallow every error for pretty lines.)
 */
function keepLoggingWhenReaderGone(destination: NodeJS.WritableStream): void {
  if (guarded.has(destination)) return;
  guarded.add(destination);
  let said = false;
  destination.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED' || said) return;
    // Another failure (a full disk under a file): said once where it may still be read, the process going on.
    said = true;
    process.stderr.write(`log lines are being lost: ${err.message}\n`);
  });
}
