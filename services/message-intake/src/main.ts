// message-intake as its own process: writes messages and deliveries, publishes dispatch
// jobs on JetStream, serves the gateway over gRPC.
import { startTracing } from '@wirehook/platform/tracing';

// Tracing starts before anything else loads, so the MongoDB driver is instrumented as it is
// imported: everything below is imported dynamically (static imports would all load first).
const tracing = await startTracing({ serviceName: 'message-intake' });
const { NatsBus } = await import('@wirehook/bus');
const { connectNatsAtStart, natsBusOptions, loadConfig, natsCheck, openRequestStore, runService, storeCheck } = await import('@wirehook/platform');
const { intakeConfigSchema } = await import('./config.ts');
const { createIntake } = await import('./create-intake.ts');

const config = loadConfig(intakeConfigSchema, process.env, 'message-intake');

await runService('message-intake', config, async ({ logger, clock, registry, readiness, signal }) => {
  const store = await openRequestStore(config, signal);
  const bus = await connectNatsAtStart(
    natsBusOptions(config),
    (nats) => NatsBus.connect({ ...nats, name: 'message-intake', streamLogger: logger }),
    logger,
    signal,
  );
  // NATS down: sends are still stored and answered 202 (the sweeper delivers them), so only the store gates.
  readiness.push(storeCheck(store), natsCheck(bus, { gates: false }));
  const { grpc } = createIntake(config, { store, bus, clock, logger, registry });
  return [
    // Stopped last: it exports the spans of the calls drained before it.
    tracing,
    { name: 'store', start: async () => {}, stop: () => store.close() },
    { name: 'bus', start: async () => {}, stop: () => bus.close() },
    grpc,
  ];
});
