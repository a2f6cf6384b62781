import type { Logger } from '@wirehook/platform';
import type { Registry } from 'prom-client';
import { bindService, grpcMetrics, relayv1, startGrpcServer, type GrpcServerHandle, type ServiceImpl } from '@wirehook/rpc';
import type { EgressRelay } from './relay.ts';

/** Serves `relay` as `wirehook.relay.v1.Relay` (with health) on `address`. */
export function startRelayGrpcServer(options: {
  relay: EgressRelay;
  address: string;
  logger?: Logger;
  authToken: string;
  registry?: Registry;
}): Promise<GrpcServerHandle> {
  const { relay, address, logger, authToken } = options;
  const handlers: ServiceImpl<typeof relayv1.Relay> = {
    deliver: async ({ url, poolKey, headers, body }) => {
      const r = await relay.send({ url, poolKey, headers, body: Buffer.from(body).toString('utf8') });
      return {
        ok: r.ok,
        durationMs: Math.max(0, Math.round(r.durationMs)),
        ...(r.status === null ? {} : { status: r.status }),
        ...(r.responseHead === null ? {} : { responseHead: r.responseHead }),
        ...(r.error === null ? {} : { error: r.error }),
        ...(r.sourceIp === null ? {} : { sourceIp: r.sourceIp }),
        ...(r.retryAfter == null ? {} : { retryAfter: r.retryAfter }),
      };
    },
  };
  return startGrpcServer({
    address,
    services: [bindService(relayv1.Relay, handlers)],
    onError: (err, path) => logger?.error({ err, path }, 'gRPC call failed'),
    authToken,
    onUnauthenticated: (path, peer) => logger?.warn({ path, peer }, 'refused a gRPC call without the INTERNAL_AUTH_TOKEN'),
    ...(options.registry ? { metrics: grpcMetrics(options.registry) } : {}),
  });
}
