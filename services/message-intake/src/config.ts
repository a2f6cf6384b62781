import { z } from 'zod';
import { logEnv, portVar, serveEnv, storeEnv, testClockEnv } from '@wirehook/platform';

/** message-intake's environment, parsed once in main. */
export const intakeConfigSchema = z.object({
  GRPC_PORT: portVar(50051), // MessageIntake gRPC service (and health)
  ...serveEnv(9465),
  ...storeEnv,
  NATS_URL: z.string().default('nats://127.0.0.1:4222'), // dispatch jobs
  ...logEnv,
  ...testClockEnv,
});
