import { z } from 'zod';
import {
  emailEnv,
  deliveryEnv,
  dispatchEnv,
  requireSharedKey,
  internalAuthEnv,
  logEnv,
  natsEnv,
  portVar,
  relaySourceIpsVar,
  serveEnv,
  storeEnv,
  testClockEnv,
} from '@wirehook/platform';
import { apiEnv } from '@wirehook/http-api';

/** The gateway's environment, parsed once in main. */
export const gatewayConfigSchema = z
  .object({
    PORT: portVar(8080), // public API
    PORTAL_PUBLIC_URL: z.url().default('http://localhost:8081'), // base of portal links (where the portal service is reached)
    API_PUBLIC_URL: z.url().optional(), // the API's public base URL, the served OpenAPI document's `servers` (default: unset, each request's own origin)
    ...serveEnv(9464),
    ...storeEnv,
    ...deliveryEnv,
    ...apiEnv, // REDIS_URL, INTAKE_GRPC_ADDRESS, RECOVERY_GRPC_ADDRESS, GRPC_DEADLINE_MS
    // Default redis: duplicates in flight wait for the first send's answer and replays are
    // answered from Redis (the store still decides every new key); off: all go to message-intake.
    IDEMPOTENCY_FRONT: z.enum(['redis', 'off']).default('redis'),
    // How long the front remembers an answer (the store decides for 24 h).
    IDEMPOTENCY_FRONT_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(600),
    // The egress relay's fixed IP pool (default empty): recorded at start and listed by
    // GET /v1/egress-ips (removed addresses stay listed, retiring, 30 days); empty records nothing.
    RELAY_SOURCE_IPS: relaySourceIpsVar,
    // NATS: only for `wirehook listen` (request/reply to the dispatchers; no JetStream). The API
    // never waits for it: listen answers 503 until it is reached.
    ...natsEnv,
    // A listener's answer waits this long, as a send to any endpoint does (set it as the dispatchers').
    DELIVERY_TIMEOUT_MS: dispatchEnv.DELIVERY_TIMEOUT_MS,
    ...internalAuthEnv,
    ...emailEnv,
    ...logEnv,
    ...testClockEnv,
  })
  .superRefine(requireSharedKey);

export type GatewayConfig = z.output<typeof gatewayConfigSchema>;
