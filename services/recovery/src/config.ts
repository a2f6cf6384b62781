import { z } from 'zod';
import { dispatchEnv, internalAuthEnv, logEnv, checkNatsEnv, natsEnv, portVar, serveEnv, storeEnv, testClockEnv } from '@wirehook/platform';

/** The recovery service's environment, parsed once in main. */
export const recoveryConfigSchema = z
  .object({
    GRPC_PORT: portVar(50053), // RecoveryService gRPC (and health)
    GRPC_HOST: z.string().default('127.0.0.1'), // address the gRPC server binds; the chart sets 0.0.0.0
    ENDPOINT_SLOTS: dispatchEnv.ENDPOINT_SLOTS, // a batch waits while an endpoint has this many deliveries due or being sent
    ...internalAuthEnv,
    ...serveEnv(9468),
    ...storeEnv,
    ...natsEnv,
    ...logEnv,
    ...testClockEnv,
  })
  .superRefine(checkNatsEnv);
