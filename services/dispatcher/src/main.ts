// A dispatcher replica as its own process: takes dispatch jobs from JetStream, claims
// deliveries in the store, sends them, records attempts. Replicas share the work.
import { NatsBus } from '@wirehook/bus';
import { AddressPolicy, HttpEgress, lookupWithOverrides, parseResolveOverrides, systemLookup } from '@wirehook/egress';
import { loadConfig, loadSecretBox, openStore, runService } from '@wirehook/platform';
import { dispatcherConfigSchema } from './config.ts';
import { Dispatcher } from './dispatcher.ts';
import { createDispatcherMetrics } from './metrics.ts';
import { RetentionJob } from './retention-job.ts';

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
    { name: 'store', start: async () => {}, stop: () => store.close() },
    { name: 'bus', start: async () => {}, stop: () => bus.close() },
    { name: 'egress', start: async () => {}, stop: () => egress.close() },
    retention,
    dispatcher,
  ];
});
