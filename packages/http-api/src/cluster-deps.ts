import { AddressPolicy, lookupWithOverrides, parseResolveOverrides, systemLookup } from '@wirehook/egress';
import { EndpointThroughput, RateLimiter, RedisKv } from '@wirehook/kv';
import { createHttpMetrics, openSealingKeys, openRequestStore, redisCheck, storeCheck, type Component, type ServiceContext } from '@wirehook/platform';
import { grpcMetrics, IntakeGrpcClient, RecoveryGrpcClient } from '@wirehook/rpc';
import { TransformRunner } from '@wirehook/transform';
import type { ApiConfig } from './config.ts';
import type { ApiDeps } from './deps.ts';

/** The API's deps in a process of its own, with what was opened for them. */
export interface ClusterApiDeps {
  deps: ApiDeps;
  /** The Redis the rate limits use (the gateway's idempotency front shares it). */
  kv: RedisKv;
  /** Stop what was opened, in this order. */
  components: Component[];
}

/**
 * The one deps factory of every process serving the HTTP API in cluster mode (the gateway,
 * the portal): the store, its sealing key checked (a wrong key is refused before anything is
 * sealed or opened with it), Redis for rate limits and endpoints' throughput, and gRPC clients
 * for message-intake and the recovery service. (Embedded mode builds the same ApiDeps from
 * its in-process parts: services/embedded.)
 */
export async function clusterApiDeps(config: ApiConfig, ctx: ServiceContext): Promise<ClusterApiDeps> {
  const { logger, clock, registry, readiness, signal } = ctx;
  const store = await openRequestStore(config, signal);
  const keys = await openSealingKeys(config, store, { clock, logger, readiness });
  const kv = new RedisKv({ url: config.REDIS_URL });
  // Redis down is degraded, not down (rate limits fail open): named in /readyz, never gating (redisCheck).
  readiness.push(storeCheck(store), redisCheck(kv));
  const grpc = { deadlineMs: config.GRPC_DEADLINE_MS, authToken: config.INTERNAL_AUTH_TOKEN, metrics: grpcMetrics(registry) };
  const intake = new IntakeGrpcClient({ address: config.INTAKE_GRPC_ADDRESS, ...grpc });
  const recovery = new RecoveryGrpcClient({ address: config.RECOVERY_GRPC_ADDRESS, ...grpc });
  // Simulations only: each waits for the thread at most 2 s, and a tenant has one at a time (else
  // 503), so those waiting are at most one per tenant, in turn by tenant.
  const transforms = new TransformRunner({ threads: 1, maxWaitMs: 2_000 });
  const deps: ApiDeps = {
    store,
    intake,
    recovery,
    rateLimiter: new RateLimiter({ kv, clock }),
    throughput: new EndpointThroughput(kv),
    clock,
    logger,
    metrics: createHttpMetrics(registry),
    secretBox: keys.box,
    addressPolicy: new AddressPolicy({ allowHosts: config.DELIVERY_ALLOW_HOSTS }),
    lookup: lookupWithOverrides(parseResolveOverrides(config.DELIVERY_RESOLVE), systemLookup),
    retentionMonths: config.RETENTION_MONTHS,
    // Simulations only (sends run in the dispatchers): one sandbox thread, started at the first.
    transforms,
  };
  return {
    deps,
    kv,
    components: [
      { name: 'store', start: async () => {}, stop: () => store.close() },
      { name: 'kv', start: async () => {}, stop: () => kv.close() },
      { name: 'intake-client', start: async () => {}, stop: async () => intake.close() },
      { name: 'recovery-client', start: async () => {}, stop: async () => recovery.close() },
      { name: 'transforms', start: async () => {}, stop: () => transforms.close() },
    ],
  };
}
