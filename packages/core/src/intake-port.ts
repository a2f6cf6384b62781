import type { DeliveryId, EndpointId } from './ids.ts';
import type { Delivery, Org, Tenant } from './model.ts';
import type { SendMessageBody } from './schemas.ts';

export interface SendMessageInput {
  tenant: Tenant;
  org: Org;
  body: SendMessageBody;
  idempotencyKey: string | null;
  /**
   * A trial send (the portal's "send a test message"): delivered only to this endpoint of the
   * consumer (whatever event types it takes), not billed, counted toward the environment's
   * 1,000 test-and-trial sends per UTC day.
   */
  trialEndpointId?: EndpointId;
}

export interface SendMessageResult {
  id: string;
  /** Deliveries created (of the earlier message on an idempotent replay). */
  deliveries: number;
  /** The org's live messages this UTC month (x-usage-month). */
  usageMonth: number;
  /**
   * An idempotent replay: an earlier message of the same Idempotency-Key was returned and
   * nothing was written (the `idempotent-replayed: true` header). Optional because a caller
   * across gRPC may not carry it: absent reads as not known to be a replay.
   */
  replayed?: boolean;
}

/**
 * What the gateway asks of message-intake: in embedded mode a direct call, in cluster
 * mode a gRPC client with the same shape.
 */
export interface IntakePort {
  /** @throws PlanLimitError, InvalidError (payload too large). */
  send(input: SendMessageInput): Promise<SendMessageResult>;
  /** Sends the delivery again now, same webhook-id. @throws NotFoundError, ConflictError (endpoint not active). */
  retryDelivery(tenant: Tenant, id: DeliveryId): Promise<Delivery>;
  /** After a resume: held deliveries of this month and last month become due now. @returns how many. */
  releaseHeld(tenant: Tenant, endpointId: EndpointId): Promise<number>;
}
