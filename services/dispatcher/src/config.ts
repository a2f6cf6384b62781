import { z } from 'zod';
import { natsEnv, deliveryEnv, requireSharedKey, dispatchEnv, internalAuthEnv, logEnv, serveEnv, storeEnv, testClockEnv } from '@wirehook/platform';

/** The dispatcher's environment, parsed once in main. Run as many replicas as needed. */
export const dispatcherConfigSchema = z
  .object({
    ...serveEnv(9466),
    ...storeEnv,
    ...deliveryEnv,
    ...natsEnv,
    ...dispatchEnv,
    RELAY_GRPC_ADDRESS: z.string().default('127.0.0.1:50052'), // the egress relay: fixed_ip endpoints are sent through it
    ...internalAuthEnv,
    ...logEnv,
    ...testClockEnv,
  })
  .superRefine(requireSharedKey);
