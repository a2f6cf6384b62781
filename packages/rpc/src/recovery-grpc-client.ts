import type { EndpointId, Recovery, RecoveryId, RecoveryPort, Tenant } from '@wirehook/core';
import { RecoveryService } from './gen/wirehook/recovery/v1/recovery_pb.ts';
import { createClient, type ClientOptions, type GrpcClient } from './grpc-service.ts';
import { tenantToProto } from './intake-codec.ts';
import { recoveryFromProto } from './recovery-codec.ts';

/**
 * RecoveryPort over gRPC: the gateway's recovery service in cluster mode. Throws what the
 * embedded RecoveryService throws (same WirehookError), UnavailableError when the service is
 * unreachable or misses the deadline.
 */
export class RecoveryGrpcClient implements RecoveryPort {
  readonly #client: GrpcClient<typeof RecoveryService>;

  constructor(options: ClientOptions) {
    this.#client = createClient(RecoveryService, options);
  }

  async start(t: Tenant, endpointId: EndpointId, since: number): Promise<Recovery> {
    return recoveryFromProto((await this.#client.rpc.start({ tenant: tenantToProto(t), endpointId, since: BigInt(since) })).recovery);
  }

  async get(t: Tenant, endpointId: EndpointId, id: RecoveryId): Promise<Recovery | null> {
    const { recovery } = await this.#client.rpc.get({ tenant: tenantToProto(t), endpointId, recoveryId: id });
    return recovery === undefined ? null : recoveryFromProto(recovery);
  }

  close(): void {
    this.#client.close();
  }
}
