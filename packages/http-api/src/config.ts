import { deliveryEnv, internalAuthEnv, storeEnv } from '@wirehook/platform';
import { isRedisUrl } from '@wirehook/kv';
import { GRPC_TARGET_ERROR, isGrpcTarget } from '@wirehook/rpc';
import { z } from 'zod';

/** REDIS_URL: one server, or a Sentinel group (packages/kv redis-url.ts). */
const redisUrl = z
  .string()
  .refine(isRedisUrl, { error: 'must be redis://host:port, rediss://host:port, or redis+sentinel://host:port[,host:port…]/<primary name> (Sentinel)' });

/** A gRPC target variable (`host:port`, `dns:///host:port`, `ipv4:a:p,b:q`), refused at start with its name when it is none. */
const grpcTarget = z.string().refine(isGrpcTarget, { error: GRPC_TARGET_ERROR });

/**
 * The variables of every process serving the HTTP API (the gateway, the portal): one rule and
 * one default each. Spread into each service's own config schema.
 */
export const apiEnv = {
  REDIS_URL: redisUrl.default('redis://127.0.0.1:6379'), // rate limits (and the gateway's Idempotency-Key answers): one server, or redis+sentinel://…
  INTAKE_GRPC_ADDRESS: grpcTarget.default('127.0.0.1:50051'), // message-intake
  RECOVERY_GRPC_ADDRESS: grpcTarget.default('127.0.0.1:50053'), // the recovery service
  GRPC_DEADLINE_MS: z.coerce.number().int().min(100).default(5_000), // every call to another service
};

const apiConfigSchema = z.object({ ...storeEnv, ...deliveryEnv, ...internalAuthEnv, ...apiEnv });

/** What `clusterApiDeps` reads of a service's parsed config: a gateway's or a portal's. */
export type ApiConfig = z.output<typeof apiConfigSchema>;
