import type { EndpointId, RecoveryId, RecoveryPort } from '@wirehook/core';
import type { Logger } from '@wirehook/platform';
import type { Registry } from 'prom-client';
import {
  bindService,
  notYetLate,
  grpcMetrics,
  recoveryToProto,
  recoveryv1,
  startGrpcServer,
  tenantFromProto,
  type GrpcServerHandle,
  type ServiceImpl,
} from '@wirehook/rpc';

/**
 * Serves `recovery` as `wirehook.recovery.v1.RecoveryService` (with health) on `address`;
 * a WirehookError reaches the gateway's RecoveryGrpcClient as the same error.
 */
export function startRecoveryGrpcServer(options: {
  recovery: RecoveryPort;
  address: string;
  logger?: Logger;
  authToken: string;
  registry?: Registry;
}): Promise<GrpcServerHandle> {
  const { recovery, address, logger, authToken } = options;
  return startGrpcServer({
    address,
    services: [bindService(recoveryv1.RecoveryService, recoveryHandlers(recovery))],
    onError: (err, path) => logger?.error({ err, path }, 'gRPC call failed'),
    authToken,
    onUnauthenticated: (path, peer) => logger?.warn({ path, peer }, 'refused a gRPC call without the INTERNAL_AUTH_TOKEN'),
    ...(options.registry ? { metrics: grpcMetrics(options.registry) } : {}),
  });
}

/** The RecoveryService's calls: a start read after its deadline is not begun (its caller has answered 503). */
export function recoveryHandlers(recovery: RecoveryPort): ServiceImpl<typeof recoveryv1.RecoveryService> {
  return {
    start: async ({ tenant, endpointId, since }, call) => {
      notYetLate(call, 'RecoveryService');
      return { recovery: recoveryToProto(await recovery.start(tenantFromProto(tenant), endpointId as EndpointId, Number(since))) };
    },
    get: async ({ tenant, endpointId, recoveryId }) => {
      const found = await recovery.get(tenantFromProto(tenant), endpointId as EndpointId, recoveryId as RecoveryId);
      return found === null ? {} : { recovery: recoveryToProto(found) };
    },
  };
}
