import { z } from 'zod';
import { deliveryEnv, logEnv, portVar, serveEnv, storeEnv, testClockEnv } from '@wirehook/platform';

/** Embedded mode's environment: every variable, its default, parsed once in main. */
export const embeddedConfigSchema = z.object({
  PORT: portVar(8080), // public API
  PORTAL_PORT: portVar(8081), // customer settings page (portal service)
  PORTAL_PUBLIC_URL: z.url().default('http://localhost:8081'), // base of portal links
  ...serveEnv(9464),
  ...storeEnv,
  ...deliveryEnv,
  DELIVERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000), // one attempt, connect to response
  DISPATCH_CONCURRENCY: z.coerce.number().int().min(1).max(4_096).default(256), // deliveries sent at once
  ENDPOINT_SLOTS: z.coerce.number().int().min(1).max(1_000).default(16), // concurrent sends to one endpoint
  SWEEP_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000), // how often due deliveries are looked for
  RETENTION_INTERVAL_MS: z.coerce.number().int().min(1_000).default(60 * 60 * 1000), // how often old messages are removed
  ...logEnv,
  ...testClockEnv,
});

export type EmbeddedConfig = z.output<typeof embeddedConfigSchema>;
