import { z } from 'zod';
import { checkNatsEnv, natsEnv, internalAuthEnv, logEnv, portVar, serveEnv, storeEnv, testClockEnv } from '@wirehook/platform';

/** message-intake's environment, parsed once in main. */
export const intakeConfigSchema = z
  .object({
    GRPC_PORT: portVar(50051), // MessageIntake gRPC service (and health)
    GRPC_HOST: z.string().default('127.0.0.1'), // address the gRPC server binds; the chart sets 0.0.0.0 (pods are reached by IP)
    ...internalAuthEnv,
    ...serveEnv(9465),
    ...storeEnv,
    ...natsEnv,
    ...logEnv,
    ...testClockEnv,
  })
  .superRefine(checkNatsEnv);
