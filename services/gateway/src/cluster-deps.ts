import { AddressPolicy, lookupWithOverrides, parseResolveOverrides, systemLookup } from '@wirehook/egress';
import { EndpointThroughput, RateLimiter, RedisKv } from '@wirehook/kv';
import {
  createHttpMetrics,
  createIdempotencyFrontMetrics,
  openSealingKeys,
  openStore,
  redisCheck,
  storeCheck,
  type Component,
  type ServiceContext,
} from '@wirehook/platform';
import { grpcMetrics, IntakeGrpcClient, RecoveryGrpcClient } from '@wirehook/rpc';
import type { GatewayConfig } from './config.ts';
import type { GatewayDeps } from './deps.ts';
import { egressIpSync } from './egress-ip-sync.ts';
import { IdempotencyFront } from './idempotency-front.ts';

/**
 * What the gateway needs as its own process (cluster mode): the store (its sealing key
 * checked), Redis for rate limits and Idempotency-Key answers, and gRPC clients for
 * message-intake (behind the idempotency front unless IDEMPOTENCY_FRONT=off) and the
 * recovery service. `components` stop them. (The portal builds its own: services/portal.)
 */
export async function clusterGatewayDeps(config: GatewayConfig, ctx: ServiceContext): Promise<{ deps: GatewayDeps; components: Component[] }> {
  const { logger, clock, registry, readiness } = ctx;
  const store = await openStore(config);
  // A wrong key is refused before anything is sent or sealed with it.
  const keys = await openSealingKeys(config, store, { clock, logger, readiness });
  const kv = new RedisKv({ url: config.REDIS_URL });
  // Redis down is degraded, not down (rate limits fail open, keyed sends go to the store):
  // named in /readyz, never gating (redisCheck).
  readiness.push(storeCheck(store), redisCheck(kv));
  const grpc = { deadlineMs: config.GRPC_DEADLINE_MS, authToken: config.INTERNAL_AUTH_TOKEN, metrics: grpcMetrics(registry) };
  const intake = new IntakeGrpcClient({ address: config.INTAKE_GRPC_ADDRESS, ...grpc });
  // The marker outlives the first send's longest call (the deadline); a duplicate waits at
  // most half of it, so even one that then asks intake itself answers within 1.5 deadlines.
  const front =
    config.IDEMPOTENCY_FRONT === 'redis'
      ? new IdempotencyFront({
          inner: intake,
          kv,
          clock,
          logger: logger.child({ component: 'idempotency-front' }),
          metrics: createIdempotencyFrontMetrics(registry),
          inflightTtlMs: config.GRPC_DEADLINE_MS,
          maxWaitMs: Math.floor(config.GRPC_DEADLINE_MS / 2),
          answerTtlMs: config.IDEMPOTENCY_FRONT_TTL_SECONDS * 1_000,
        })
      : intake;
  const recovery = new RecoveryGrpcClient({ address: config.RECOVERY_GRPC_ADDRESS, ...grpc });
  const deps: GatewayDeps = {
    store,
    intake: front,
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
    portalPublicUrl: config.PORTAL_PUBLIC_URL,
    emailConfigured: Boolean(config.SMTP_URL),
  };
  return {
    deps,
    components: [
      { name: 'store', start: async () => {}, stop: () => store.close() },
      egressIpSync({ store, clock, logger: logger.child({ component: 'egress-ips' }), pool: config.RELAY_SOURCE_IPS }),
      { name: 'kv', start: async () => {}, stop: () => kv.close() },
      { name: 'intake-client', start: async () => {}, stop: async () => intake.close() },
      { name: 'recovery-client', start: async () => {}, stop: async () => recovery.close() },
    ],
  };
}
