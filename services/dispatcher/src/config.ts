import { z } from 'zod';
import { deliveryEnv, requireSharedKey, dispatchEnv, logEnv, serveEnv, storeEnv, testClockEnv } from '@wirehook/platform';

/** The dispatcher's environment, parsed once in main. Run as many replicas as needed. */
export const dispatcherConfigSchema = z.object({
  ...serveEnv(9466),
  ...storeEnv,
  ...deliveryEnv,
  NATS_URL: z.string().default('nats://127.0.0.1:4222'), // dispatch jobs
  ...dispatchEnv,
  ...logEnv,
  ...testClockEnv,
}).superRefine(requireSharedKey);
