import { z } from 'zod';
import { deliveryEnv, logEnv, serveEnv, storeEnv, testClockEnv } from '@wirehook/platform';

/** The dispatcher's environment, parsed once in main. Run as many replicas as needed. */
export const dispatcherConfigSchema = z.object({
  ...serveEnv(9466),
  ...storeEnv,
  ...deliveryEnv,
  NATS_URL: z.string().default('nats://127.0.0.1:4222'), // dispatch jobs
  DELIVERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000), // one attempt, connect to response
  DISPATCH_CONCURRENCY: z.coerce.number().int().min(1).max(4_096).default(256), // deliveries sent at once per replica
  ENDPOINT_SLOTS: z.coerce.number().int().min(1).max(1_000).default(16), // concurrent sends to one endpoint per replica
  SWEEP_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000), // how often due deliveries are looked for
  RETENTION_INTERVAL_MS: z.coerce.number().int().min(1_000).default(60 * 60 * 1000), // how often old messages are removed
  ...logEnv,
  ...testClockEnv,
});
