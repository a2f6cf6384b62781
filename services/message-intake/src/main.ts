// message-intake as its own process: writes messages and deliveries, publishes dispatch
// jobs on JetStream, serves the gateway over gRPC.
import { NatsBus } from '@wirehook/bus';
import { loadConfig, openStore, runService } from '@wirehook/platform';
import { intakeConfigSchema } from './config.ts';
import { startIntakeGrpcServer } from './grpc-server.ts';
import { MessageIntake } from './message-intake.ts';

const config = loadConfig(intakeConfigSchema, process.env, 'message-intake');

await runService('message-intake', config, async ({ logger, clock }) => {
  const store = await openStore(config);
  const bus = await NatsBus.connect({ servers: config.NATS_URL, name: 'message-intake' });
  const intake = new MessageIntake({ store, bus, clock, logger });
  let grpc: { stop(): Promise<void> } | undefined;
  return [
    { name: 'store', start: async () => {}, stop: () => store.close() },
    { name: 'bus', start: async () => {}, stop: () => bus.close() },
    {
      name: 'grpc',
      start: async () => {
        grpc = await startIntakeGrpcServer({ intake, address: `${config.HOST}:${config.GRPC_PORT}` });
      },
      stop: async () => grpc?.stop(),
    },
  ];
});
