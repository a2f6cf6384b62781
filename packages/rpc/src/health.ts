import { Client, credentials, Metadata, status, type Server, type ServiceError } from '@grpc/grpc-js';
import type * as GrpcHealthCheck from 'grpc-health-check';
import { requiredOnFirstUse } from '@wirehook/core';
import { DEFAULT_DEADLINE_MS } from './grpc-service.ts';
import { RpcError } from './errors.ts';

// grpc-health-check parses its .proto file (protobufjs, proto-loader) as it loads: ≈ 75 ms of CPU
// here, paid by every process that imports this package. Required by the first server that serves
// the health service or the first check, so the services that serve no gRPC never load it.
const grpcHealthCheck = requiredOnFirstUse<typeof GrpcHealthCheck>(import.meta.url, 'grpc-health-check');

/** A serving status of the standard `grpc.health.v1.Health` service. */
export type ServingStatus = 'UNKNOWN' | 'SERVING' | 'NOT_SERVING';

/**
 * Serves the standard `grpc.health.v1.Health` service (Kubernetes gRPC probes, grpc_health_probe)
 * on `server`, every name in `services` and the whole server (`''`) starting as SERVING.
 */
export function addHealthService(server: Server, services: readonly string[]): GrpcHealthCheck.HealthImplementation {
  const health = new (grpcHealthCheck().HealthImplementation)(Object.fromEntries(['', ...services].map((name) => [name, 'SERVING'])));
  health.addToServer(server);
  return health;
}

/**
 * Asks the `grpc.health.v1.Health/Check` of the server at `address` about `service` (`''`:
 * the whole server). @returns 'SERVICE_UNKNOWN' when the server does not know that name.
 * @throws RpcError when the check itself fails (unreachable, deadline exceeded).
 */
export async function checkHealth(address: string, options: { service?: string; deadlineMs?: number } = {}): Promise<ServingStatus | 'SERVICE_UNKNOWN'> {
  const check = grpcHealthCheck().service.Check!;
  const client = new Client(address, credentials.createInsecure());
  try {
    return await new Promise((resolve, reject) => {
      client.makeUnaryRequest(
        check.path,
        check.requestSerialize,
        check.responseDeserialize as (bytes: Buffer) => { status: ServingStatus },
        { service: options.service ?? '' },
        new Metadata(),
        { deadline: Date.now() + (options.deadlineMs ?? DEFAULT_DEADLINE_MS) },
        (err: ServiceError | null, value?: { status: ServingStatus }) => {
          if (err?.code === status.NOT_FOUND) resolve('SERVICE_UNKNOWN');
          else if (err) reject(new RpcError(check.path, err.code, err.details, { cause: err }));
          else resolve(value!.status);
        },
      );
    });
  } finally {
    client.close();
  }
}
