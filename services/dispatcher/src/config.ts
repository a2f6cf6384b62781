import { z } from 'zod';
import {
  checkNatsEnv,
  natsEnv,
  deliveryEnv,
  requireSharedKey,
  dispatchEnv,
  internalAuthEnv,
  logEnv,
  serveEnv,
  storeEnv,
  testClockEnv,
} from '@wirehook/platform';
import { GRPC_TARGET_ERROR, isGrpcTarget } from '@wirehook/rpc';
import { parseRedisUrl } from '@wirehook/kv';

/** Whether `value` is a REDIS_URL packages/kv reads. */
function isRedisUrl(value: string): boolean {
  try {
    parseRedisUrl(value);
    return true;
  } catch {
    return false;
  }
}

/** A gRPC target variable (`host:port`, `dns:///host:port`, `ipv4:a:p,b:q`), refused at start with its name when it is none. */
const grpcTarget = z.string().refine(isGrpcTarget, { error: GRPC_TARGET_ERROR });

/** The dispatcher's environment, parsed once in main. Run as many replicas as needed. */
export const dispatcherConfigSchema = z
  .object({
    ...serveEnv(9466),
    ...storeEnv,
    ...deliveryEnv,
    ...natsEnv,
    ...dispatchEnv,
    RELAY_GRPC_ADDRESS: grpcTarget.default('127.0.0.1:50052'), // the egress relay: fixed_ip endpoints are sent through it
    REDIS_URL: z
      .string()
      .refine((v) => v === '' || isRedisUrl(v), { error: 'must be a redis://, rediss:// or redis+sentinel:// URL' })
      .optional(), // endpoints' rate and in-flight limits shared by the replicas; unset: each counts alone
    ...internalAuthEnv,
    ...logEnv,
    ...testClockEnv,
  })
  .superRefine(requireSharedKey)
  .superRefine(checkNatsEnv);
