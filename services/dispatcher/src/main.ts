// A dispatcher replica as its own process: takes dispatch jobs from JetStream, claims
// deliveries in the store, sends them, records attempts. Replicas share the work.
import { startTracing } from '@wirehook/platform/tracing';

// Tracing first, everything else after it (see the gateway's main).
const tracing = await startTracing({ serviceName: 'dispatcher' });
const { NatsBus } = await import('@wirehook/bus');
const { AddressPolicy, HttpEgress, lookupWithOverrides, parseResolveOverrides, systemLookup } = await import('@wirehook/egress');
const { loadConfig, loadSecretBox, openStore, runService } = await import('@wirehook/platform');
const { dispatcherConfigSchema } = await import('./config.ts');
const { Dispatcher } = await import('./dispatcher.ts');
const { createDispatcherMetrics } = await import('./metrics.ts');
const { RetentionJob } = await import('./retention-job.ts');

const config = loadConfig(dispatcherConfigSchema, process.env, 'dispatcher');

await runService('dispatcher', config, async ({ logger, clock, metrics }) => {
  const store = await openStore(config);
  const bus = await NatsBus.connect({ servers: config.NATS_URL, name: 'dispatcher' });
  const egress = new HttpEgress({
    policy: new AddressPolicy({ allowHosts: config.DELIVERY_ALLOW_HOSTS }),
    lookup: lookupWithOverrides(parseResolveOverrides(config.DELIVERY_RESOLVE), systemLookup),
    timeoutMs: config.DELIVERY_TIMEOUT_MS,
    connectionsPerOrigin: config.ENDPOINT_SLOTS,
  });
  const dispatcher = new Dispatcher({
    store,
    bus,
    sender: egress,
    secretBox: loadSecretBox({ keyBase64: config.WIREHOOK_SECRET_KEY, dataDir: config.DATA_DIR }),
    clock,
    logger,
    metrics: createDispatcherMetrics(metrics.registry),
    config: {
      concurrency: config.DISPATCH_CONCURRENCY,
      slotsPerEndpoint: config.ENDPOINT_SLOTS,
      leaseMs: config.DELIVERY_TIMEOUT_MS + 15_000,
      sweepIntervalMs: config.SWEEP_INTERVAL_MS,
      sweepBatch: 1_000,
      // Other replicas may hold leases: expired ones are taken over, live ones respected.
      releaseLeasesAtStart: false,
    },
  });
  // Every replica runs retention; deletes are idempotent, so overlap costs only a query.
  const retention = new RetentionJob({ store, clock, logger, retentionMonths: config.RETENTION_MONTHS, intervalMs: config.RETENTION_INTERVAL_MS });
  return [
    // Stopped last: it exports the spans of the sends drained before it.
    tracing,
    { name: 'store', start: async () => {}, stop: () => store.close() },
    { name: 'bus', start: async () => {}, stop: () => bus.close() },
    { name: 'egress', start: async () => {}, stop: () => egress.close() },
    retention,
    dispatcher,
  ];
});
