import { z } from 'zod';
import { natsEnv, deliveryEnv, requireSharedKey, dispatchEnv, internalAuthEnv, logEnv, serveEnv, storeEnv, testClockEnv } from '@wirehook/platform';
import { GRPC_TARGET_ERROR, isGrpcTarget } from '@wirehook/rpc';

/** A gRPC target variable (`host:port`, `dns:///host:port`, `ipv4:a:p,b:q`), refused at start with its name when it is none. */
const grpcTarget = z.string().refine(isGrpcTarget, { error: GRPC_TARGET_ERROR });

/** The dispatcher's environment, parsed once in main. Run as many replicas as needed. */
export const dispatcherConfigSchema = z
  .object({
    ...serveEnv(9466),
    ...storeEnv,
    ...deliveryEnv,
    ...natsEnv,
    ...dispatchEnv,
    RELAY_GRPC_ADDRESS: grpcTarget.default('127.0.0.1:50052'), // the egress relay: fixed_ip endpoints are sent through it
    ...internalAuthEnv,
    ...logEnv,
    ...testClockEnv,
  })
  .superRefine(requireSharedKey);
