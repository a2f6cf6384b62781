import { z } from 'zod';
import { natsEnv, deliveryEnv, requireSharedKey, dispatchEnv, logEnv, serveEnv, storeEnv, testClockEnv } from '@wirehook/platform';

/** The dispatcher's environment, parsed once in main. Run as many replicas as needed. */
export const dispatcherConfigSchema = z.object({
  ...serveEnv(9466),
  ...storeEnv,
  ...deliveryEnv,
  ...natsEnv,
  ...dispatchEnv,
  ...logEnv,
  ...testClockEnv,
}).superRefine(requireSharedKey);
