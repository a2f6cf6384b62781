import { apiEnv } from '@wirehook/http-api';
import { deliveryEnv, internalAuthEnv, logEnv, portVar, requireSharedKey, serveEnv, storeEnv, testClockEnv } from '@wirehook/platform';
import { z } from 'zod';

/**
 * The portal's environment, parsed once in main: where it listens, the store, and what its
 * API's routes call — Redis for rate limits, message-intake and the recovery service (the
 * variables every process serving the API shares: packages/http-api `apiEnv`).
 */
export const portalConfigSchema = z
  .object({
    PORT: portVar(8081), // the page and its token API (PORTAL_PORT in the launchers)
    ...serveEnv(9464),
    ...storeEnv,
    ...deliveryEnv,
    ...apiEnv, // REDIS_URL (rate limits, one budget per link's consumer), INTAKE_GRPC_ADDRESS, RECOVERY_GRPC_ADDRESS, GRPC_DEADLINE_MS
    ...internalAuthEnv,
    ...logEnv,
    ...testClockEnv,
  })
  .superRefine(requireSharedKey);

export type PortalConfig = z.output<typeof portalConfigSchema>;
