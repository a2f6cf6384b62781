import { AddressPolicy, lookupWithOverrides, parseResolveOverrides, systemLookup } from '@wirehook/egress';
import { RateLimiter, RedisKv } from '@wirehook/kv';
import { createHttpMetrics, openSealingKeys, openStore, redisCheck, storeCheck, type Component, type ServiceContext } from '@wirehook/platform';
import { grpcMetrics, IntakeGrpcClient, RecoveryGrpcClient } from '@wirehook/rpc';
import type { GatewayConfig } from './config.ts';
import type { GatewayDeps } from './deps.ts';

/**
 * What a cluster-mode process serving the API needs — the gateway, and the portal (the same
 * routes, scoped by a link's token): the store (its sealing key checked), Redis for rate
 * limits, and gRPC clients for message-intake and the recovery service. Built once here for
 * both mains; `components` stop them.
 */
export async function clusterGatewayDeps(config: GatewayConfig, ctx: ServiceContext): Promise<{ deps: GatewayDeps; components: Component[] }> {
  const { logger, clock, registry, readiness } = ctx;
  const store = await openStore(config);
  // A wrong key is refused before anything is sent or sealed with it.
  const keys = await openSealingKeys(config, store, { clock, logger, readiness });
  const kv = new RedisKv({ url: config.REDIS_URL });
  // Redis down is degraded, not down (rate limits fail open), but the probe still names it.
  readiness.push(storeCheck(store), redisCheck(kv));
  const grpc = { deadlineMs: config.GRPC_DEADLINE_MS, authToken: config.INTERNAL_AUTH_TOKEN, metrics: grpcMetrics(registry) };
  const intake = new IntakeGrpcClient({ address: config.INTAKE_GRPC_ADDRESS, ...grpc });
  const recovery = new RecoveryGrpcClient({ address: config.RECOVERY_GRPC_ADDRESS, ...grpc });
  const deps: GatewayDeps = {
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
    portalPublicUrl: config.PORTAL_PUBLIC_URL,
    emailConfigured: Boolean(config.SMTP_URL),
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
