import { noResponse, type SendResult } from '@wirehook/egress';
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
  // Each send keeps to the dispatcher's DELIVERY_TIMEOUT_MS when shorter than this relay's own: the
  // dispatcher's call allows 2 × that + 5 s, so the answer (a receiver's timeout) comes within it. A call
  // out of time already is not sent at all: its dispatcher has recorded it failed and will send it again.
  const handlers: ServiceImpl<typeof relayv1.Relay> = {
    deliver: async (request, call) =>
      deliverResponseOf(callOutOfTime(call.getDeadline()) ?? (await relay.send(forwardedSendOf(request), timeoutOf(request.timeoutMs)))),
    fetchToken: async (request, call) => ({
      answer: deliverResponseOf(callOutOfTime(call.getDeadline()) ?? (await relay.fetchToken(tokenFetchOf(request), timeoutOf(request.timeoutMs)))),
    }),
  };

  return startGrpcServer({
    address,
    services: [bindService(relayv1.Relay, handlers)],
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

/** A failure to answer, not sent, when the call's deadline (grpc-js: ms since the epoch; Infinity for none) has passed. */
export function callOutOfTime(deadline: Date | number, now = Date.now()): SendResult | undefined {
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  return at <= now ? noResponse('relay: the call was out of time before the send began (not sent)', 0) : undefined;
}
