import type { Delivery, DeliveryId, EndpointId, IntakePort, SendMessageInput, SendMessageResult, Tenant } from '@wirehook/core';
import { MessageIntake } from './gen/wirehook/intake/v1/intake_pb.ts';
import { createClient, type ClientOptions, type GrpcClient } from './grpc-service.ts';
import { deliveryFromProto, sendInputToProto, sendResultFromProto, tenantToProto } from './intake-codec.ts';

/** Where message-intake listens, and the default deadline of each call (5 s). */
export type IntakeGrpcClientOptions = ClientOptions;

/**
 * IntakePort over gRPC: the gateway's message-intake in cluster mode. Each method throws
 * what the embedded MessageIntake throws (same WirehookError subclass, code and message),
 * an UnavailableError when message-intake is unreachable or misses the deadline, or an
 * RpcError for anything else.
 */
export class IntakeGrpcClient implements IntakePort {
  readonly #client: GrpcClient<typeof MessageIntake>;

  constructor(options: IntakeGrpcClientOptions) {
    this.#client = createClient(MessageIntake, options);
  }

  async send(input: SendMessageInput): Promise<SendMessageResult> {
    return sendResultFromProto(await this.#client.rpc.send(sendInputToProto(input)));
  }

  async retryDelivery(tenant: Tenant, id: DeliveryId): Promise<Delivery> {
    const response = await this.#client.rpc.retryDelivery({ tenant: tenantToProto(tenant), deliveryId: id });
    return deliveryFromProto(response.delivery);
  }

  async releaseHeld(tenant: Tenant, endpointId: EndpointId): Promise<number> {
    return (await this.#client.rpc.releaseHeld({ tenant: tenantToProto(tenant), endpointId })).released;
  }

  /** Closes the connection. */
  close(): void {
    this.#client.close();
  }
}
