import { z } from 'zod';
import { relaySourceIpsVar } from '@wirehook/egress-relay';
import { deliveryEnv, dispatchEnv, emailEnv, logEnv, portVar, serveEnv, storeEnv, testClockEnv } from '@wirehook/platform';

/** Embedded mode's environment: every variable, its default, parsed once in main. */
export const embeddedConfigSchema = z.object({
  PORT: portVar(8080), // public API
  PORTAL_PORT: portVar(8081), // customer settings page (portal service)
  PORTAL_PUBLIC_URL: z.url().default('http://localhost:8081'), // base of portal links
  API_PUBLIC_URL: z.url().optional(), // the API's public base URL, the served OpenAPI document's `servers` (default: unset, each request's own origin)
  ...serveEnv(9464),
  ...storeEnv,
  ...deliveryEnv,
  ...dispatchEnv,
  RELAY_SOURCE_IPS: relaySourceIpsVar, // the fixed IP pool fixed_ip endpoints are sent from (the relay runs in-process)
  ...emailEnv,
  ...logEnv,
  ...testClockEnv,
});

export type EmbeddedConfig = z.output<typeof embeddedConfigSchema>;
