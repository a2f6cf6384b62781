import type { Logger } from '@wirehook/platform';
import type { Registry } from 'prom-client';
import {
  bindService,
  deliverResponseOf,
  forwardedSendOf,
  grpcMetrics,
  relayv1,
  startGrpcServer,
  tokenFetchOf,
  type GrpcServerHandle,
  type ServiceImpl,
} from '@wirehook/rpc';
import type { EgressRelay } from './relay.ts';

/** Serves `relay` as `wirehook.relay.v1.Relay` (with health) on `address`. */
export function startRelayGrpcServer(options: {
  relay: EgressRelay;
  address: string;
  logger?: Logger;
  authToken: string;
  registry?: Registry;
  /** How long a stop lets the calls in flight finish (the service: relayCallMs, the longest a send takes; else 5 s). */
  shutdownGraceMs?: number;
}): Promise<GrpcServerHandle> {
  const { relay, address, logger, authToken } = options;
  return startGrpcServer({
    address,
    services: [bindService(relayv1.Relay, relayHandlers(relay))],
    onError: (err, path) => logger?.error({ err, path }, 'gRPC call failed'),
    authToken,
    ...(options.shutdownGraceMs === undefined ? {} : { shutdownGraceMs: options.shutdownGraceMs }),
    onUnauthenticated: (path, peer) => logger?.warn({ path, peer }, 'refused a gRPC call without the INTERNAL_AUTH_TOKEN'),
    ...(options.registry ? { metrics: grpcMetrics(options.registry) } : {}),
  });
}

/** A caller's DELIVERY_TIMEOUT_MS (absent or 0 from a dispatcher that sends none): the relay's own then. */
function timeoutOf(timeoutMs: number | undefined): number | undefined {
  return timeoutMs === undefined || timeoutMs <= 0 ? undefined : timeoutMs;
}

/**
 * The Relay service's calls. Each send keeps to the dispatcher's DELIVERY_TIMEOUT_MS (`timeout_ms`)
 * when shorter than this relay's own: the dispatcher's call allows 2 × that + 5 s, so the answer (a
 * receiver's timeout) comes within it. A call out of time already is not sent at all: its dispatcher
 * has recorded it failed and will send it again.
 */
export function relayHandlers(relay: EgressRelay): ServiceImpl<typeof relayv1.Relay> {
  return {
    deliver: async (request, call) =>
      deliverResponseOf(
        callOutOfTime(call.getDeadline()) ? relay.notSent(OUT_OF_TIME) : await relay.send(forwardedSendOf(request), timeoutOf(request.timeoutMs)),
      ),
    fetchToken: async (request, call) => ({
      answer: deliverResponseOf(
        callOutOfTime(call.getDeadline()) ? relay.notSent(OUT_OF_TIME) : await relay.fetchToken(tokenFetchOf(request), timeoutOf(request.timeoutMs)),
      ),
    }),
  };
}

const OUT_OF_TIME = 'relay: the call was out of time before the send began (not sent)';

/** Whether a call's deadline (grpc-js: ms since the epoch, set from `grpc-timeout` as the call arrived; Infinity for none) has passed. */
function callOutOfTime(deadline: Date | number): boolean {
  return (deadline instanceof Date ? deadline.getTime() : deadline) <= Date.now();
}
