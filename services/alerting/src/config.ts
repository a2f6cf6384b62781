import { z } from 'zod';
import { deliveryEnv, emailEnv, logEnv, requireSharedKey, serveEnv, storeEnv, testClockEnv } from '@wirehook/platform';

/** The alerting service's environment, parsed once in main. */
export const alertingConfigSchema = z
  .object({ ...serveEnv(9469), ...storeEnv, ...deliveryEnv, ...emailEnv, ...logEnv, ...testClockEnv })
  .superRefine(requireSharedKey);
