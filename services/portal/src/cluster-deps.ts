import { AddressPolicy, lookupWithOverrides, parseResolveOverrides, systemLookup } from '@wirehook/egress';
import { RateLimiter, RedisKv } from '@wirehook/kv';
import { createHttpMetrics, openSealingKeys, openStore, redisCheck, storeCheck, type Component, type ServiceContext } from '@wirehook/platform';
import { grpcMetrics, IntakeGrpcClient, RecoveryGrpcClient } from '@wirehook/rpc';
import type { PortalConfig } from './config.ts';
import type { PortalDeps } from './deps.ts';

/**
 * What the portal needs as its own process (cluster mode): the store (its sealing key
 * checked: the page reveals and rotates signing secrets), Redis for the links' rate limits,
 * and gRPC clients for message-intake and the recovery service. `components` stop them.
 */
export async function clusterPortalDeps(config: PortalConfig, ctx: ServiceContext): Promise<{ deps: PortalDeps; components: Component[] }> {
  const { logger, clock, registry, readiness } = ctx;
  const store = await openStore(config);
  // A wrong key is refused before anything is sealed or opened with it.
  const keys = await openSealingKeys(config, store, { clock, logger, readiness });
  const kv = new RedisKv({ url: config.REDIS_URL });
  // Redis down is degraded, not down (rate limits fail open): named in /readyz, never gating.
  readiness.push(storeCheck(store), redisCheck(kv));
  const grpc = { deadlineMs: config.GRPC_DEADLINE_MS, authToken: config.INTERNAL_AUTH_TOKEN, metrics: grpcMetrics(registry) };
  // No idempotency front (the gateway's): the page sends no Idempotency-Key.
  const intake = new IntakeGrpcClient({ address: config.INTAKE_GRPC_ADDRESS, ...grpc });
  const recovery = new RecoveryGrpcClient({ address: config.RECOVERY_GRPC_ADDRESS, ...grpc });
  const deps: PortalDeps = {
    store,
    intake,
    recovery,
    rateLimiter: new RateLimiter({ kv, clock }),
    clock,
    logger,
    metrics: createHttpMetrics(registry),
    secretBox: keys.box,
    addressPolicy: new AddressPolicy({ allowHosts: config.DELIVERY_ALLOW_HOSTS }),
    lookup: lookupWithOverrides(parseResolveOverrides(config.DELIVERY_RESOLVE), systemLookup),
    retentionMonths: config.RETENTION_MONTHS,
  };
  return {
    deps,
    components: [
      { name: 'store', start: async () => {}, stop: () => store.close() },
      { name: 'kv', start: async () => {}, stop: () => kv.close() },
      { name: 'intake-client', start: async () => {}, stop: async () => intake.close() },
      { name: 'recovery-client', start: async () => {}, stop: async () => recovery.close() },
    ],
  };
}
