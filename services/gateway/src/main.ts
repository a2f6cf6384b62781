// The gateway as its own process (cluster mode): public HTTP API, rate limits in Redis,
// messages handed to message-intake over gRPC.
import type { Server } from 'node:http';
import { startTracing } from '@wirehook/platform/tracing';

// Tracing starts before anything else loads, so ioredis is instrumented as it is imported:
// everything below is imported dynamically (static imports would all load first).
const tracing = await startTracing({ serviceName: 'gateway' });
const { AddressPolicy, lookupWithOverrides, parseResolveOverrides, systemLookup } = await import('@wirehook/egress');
const { RateLimiter, RedisKv } = await import('@wirehook/kv');
const { createHttpMetrics, loadConfig, openSealingKeys, openStore, redisCheck, runService, storeCheck } = await import('@wirehook/platform');
const { IntakeGrpcClient, RecoveryGrpcClient } = await import('@wirehook/rpc');
const { createApp } = await import('./app.ts');
const { gatewayConfigSchema } = await import('./config.ts');

const config = loadConfig(gatewayConfigSchema, process.env, 'gateway');

await runService('gateway', config, async ({ logger, clock, registry, readiness }) => {
  const store = await openStore(config);
  // A wrong key is refused before anything is sent or sealed with it.
  const keys = await openSealingKeys(config, store, { clock, logger, readiness });
  const kv = new RedisKv({ url: config.REDIS_URL });
  // Redis down is degraded, not down (rate limits fail open), but the probe still names it.
  readiness.push(storeCheck(store), redisCheck(kv));
  const intake = new IntakeGrpcClient({ address: config.INTAKE_GRPC_ADDRESS, deadlineMs: config.GRPC_DEADLINE_MS, authToken: config.INTERNAL_AUTH_TOKEN });
  const recovery = new RecoveryGrpcClient({ address: config.RECOVERY_GRPC_ADDRESS, deadlineMs: config.GRPC_DEADLINE_MS, authToken: config.INTERNAL_AUTH_TOKEN });
  const app = createApp({
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
  });
  let server: Server | undefined;
  return [
    // Stopped last: it exports the spans of the requests drained before it.
    tracing,
    { name: 'store', start: async () => {}, stop: () => store.close() },
    { name: 'kv', start: async () => {}, stop: () => kv.close() },
    { name: 'intake-client', start: async () => {}, stop: async () => intake.close() },
    { name: 'recovery-client', start: async () => {}, stop: async () => recovery.close() },
    {
      name: 'api',
      start: () =>
        new Promise<void>((resolve, reject) => {
          server = app.listen(config.PORT, config.HOST, (err?: Error) => (err ? reject(err) : resolve()));
        }),
      stop: () =>
        new Promise<void>((resolve) => {
          if (!server) return resolve();
          server.close(() => resolve());
          server.closeIdleConnections();
        }),
    },
  ];
});
