import { z } from 'zod';
import {
  emailEnv,
  deliveryEnv,
  requireSharedKey,
  internalAuthEnv,
  logEnv,
  portVar,
  relaySourceIpsVar,
  serveEnv,
  storeEnv,
  testClockEnv,
} from '@wirehook/platform';
import { GRPC_TARGET_ERROR, isGrpcTarget } from '@wirehook/rpc';
import { isRedisUrl } from '@wirehook/kv';

/** REDIS_URL: one server, or a Sentinel group (packages/kv redis-url.ts). */
const redisUrl = z
  .string()
  .refine(isRedisUrl, { error: 'must be redis://host:port, rediss://host:port, or redis+sentinel://host:port[,host:port…]/<primary name> (Sentinel)' });

/** A gRPC target variable (`host:port`, `dns:///host:port`, `ipv4:a:p,b:q`), refused at start with its name when it is none. */
const grpcTarget = z.string().refine(isGrpcTarget, { error: GRPC_TARGET_ERROR });

/** The gateway's environment, parsed once in main. */
export const gatewayConfigSchema = z
  .object({
    PORT: portVar(8080), // public API
    PORTAL_PUBLIC_URL: z.url().default('http://localhost:8081'), // base of portal links (where the portal service is reached)
    ...serveEnv(9464),
    ...storeEnv,
    ...deliveryEnv,
    REDIS_URL: redisUrl.default('redis://127.0.0.1:6379'), // rate limits, Idempotency-Key answers (one server, or redis+sentinel://…)
    // Default redis: duplicates in flight wait for the first send's answer and replays are
    // answered from Redis (the store still decides every new key); off: all go to message-intake.
    IDEMPOTENCY_FRONT: z.enum(['redis', 'off']).default('redis'),
    IDEMPOTENCY_FRONT_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(600), // how long the front remembers an answer (the store decides for 24 h)
    INTAKE_GRPC_ADDRESS: grpcTarget.default('127.0.0.1:50051'), // message-intake
    RECOVERY_GRPC_ADDRESS: grpcTarget.default('127.0.0.1:50053'), // the recovery service
    GRPC_DEADLINE_MS: z.coerce.number().int().min(100).default(5_000), // every call to another service
    // The egress relay's fixed IP pool (default empty): recorded at start and listed by
    // GET /v1/egress-ips (removed addresses stay listed, retiring, 30 days); empty records nothing.
    RELAY_SOURCE_IPS: relaySourceIpsVar,
    ...internalAuthEnv,
    ...emailEnv,
    ...logEnv,
    ...testClockEnv,
  })
  .superRefine(requireSharedKey);

export type GatewayConfig = z.output<typeof gatewayConfigSchema>;
