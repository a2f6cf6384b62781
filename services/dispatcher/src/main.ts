// A dispatcher replica as its own process: takes dispatch jobs from JetStream, claims
// deliveries in the store, sends them, records attempts. Replicas share the work.
import { startTracing } from '@wirehook/platform/tracing';

// Tracing first, everything else after it (see the gateway's main).
const tracing = await startTracing({ serviceName: 'dispatcher' });
const { DISPATCH_SUBJECT, NatsBus } = await import('@wirehook/bus');
const { connectNatsAtStart, natsBusOptions, loadConfig, openSealingKeys, natsCheck, openStore, runService, storeCheck } = await import('@wirehook/platform');
const { grpcMetrics, RelayGrpcClient } = await import('@wirehook/rpc');
const { senderStopMs } = await import('@wirehook/core/without-schemas');
const { MemoryKv, RedisKv } = await import('@wirehook/kv');
const { dispatcherConfigSchema } = await import('./config.ts');
const { createDispatcher } = await import('./create-dispatcher.ts');
const { ListenOverBus } = await import('./listen-over-bus.ts');
const { registerConsumerMetrics } = await import('./metrics.ts');

const config = loadConfig(dispatcherConfigSchema, process.env, 'dispatcher');

// A stop lets the sends in flight finish (the chart's pod grace period covers it).
const stopDeadlineMs = senderStopMs(config.DELIVERY_TIMEOUT_MS);

await runService('dispatcher', { ...config, stopDeadlineMs }, async ({ logger, clock, registry, readiness, signal }) => {
  const store = await openStore(config, { signal });
  // A wrong key is refused before anything is sent or sealed with it.
  const keys = await openSealingKeys(config, store, { clock, logger, readiness });
  const bus = await connectNatsAtStart(
    natsBusOptions(config),
    (nats) => NatsBus.connect({ ...nats, name: 'dispatcher', streamLogger: logger }),
    logger,
    signal,
  );
  readiness.push(storeCheck(store), natsCheck(bus, { gates: true }));
  // A relay call covers a whole send (the wait for a connection and the attempt, each bounded: relayCallMs),
  // and the relay keeps the send to this DELIVERY_TIMEOUT_MS when its own is longer.
  const relay = new RelayGrpcClient({
    address: config.RELAY_GRPC_ADDRESS,
    deliveryTimeoutMs: config.DELIVERY_TIMEOUT_MS,
    authToken: config.INTERNAL_AUTH_TOKEN,
    metrics: grpcMetrics(registry),
  });
  // Endpoints' rate and in-flight limits are shared through Redis when REDIS_URL is set (the
  // cluster launcher sets it); without it each replica counts alone.
  const kv = config.REDIS_URL ? new RedisKv({ url: config.REDIS_URL }) : new MemoryKv({ clock });
  const delivery = createDispatcher(config, {
    kv,
    relay,
    // Listener endpoints: the gateway pod holding the CLI's connection answers on NATS.
    listen: new ListenOverBus(bus, config.DELIVERY_TIMEOUT_MS),
    store,
    bus,
    secretBox: keys.box,
    clock,
    logger,
    registry,
    soleDispatcher: false,
  });
  registerConsumerMetrics(registry, () => bus.consumerBacklog(DISPATCH_SUBJECT));
  return [
    // Stopped last: it exports the spans of the sends drained before it.
    tracing,
    { name: 'store', start: async () => {}, stop: () => store.close() },
    { name: 'bus', start: async () => {}, stop: () => bus.close() },
    { name: 'relay-client', start: async () => {}, stop: async () => relay.close() },
    { name: 'kv', start: async () => {}, stop: () => kv.close() },
    ...delivery.components,
  ];
});
