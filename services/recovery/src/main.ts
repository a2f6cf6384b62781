// The recovery service as its own process: starts recoveries for the gateway over gRPC and
// drives running ones (50 re-sends every 10 s per endpoint) as dispatch jobs on JetStream.
// Replicas share the work: each recovery is driven by one of them at a time, under a lease.
import { startTracing } from '@wirehook/platform/tracing';

// Tracing first, everything else after it (see the gateway's main).
const tracing = await startTracing({ serviceName: 'recovery' });
const { NatsBus } = await import('@wirehook/bus');
const { connectNatsAtStart, natsBusOptions, loadConfig, natsCheck, openStore, runService, storeCheck } = await import('@wirehook/platform');
const { recoveryConfigSchema } = await import('./config.ts');
const { createRecovery } = await import('./create-recovery.ts');
const { startRecoveryGrpcServer } = await import('./grpc-server.ts');
const { grpcComponent } = await import('@wirehook/rpc');

const config = loadConfig(recoveryConfigSchema, process.env, 'recovery');

await runService('recovery', config, async ({ logger, clock, registry, readiness, signal }) => {
  const store = await openStore(config, { signal });
  const bus = await connectNatsAtStart(natsBusOptions(config), (nats) => NatsBus.connect({ ...nats, name: 'recovery', streamLogger: logger }), logger, signal);
  readiness.push(storeCheck(store), natsCheck(bus, { gates: true }));
  const { service, worker } = createRecovery(config, { store, bus, clock, logger, registry, soleWorker: false });
  const address = `${config.GRPC_HOST}:${config.GRPC_PORT}`;
  return [
    // Stopped last: it exports the spans of the calls drained before it.
    tracing,
    { name: 'store', start: async () => {}, stop: () => store.close() },
    { name: 'bus', start: async () => {}, stop: () => bus.close() },
    worker,
    grpcComponent(() => startRecoveryGrpcServer({ recovery: service, address, authToken: config.INTERNAL_AUTH_TOKEN, logger, registry })),
  ];
});
