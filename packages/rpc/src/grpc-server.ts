import { Server, ServerCredentials } from '@grpc/grpc-js';
import type { DescService } from '@bufbuild/protobuf';
import { within } from '@wirehook/core';
import { addService, type AddServiceOptions, type ServiceImpl } from './grpc-service.ts';
import { addHealthService } from './health.ts';

/**
 * Each connection is ended (GOAWAY; calls in flight finish on it) after about a minute, so
 * clients resolve the target again and reconnect: a round_robin client (grpc-service.ts)
 * finds pods added since it connected, and one behind a ClusterIP Service may land on another
 * pod each time. grpc-js varies the age by ±10 % so a client's connections do not all end at once.
 * A call in flight at the GOAWAY finishes on the old connection: grpc-js 1.14.7's client
 * failed it with UNAVAILABLE when its keepalive ping came due first (grpc/grpc-node#3068),
 * which patches/@grpc__grpc-js@1.14.7.patch mends (grpc-connection-age.test.ts). The server's
 * own keepalive ('grpc.keepalive_time_ms' here) is off: its pings have the same flaw, unpatched.
 */
const MAX_CONNECTION_AGE_MS = 60_000;

/**
 * How long a stop waits, after cancelling the calls its grace left, for their handlers to end:
 * the clients have their CANCELLED, but a handler runs on (a store write under way), and what a
 * service stops after its server — the store — would close under it. Bounded: a handler stuck on
 * a dependency that does not answer is left to its own limits.
 */
const CANCELLED_HANDLERS_MS = 2_000;

/** One service to serve: made by `bindService`, typed where it is made. */
export interface ServiceBinding {
  readonly typeName: string;
  register(server: Server, options: AddServiceOptions): void;
}

/**
 * Pairs a generated service descriptor with its implementation. `tracedByItem`: its batched
 * methods, whose handlers trace each item (AddServiceOptions).
 */
export function bindService<S extends DescService>(
  desc: S,
  impl: ServiceImpl<S>,
  tracedByItem: ReadonlyArray<keyof ServiceImpl<S> & string> = [],
): ServiceBinding {
  const traced = new Set<string>(tracedByItem);
  return { typeName: desc.typeName, register: (server, options) => addService(server, desc, impl, { ...options, tracedByItem: traced }) };
}

export interface StartGrpcServerOptions extends AddServiceOptions {
  /** `host:port`; port 0 picks a free one. */
  address: string;
  services: readonly ServiceBinding[];
  /** How long `stop()` waits for calls in flight before cancelling them (default 5 s). */
  shutdownGraceMs?: number;
  /** How long a connection lives before the server ends it (default 60 s; tests shorten it). */
  maxConnectionAgeMs?: number;
}

/** A listening gRPC server. */
export interface GrpcServerHandle {
  /** The bound port (the chosen one when the address said 0). */
  readonly port: number;
  /**
   * Reports NOT_SERVING, lets calls in flight finish within the grace period, then cancels the rest
   * and waits for their handlers to end (CANCELLED_HANDLERS_MS at most).
   */
  stop(): Promise<void>;
}

/**
 * Serves `services` and the standard health service (each service SERVING) on `address`,
 * plaintext: the cluster network is the trust boundary.
 * @throws Error when the address cannot be bound.
 */
export async function startGrpcServer(options: StartGrpcServerOptions): Promise<GrpcServerHandle> {
  const server = new Server({ 'grpc.max_connection_age_ms': options.maxConnectionAgeMs ?? MAX_CONNECTION_AGE_MS });
  const running = new Set<Promise<void>>();
  for (const service of options.services) service.register(server, { ...options, running });
  const names = options.services.map((s) => s.typeName);
  const health = addHealthService(server, names);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(options.address, ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound)));
  });
  let stopped: Promise<void> | undefined;
  return {
    port,
    stop: () => {
      stopped ??= new Promise<void>((resolve) => {
        for (const name of ['', ...names]) health.setStatus(name, 'NOT_SERVING');
        const force = setTimeout(() => {
          server.forceShutdown();
          const late = () => new Error(`handlers still running ${CANCELLED_HANDLERS_MS} ms after their calls were cancelled`);
          void within(Promise.allSettled([...running]), CANCELLED_HANDLERS_MS, late)
            .catch(() => undefined)
            .then(() => resolve());
        }, options.shutdownGraceMs ?? 5_000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
      return stopped;
    },
  };
}
