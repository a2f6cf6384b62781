import type { SendResult } from '@wirehook/egress';
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

/**
 * The Relay service's calls. Each send keeps to the shortest of this relay's own timeout, the
 * dispatcher's DELIVERY_TIMEOUT_MS (`timeout_ms`) and what the call has left: the dispatcher's call
 * allows 2 × its timeout + 5 s, so the answer (a receiver's timeout) comes within it — also when the
 * call reached the relay late (queued while its channel connected). A call out of time already is
 * not sent at all: its dispatcher has recorded it failed and will send it again.
 */
export function relayHandlers(relay: EgressRelay): ServiceImpl<typeof relayv1.Relay> {
  /** A call's answer: `send` within its limit, or not sent at all when the call is out of time. */
  const answer = async (timeoutMs: number | undefined, call: { getDeadline(): Date | number }, send: (limit: number | undefined) => Promise<SendResult>) => {
    const limit = sendLimit(timeoutMs, call.getDeadline());
    return deliverResponseOf(limit === OUT_OF_TIME ? relay.notSent(OUT_OF_TIME) : await send(limit));
  };
  return {
    deliver: (request, call) => answer(request.timeoutMs, call, (limit) => relay.send(forwardedSendOf(request), limit)),
    fetchToken: async (request, call) => ({ answer: await answer(request.timeoutMs, call, (limit) => relay.fetchToken(tokenFetchOf(request), limit)) }),
  };
}

const OUT_OF_TIME = 'relay: the call was out of time before the send began (not sent)';

/**
 * Kept from a call's time left for the answer's way back to the dispatcher: an open connection's
 * moment, with room for a busy process. (relayCallMs' 5 s also covers the call's way here.)
 */
const ANSWER_MARGIN_MS = 1_000;

/**
 * The limit of a call's send (each of its two waits; the relay's own timeout applies too, in HttpEgress):
 * the caller's DELIVERY_TIMEOUT_MS — absent or 0 from a dispatcher that sends none — and half the
 * call's time left less ANSWER_MARGIN_MS, the shorter; OUT_OF_TIME when its deadline (grpc-js: ms since
 * the epoch, from `grpc-timeout` as the call arrived; Infinity for none) has passed.
 */
function sendLimit(timeoutMs: number | undefined, deadline: Date | number, now = Date.now()): number | undefined | typeof OUT_OF_TIME {
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  if (at <= now) return OUT_OF_TIME;
  const caller = timeoutMs === undefined || timeoutMs <= 0 ? undefined : timeoutMs;
  if (!Number.isFinite(at)) return caller;
  const left = Math.max(1, Math.floor((at - now - ANSWER_MARGIN_MS) / 2));
  return caller === undefined ? left : Math.min(caller, left);
}
