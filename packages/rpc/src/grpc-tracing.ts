import { Metadata, status as grpcStatus } from '@grpc/grpc-js';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_RPC_METHOD,
  ATTR_RPC_STATUS_CODE,
  ATTR_RPC_SYSTEM_NAME,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  RPC_SYSTEM_NAME_VALUE_GRPC,
} from '@opentelemetry/semantic-conventions';
import { spansRecorded } from '@wirehook/core';
import { grpcStatusOf } from './errors.ts';

// Trace context across gRPC, by hand: `traceparent` travels in the call metadata, the client
// and the server each make a span (RPC semantic conventions). The grpc-js auto-instrumentation
// would patch `Client.prototype.makeUnaryRequest` and `Server.prototype.register`, which our
// hand-built definitions go through, but only in a process whose ESM loader hooked
// @grpc/grpc-js before it loaded; doing it here works the same in every process and test.
// (So that instrumentation must stay unregistered: it would make every span twice.)

const TRACER = '@wirehook/rpc';

const metadataSetter: TextMapSetter<Metadata> = {
  set: (metadata, key, value) => metadata.set(key, value),
};

const metadataGetter: TextMapGetter<Metadata> = {
  keys: (metadata) => Object.keys(metadata.getMap()),
  get: (metadata, key) => {
    const values = metadata.get(key);
    return values.length === 0 ? undefined : values.map(String);
  },
};

/** Server-side codes that mean the server failed (the others describe the caller's request). */
const SERVER_FAULTS: ReadonlySet<number> = new Set([
  grpcStatus.UNKNOWN,
  grpcStatus.DEADLINE_EXCEEDED,
  grpcStatus.UNIMPLEMENTED,
  grpcStatus.INTERNAL,
  grpcStatus.UNAVAILABLE,
  grpcStatus.DATA_LOSS,
]);

/** A started client call: the metadata to send (with `traceparent`) and how to end the span. */
export interface ClientCallTrace {
  readonly metadata: Metadata;
  /** Ends the span with the call's gRPC status code (`0` for OK). */
  end(code: number, message?: string): void;
}

/**
 * Starts the CLIENT span of a call to `path` (`/package.Service/Method`) on `address`, as a
 * child of the active span, and returns a copy of `metadata` carrying its trace context.
 */
export function startClientCall(path: string, address: string, metadata: Metadata | undefined): ClientCallTrace {
  const started = clientSpan(path, address);
  const outgoing = metadata?.clone() ?? new Metadata();
  propagation.inject(started.context, outgoing, metadataSetter);
  return { metadata: outgoing, end: started.end };
}

/** A started item of a batched call: the trace context to send with it, and how to end its span. */
export interface ItemCallTrace {
  /** `traceparent` (and `tracestate`): the item's own field (intake.proto `BatchedSend.trace_context`). */
  readonly traceContext: Record<string, string>;
  end(code: number, message?: string): void;
}

/**
 * The client side of one item of a batched call (`path`): a CLIENT span, child of the active
 * span, whose context travels with the item, not in the call's metadata — the items of one
 * call come from different requests, each continuing its own trace.
 */
export function startItemClientCall(path: string, address: string): ItemCallTrace {
  const started = clientSpan(path, address);
  const traceContext: Record<string, string> = {};
  propagation.inject(started.context, traceContext);
  return { traceContext, end: started.end };
}

/**
 * The CLIENT span of a call (or of one item of a batched call) and the context to propagate:
 * the active one with the span in it; the active one as it is when nothing records (the
 * caller's trace context travels on, without a span of its own).
 */
function clientSpan(path: string, address: string): { context: Context; end(code: number, message?: string): void } {
  if (!spansRecorded()) return { context: context.active(), end: () => {} };
  const method = path.slice(1);
  const { host, port } = splitAddress(address);
  const span = trace.getTracer(TRACER).startSpan(method, {
    kind: SpanKind.CLIENT,
    attributes: {
      [ATTR_RPC_SYSTEM_NAME]: RPC_SYSTEM_NAME_VALUE_GRPC,
      [ATTR_RPC_METHOD]: method,
      [ATTR_SERVER_ADDRESS]: host,
      ...(port === undefined ? {} : { [ATTR_SERVER_PORT]: port }),
    },
  });
  return { context: trace.setSpan(context.active(), span), end: (code, message) => endSpan(span, code, code !== grpcStatus.OK, message) };
}

/**
 * Runs one item of a batched call (`path`) in a SERVER span that continues the item's own
 * trace context, ended with the gRPC status its outcome would have had as a call of its own.
 */
export async function serveItem<T>(path: string, traceContext: Readonly<Record<string, string>>, work: () => Promise<T>): Promise<T> {
  const traced = serverSpan(path, propagation.extract(ROOT_CONTEXT, traceContext));
  try {
    const value = await context.with(traced.context, work);
    traced.end(grpcStatus.OK);
    return value;
  } catch (err) {
    traced.end(grpcStatusOf(err), err instanceof Error ? err.message : String(err), err);
    throw err;
  }
}

/** A started server call: the context to run the handler in, and how to end the span. */
export interface ServerCallTrace {
  /** The caller's trace continued: the SERVER span is active in it. */
  readonly context: Context;
  /** Ends the span with the gRPC status code answered (`0` for OK) and, for a failure, what was thrown. */
  end(code: number, message?: string, thrown?: unknown): void;
}

/** Starts the SERVER span of a call to `path`, continuing the trace the caller's metadata carries. */
export function startServerCall(path: string, metadata: Metadata): ServerCallTrace {
  return serverSpan(path, propagation.extract(ROOT_CONTEXT, metadata, metadataGetter));
}

/** The SERVER span of a call (or of one item of a batched call) to `path`, a child of `parent`. */
function serverSpan(path: string, parent: Context): ServerCallTrace {
  if (!spansRecorded()) return { context: parent, end: () => {} };
  const method = path.slice(1);
  const span = trace
    .getTracer(TRACER)
    .startSpan(method, { kind: SpanKind.SERVER, attributes: { [ATTR_RPC_SYSTEM_NAME]: RPC_SYSTEM_NAME_VALUE_GRPC, [ATTR_RPC_METHOD]: method } }, parent);
  return {
    context: trace.setSpan(parent, span),
    end: (code, message, thrown) => {
      if (SERVER_FAULTS.has(code) && thrown instanceof Error) span.recordException(thrown);
      endSpan(span, code, SERVER_FAULTS.has(code), message);
    },
  };
}

function endSpan(span: Span, code: number, failed: boolean, message: string | undefined): void {
  const name = grpcStatus[code] ?? String(code);
  span.setAttribute(ATTR_RPC_STATUS_CODE, name);
  if (failed) {
    span.setAttribute(ATTR_ERROR_TYPE, name);
    span.setStatus({ code: SpanStatusCode.ERROR, ...(message === undefined ? {} : { message }) });
  }
  span.end();
}

/** `host:port`, `[v6]:port` or a bare host, after an optional `dns:///`; another target (`ipv4:a:p,b:q`) is its own host. */
function splitAddress(target: string): { host: string; port: number | undefined } {
  const address = target.replace(/^dns:(?:\/\/[^/]*\/)?/, '');
  const match = /^(?:\[(?<v6>[^\]]+)\]|(?<host>[^:]+)):(?<port>\d+)$/.exec(address);
  if (!match?.groups) return { host: address, port: undefined };
  return { host: match.groups['v6'] ?? match.groups['host']!, port: Number(match.groups['port']) };
}
