import { z } from 'zod';
import { deliveryEnv, dispatchEnv, internalAuthEnv, logEnv, portVar, serveEnv } from '@wirehook/platform';
import { relayEgressModeVar, relaySourceIpsVar } from './relay-sources.ts';

/** The egress relay's environment, parsed once in main. */
export const relayConfigSchema = z.object({
  GRPC_PORT: portVar(50052), // Relay gRPC (and health)
  GRPC_HOST: z.string().default('127.0.0.1'), // address the gRPC server binds; the chart sets 0.0.0.0
  RELAY_EGRESS_MODE: relayEgressModeVar, // bind (default): the pool is this host's addresses, bound to; nat: a NAT gateway in front has them (EKS, GKE, AKS)
  RELAY_SOURCE_IPS: relaySourceIpsVar, // the fixed IP pool (default empty): bind, addresses of this host; nat, the NAT gateway's as advertised
  DELIVERY_TIMEOUT_MS: dispatchEnv.DELIVERY_TIMEOUT_MS,
  ENDPOINT_SLOTS: dispatchEnv.ENDPOINT_SLOTS,
  ...deliveryEnv,
  ...internalAuthEnv,
  ...serveEnv(9467),
  ...logEnv,
});
