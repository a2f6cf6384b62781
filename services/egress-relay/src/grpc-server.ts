import { relaySendLimitMs } from '@wirehook/core/without-schemas';
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
  // Each send is limited by the time its call has left, not only by this relay's own DELIVERY_TIMEOUT_MS:
  // a dispatcher with a shorter one gets the send's answer (a timeout) before it gives the call up.
  const handlers: ServiceImpl<typeof relayv1.Relay> = {
    deliver: async (request, call) => deliverResponseOf(await relay.send(forwardedSendOf(request), sendLimitOf(call.getDeadline()))),
    fetchToken: async (request, call) => ({ answer: deliverResponseOf(await relay.fetchToken(tokenFetchOf(request), sendLimitOf(call.getDeadline()))) }),
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

/** The limit a send of a call with `deadline` gets (relaySendLimitMs); none when the call has no deadline. */
function sendLimitOf(deadline: Date | number): number | undefined {
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(at) ? relaySendLimitMs(at - Date.now()) : undefined;
}
