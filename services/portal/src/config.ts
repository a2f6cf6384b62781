import { z } from 'zod';
import { gatewayConfigSchema } from '@wirehook/gateway';
import { deliveryEnv, internalAuthEnv, logEnv, portVar, requireSharedKey, serveEnv, storeEnv, testClockEnv } from '@wirehook/platform';

// The variables the portal shares with the gateway (the same Redis, the same services) keep
// one rule and one default each: the gateway's.
const shared = gatewayConfigSchema.shape;

/**
 * The portal's environment, parsed once in main: where it listens, the store, and what its
 * API's routes call — Redis for rate limits, message-intake and the recovery service.
 */
export const portalConfigSchema = z
  .object({
    PORT: portVar(8081), // the page and its token API (PORTAL_PORT in the launchers)
    ...serveEnv(9464),
    ...storeEnv,
    ...deliveryEnv,
    REDIS_URL: shared.REDIS_URL, // rate limits, one budget per link's consumer (default redis://127.0.0.1:6379)
    INTAKE_GRPC_ADDRESS: shared.INTAKE_GRPC_ADDRESS, // message-intake: test messages, re-sends (default 127.0.0.1:50051)
    RECOVERY_GRPC_ADDRESS: shared.RECOVERY_GRPC_ADDRESS, // the recovery service (default 127.0.0.1:50053)
    GRPC_DEADLINE_MS: shared.GRPC_DEADLINE_MS, // every call to another service (default 5,000)
    ...internalAuthEnv,
    ...logEnv,
    ...testClockEnv,
  })
  .superRefine(requireSharedKey);

export type PortalConfig = z.output<typeof portalConfigSchema>;
