import { clusterApiDeps } from '@wirehook/http-api';
import { createIdempotencyFrontMetrics, type Component, type ServiceContext } from '@wirehook/platform';
import type { GatewayConfig } from './config.ts';
import type { GatewayDeps } from './deps.ts';
import { egressIpSync } from './egress-ip-sync.ts';
import { IdempotencyFront } from './idempotency-front.ts';

/**
 * What the gateway needs as its own process (cluster mode): the API's deps (one factory,
 * packages/http-api), message-intake behind the Redis idempotency front unless
 * IDEMPOTENCY_FRONT=off, where portal links point, and the relay's address pool kept in the
 * store. `components` stop them.
 */
export async function clusterGatewayDeps(config: GatewayConfig, ctx: ServiceContext): Promise<{ deps: GatewayDeps; components: Component[] }> {
  const { logger, clock, registry } = ctx;
  const api = await clusterApiDeps(config, ctx);
  // The marker outlives the first send's longest call (the deadline); a duplicate waits at
  // most half of it, so even one that then asks intake itself answers within 1.5 deadlines.
  const intake =
    config.IDEMPOTENCY_FRONT === 'redis'
      ? new IdempotencyFront({
          inner: api.deps.intake,
          kv: api.kv,
          clock,
          logger: logger.child({ component: 'idempotency-front' }),
          metrics: createIdempotencyFrontMetrics(registry),
          inflightTtlMs: config.GRPC_DEADLINE_MS,
          maxWaitMs: Math.floor(config.GRPC_DEADLINE_MS / 2),
          answerTtlMs: config.IDEMPOTENCY_FRONT_TTL_SECONDS * 1_000,
        })
      : api.deps.intake;
  const deps: GatewayDeps = {
    ...api.deps,
    intake,
    portalPublicUrl: config.PORTAL_PUBLIC_URL,
    apiPublicUrl: config.API_PUBLIC_URL,
    emailConfigured: Boolean(config.SMTP_URL),
  };
  const sync = egressIpSync({ store: deps.store, clock, logger: logger.child({ component: 'egress-ips' }), pool: config.RELAY_SOURCE_IPS });
  const [store, ...rest] = api.components;
  return { deps, components: [store!, sync, ...rest] };
}
