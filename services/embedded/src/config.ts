import { z } from 'zod';
import { deliveryEnv, dispatchEnv, logEnv, portVar, serveEnv, storeEnv, testClockEnv } from '@wirehook/platform';

/** Embedded mode's environment: every variable, its default, parsed once in main. */
export const embeddedConfigSchema = z.object({
  PORT: portVar(8080), // public API
  PORTAL_PORT: portVar(8081), // customer settings page (portal service)
  PORTAL_PUBLIC_URL: z.url().default('http://localhost:8081'), // base of portal links
  ...serveEnv(9464),
  ...storeEnv,
  ...deliveryEnv,
  ...dispatchEnv,
  ...logEnv,
  ...testClockEnv,
});

export type EmbeddedConfig = z.output<typeof embeddedConfigSchema>;
