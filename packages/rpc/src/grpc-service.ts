import {
  Client,
  credentials as grpcCredentials,
  status as grpcStatus,
  type ChannelCredentials,
  type ChannelOptions,
  type MethodDefinition,
  type Server,
  type ServerUnaryCall,
  Metadata,
  type ServiceDefinition,
  type ServiceError,
  type UntypedHandleCall,
  type handleUnaryCall,
} from '@grpc/grpc-js';
import { create, fromBinary, toBinary, type DescMethod, type DescService, type Message, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { AUTH_METADATA_KEY, bearer, callAuthorized } from './call-auth.ts';
import { fromServiceError, loggedWhereThrown, toStatus } from './errors.ts';
import { DEFAULT_DEADLINE_MS } from './call-limits.ts';
import type { GrpcMetrics } from './grpc-metrics.ts';
import { startClientCall, startServerCall } from './grpc-tracing.ts';

// protobuf-es v2 has no grpc-js generator: the grpc-js definitions are built here from the
// generated service descriptors. Unary RPCs only (all our services are unary).

export { DEFAULT_DEADLINE_MS } from './call-limits.ts';

/** `/wirehook.intake.v1.MessageIntake/Send` */
export function methodPath(method: DescMethod): string {
  return `/${method.parent.typeName}/${method.name}`;
}

/** The grpc-js definition of one unary method: its path and protobuf-es binary codecs. */
export function methodDefinition(method: DescMethod): MethodDefinition<Message, Message> {
  if (method.methodKind !== 'unary') {
    throw new Error(`${method.parent.typeName}.${method.name} is ${method.methodKind}; only unary RPCs are supported`);
  }
  return {
    path: methodPath(method),
    requestStream: false,
    responseStream: false,
    requestSerialize: (m) => Buffer.from(toBinary(method.input, m)),
    requestDeserialize: (b) => fromBinary(method.input, b),
    responseSerialize: (m) => Buffer.from(toBinary(method.output, m)),
    responseDeserialize: (b) => fromBinary(method.output, b),
    originalName: method.localName,
  };
}

/** The grpc-js `ServiceDefinition` of a generated service, keyed by method local name. @throws Error for a streaming method. */
export function serviceDefinition(desc: DescService): ServiceDefinition {
  return Object.fromEntries(desc.methods.map((m) => [m.localName, methodDefinition(m)]));
}

type Methods<S extends DescService> = S['method'];
type UntypedHandler = (request: Message, call: ServerUnaryCall<Message, Message>) => Promise<Record<string, unknown>>;

/** A server's implementation of `S`: one async handler per method; throw a WirehookError to fail a call. */
export type ServiceImpl<S extends DescService> = {
  [K in keyof Methods<S>]: (
    request: MessageShape<Methods<S>[K]['input']>,
    call: ServerUnaryCall<MessageShape<Methods<S>[K]['input']>, MessageShape<Methods<S>[K]['output']>>,
  ) => Promise<MessageInitShape<Methods<S>[K]['output']>>;
};

export interface AddServiceOptions {
  /** Called with what a handler throws that loggedWhereThrown: a fault (answered as an opaque INTERNAL), or a dependency down with its cause. */
  onError?: (err: unknown, path: string) => void;
  /**
   * The shared secret every call must carry (`authorization: Bearer …`); a call without it
   * is answered UNAUTHENTICATED before its handler runs. The services trust the tenant and
   * plan a call names, so no one else may make one.
   */
  authToken: string;
  /** Called with each refused call (path and the caller's address), for the log. */
  onUnauthenticated?: (path: string, peer: string) => void;
  /** Where calls handled are counted (grpc_server_handled_total, grpc_server_handling_seconds). */
  metrics?: GrpcMetrics;
  /**
   * Methods (local names) whose calls make no span of their own: batched calls, whose handler
   * continues each item's own trace (grpc-tracing.ts `serveItem`).
   */
  tracedByItem?: ReadonlySet<string>;
  /**
   * The calls whose handlers are running, each until its answer is sent: a stopping server waits
   * for them after cancelling the calls (grpc-server.ts), so the parts stopped after it are not
   * closed under a handler still at work.
   */
  running?: Set<Promise<void>>;
}

/**
 * Serves `impl` for `desc` on `server`. A thrown WirehookError goes back as its gRPC status
 * with the exact code and message (errors.ts). Each call continues the caller's trace (the
 * `traceparent` of its metadata) in a SERVER span the handler runs in.
 * @throws Error for a streaming method.
 */
export function addService<S extends DescService>(server: Server, desc: S, impl: ServiceImpl<S>, options: AddServiceOptions): void {
  const handlers: Record<string, UntypedHandleCall> = {};
  for (const method of desc.methods) {
    const path = methodPath(method);
    const handle = impl[method.localName as keyof ServiceImpl<S>] as unknown as UntypedHandler;
    const handler: handleUnaryCall<Message, Message> = (call, callback) => {
      if (!callAuthorized(call.metadata, options.authToken)) {
        options.onUnauthenticated?.(path, call.getPeer());
        callback({ code: grpcStatus.UNAUTHENTICATED, details: "this service takes calls only with the cluster's INTERNAL_AUTH_TOKEN" });
        return;
      }
      const traced = options.tracedByItem?.has(method.localName) ? UNTRACED_SERVER_CALL : startServerCall(path, call.metadata);
      const started = performance.now();
      const done = (code: number) => options.metrics?.observe('server', path, code, (performance.now() - started) / 1000);
      const work = context.with(traced.context, () =>
        Promise.resolve()
          .then(() => handle(call.request, call))
          .then(
            (out) => {
              traced.end(grpcStatus.OK);
              done(grpcStatus.OK);
              callback(null, create(method.output, out));
            },
            (err: unknown) => {
              const answer = toStatus(err);
              if (loggedWhereThrown(err)) options.onError?.(err, path);
              traced.end(answer.code ?? grpcStatus.UNKNOWN, answer.details, err);
              done(answer.code ?? grpcStatus.UNKNOWN);
              callback(answer);
            },
          ),
      );
      const running = options.running;
      if (running !== undefined) {
        running.add(work);
        const ended = () => void running.delete(work);
        work.then(ended, ended);
      }
    };
    handlers[method.localName] = handler;
  }
  server.addService(serviceDefinition(desc), handlers);
}

const UNTRACED_SERVER_CALL = { context: ROOT_CONTEXT, end: () => {} };

/**
 * What every client's channel starts from (a caller's `channelOptions` override each).
 *
 * grpc-js' default policy, pick_first, sends every call over one connection to the first
 * address that answers: behind a Kubernetes ClusterIP Service that is one pod for the
 * connection's life, so added replicas take nothing. round_robin keeps a connection to every
 * address the target resolves to (`dns:///<release>-message-intake-headless:50051` against a
 * headless Service: one A record per ready pod; `ipv4:10.0.0.1:50051,10.0.0.2:50051`) and
 * spreads calls over those that are connected. grpc-js resolves the name again whenever a
 * connection drops (a pod gone; a server ending a connection at its max age, which is how
 * new pods are found: grpc-server.ts), at most every 5 s, CoreDNS's record TTL (its own
 * default, 30 s, can leave a client holding only the addresses of pods a rolling update has
 * just replaced). The TXT lookup for a service config in DNS is off: the policy is ours.
 * Keepalive pings notice a pod that vanished without closing its connections (its node
 * lost) within 40 s instead of the kernel's TCP timeout; our servers (grpc-js) allow them.
 * A connection its server has ended (GOAWAY) sends none while its last calls finish
 * (patches/@grpc__grpc-js@1.14.7.patch, grpc-server.ts): those are bounded by their
 * deadlines (5 s unless a client says otherwise; the egress relay's calls, twice the delivery
 * timeout and 5 s).
 */
export const DEFAULT_CHANNEL_OPTIONS: ChannelOptions = {
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  'grpc.service_config_disable_resolution': 1,
  'grpc.dns_min_time_between_resolutions_ms': 5_000,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 1,
};

export interface ClientOptions {
  /**
   * A gRPC target: `host:port` (every address the name resolves to is used),
   * `dns:///host:port` (the same, said explicitly) or `ipv4:a.b.c.d:port,a.b.c.d:port`.
   */
  address: string;
  /** Default deadline of each call (5 s). */
  deadlineMs?: number;
  /** Default: insecure (plaintext inside the cluster network). */
  credentials?: ChannelCredentials;
  /** The shared secret sent with every call (the server's `authToken`). */
  authToken: string;
  /** Merged over {@link DEFAULT_CHANNEL_OPTIONS}. */
  channelOptions?: ChannelOptions;
  /** Where calls made are counted (grpc_client_handled_total, grpc_client_handling_seconds). */
  metrics?: GrpcMetrics;
}

export interface CallOptions {
  /** This call's deadline, instead of the client's. */
  deadlineMs?: number;
  metadata?: Metadata;
  /** No span for the call, and no trace context in its metadata: a batched call, whose items carry their own (startItemClientCall). */
  untraced?: boolean;
}

/** A typed client of `S`: one promise-returning function per method. */
export type ServiceClient<S extends DescService> = {
  [K in keyof Methods<S>]: (request: MessageInitShape<Methods<S>[K]['input']>, options?: CallOptions) => Promise<MessageShape<Methods<S>[K]['output']>>;
};

/** A client and its connection. */
export interface GrpcClient<S extends DescService> {
  readonly rpc: ServiceClient<S>;
  /** Closes the connection; calls after it fail. */
  close(): void;
}

/**
 * A typed client of `desc` at `options.address`. Every call has a deadline, and is a CLIENT
 * span (child of the active span) whose trace context travels in the call's metadata. A
 * failed call rejects with the server's WirehookError, an UnavailableError (unreachable,
 * deadline exceeded) or an RpcError (errors.ts `fromServiceError`).
 */
export function createClient<S extends DescService>(desc: S, options: ClientOptions): GrpcClient<S> {
  const client = new Client(options.address, options.credentials ?? grpcCredentials.createInsecure(), {
    ...DEFAULT_CHANNEL_OPTIONS,
    ...options.channelOptions,
  });
  const defaultDeadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const rpc: Record<string, (request: Record<string, unknown>, callOptions?: CallOptions) => Promise<Message>> = {};
  for (const method of desc.methods) {
    const def = methodDefinition(method);
    rpc[method.localName] = (request, callOptions = {}) => {
      const deadlineMs = callOptions.deadlineMs ?? defaultDeadlineMs;
      const traced = callOptions.untraced
        ? { metadata: callOptions.metadata?.clone() ?? new Metadata(), end: () => {} }
        : startClientCall(def.path, options.address, callOptions.metadata);
      const started = performance.now();
      traced.metadata.set(AUTH_METADATA_KEY, bearer(options.authToken));
      return new Promise((resolve, reject) => {
        try {
          client.makeUnaryRequest(
            def.path,
            def.requestSerialize,
            def.responseDeserialize,
            create(method.input, request),
            traced.metadata,
            { deadline: Date.now() + deadlineMs },
            (err: ServiceError | null, value?: Message) => {
              traced.end(err ? err.code : grpcStatus.OK, err?.details);
              options.metrics?.observe('client', def.path, err ? err.code : grpcStatus.OK, (performance.now() - started) / 1000);
              if (err) reject(fromServiceError(err, def.path, desc.name, deadlineMs));
              else resolve(value!);
            },
          );
        } catch (err) {
          // Refused before it was sent (e.g. the client is closed): still a rejection, and the span ends.
          traced.end(grpcStatus.UNKNOWN, err instanceof Error ? err.message : String(err));
          throw err;
        }
      });
    };
  }
  return { rpc: rpc as unknown as ServiceClient<S>, close: () => client.close() };
}
