import type { MessageInitShape } from '@bufbuild/protobuf';
import {
  DELIVERY_STATUSES,
  PLAN_NAMES,
  type Delivery,
  type DeliveryId,
  type DeliveryStatus,
  type EndpointId,
  type MessageId,
  type Org,
  type OrgId,
  type SendMessageBody,
  type SendMessageInput,
  type SendMessageResult,
  type Tenant,
} from '@wirehook/core';
import { Environment, type Org as OrgMessage, type OrgSchema, type Tenant as TenantMessage, type TenantSchema } from './gen/wirehook/common/v1/tenant_pb.ts';
import {
  DeliveryStatus as DeliveryStatusEnum,
  MessageIntake,
  type Delivery as DeliveryMessage,
  type DeliverySchema,
  type SendOutcome,
  type SendOutcomeSchema,
  type SendRequest,
  type SendRequestSchema,
  type SendResponse,
  type SendResponseSchema,
} from './gen/wirehook/intake/v1/intake_pb.ts';
import { carriedError, errorOfCarried } from './errors.ts';
import { methodPath } from './grpc-service.ts';

// proto ⇄ domain for message-intake, one function per type and direction. A message that
// lacks a required part is a bug in the caller: a plain Error, answered as INTERNAL.
// Times travel as int64 Unix ms (bigint in protobuf-es) and are numbers in the domain.

const SEND_BATCH_PATH = methodPath(MessageIntake.method.sendBatch);

const ENV_TO_PROTO = { live: Environment.LIVE, test: Environment.TEST } as const;
const STATUS_TO_PROTO: Readonly<Record<DeliveryStatus, DeliveryStatusEnum>> = {
  pending: DeliveryStatusEnum.PENDING,
  retrying: DeliveryStatusEnum.RETRYING,
  success: DeliveryStatusEnum.SUCCESS,
  failed: DeliveryStatusEnum.FAILED,
};

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`malformed gRPC message: ${what} is missing`);
  return value;
}

export function tenantToProto(tenant: Tenant): MessageInitShape<typeof TenantSchema> {
  return { orgId: tenant.orgId, env: ENV_TO_PROTO[tenant.env] };
}

/** @throws Error when the tenant or its environment is missing. */
export function tenantFromProto(tenant: TenantMessage | undefined): Tenant {
  const { orgId, env } = required(tenant, 'tenant');
  if (env === Environment.LIVE) return { orgId: orgId as OrgId, env: 'live' };
  if (env === Environment.TEST) return { orgId: orgId as OrgId, env: 'test' };
  throw new Error(`malformed gRPC message: tenant.env is ${env}`);
}

export function orgToProto(org: Org): MessageInitShape<typeof OrgSchema> {
  return { id: org.id, name: org.name, plan: org.plan, ownerEmail: org.ownerEmail ?? undefined, createdAtMs: BigInt(org.createdAt) };
}

/** @throws Error when the org is missing or its plan is not one of PLAN_NAMES. */
export function orgFromProto(org: OrgMessage | undefined): Org {
  const { id, name, plan, ownerEmail, createdAtMs } = required(org, 'org');
  const planName = PLAN_NAMES.find((p) => p === plan);
  if (!planName) throw new Error(`malformed gRPC message: org.plan is "${plan}"`);
  return { id: id as OrgId, name, plan: planName, ownerEmail: ownerEmail ?? null, createdAt: Number(createdAtMs) };
}

/** The payload travels as its JSON text. */
export function sendInputToProto(input: SendMessageInput): MessageInitShape<typeof SendRequestSchema> {
  const { consumer, event_type: eventType, payload, ordering_key: orderingKey } = input.body;
  return {
    tenant: tenantToProto(input.tenant),
    org: orgToProto(input.org),
    body: { consumer, eventType, payloadJson: JSON.stringify(payload), orderingKey },
    idempotencyKey: input.idempotencyKey ?? undefined,
    trialEndpointId: input.trialEndpointId ?? undefined,
  };
}

/** @throws Error when a part is missing or the payload is not JSON. */
export function sendInputFromProto(request: SendRequest): SendMessageInput {
  const body = required(request.body, 'body');
  return {
    tenant: tenantFromProto(request.tenant),
    org: orgFromProto(request.org),
    body: {
      consumer: body.consumer,
      event_type: body.eventType,
      payload: JSON.parse(body.payloadJson) as SendMessageBody['payload'],
      ...(body.orderingKey === undefined ? {} : { ordering_key: body.orderingKey }),
    },
    idempotencyKey: request.idempotencyKey ?? null,
    ...(request.trialEndpointId === undefined ? {} : { trialEndpointId: request.trialEndpointId as EndpointId }),
  };
}

export function sendResultToProto(result: SendMessageResult): MessageInitShape<typeof SendResponseSchema> {
  return { id: result.id, deliveries: result.deliveries, usageMonth: result.usageMonth, replayed: result.replayed ?? false };
}

export function sendResultFromProto(response: SendResponse): SendMessageResult {
  return { id: response.id, deliveries: response.deliveries, usageMonth: response.usageMonth, replayed: response.replayed };
}

/** One send of a batch, settled: its result, or the error Send would have failed with (a non-Wirehook one opaque). */
export function sendOutcomeToProto(settled: PromiseSettledResult<SendMessageResult>): MessageInitShape<typeof SendOutcomeSchema> {
  if (settled.status === 'fulfilled') return { outcome: { case: 'sent', value: sendResultToProto(settled.value) } };
  return { outcome: { case: 'error', value: carriedError(settled.reason) } };
}

/**
 * @returns the send's result
 * @throws the WirehookError it failed with; Error for an outcome with neither (a malformed answer)
 */
export function sendOutcomeFromProto(outcome: SendOutcome | undefined): SendMessageResult {
  const answer = outcome?.outcome;
  if (answer?.case === 'sent') return sendResultFromProto(answer.value);
  if (answer?.case === 'error') throw errorOfCarried(answer.value, SEND_BATCH_PATH);
  throw new Error('malformed gRPC message: a batched send has no outcome');
}

export function deliveryToProto(delivery: Delivery): MessageInitShape<typeof DeliverySchema> {
  return {
    id: delivery.id,
    messageId: delivery.messageId,
    endpointId: delivery.endpointId,
    url: delivery.url,
    status: STATUS_TO_PROTO[delivery.status],
    attemptCount: delivery.attemptCount,
    policyAttempts: delivery.policyAttempts,
    nextAttemptAtMs: delivery.nextAttemptAt === null ? undefined : BigInt(delivery.nextAttemptAt),
    manual: delivery.manual,
    createdAtMs: BigInt(delivery.createdAt),
    orderingKey: delivery.orderingKey ?? undefined,
    sequence: delivery.sequence ?? undefined,
  };
}

/** @throws Error when the delivery or its status is missing. */
export function deliveryFromProto(delivery: DeliveryMessage | undefined): Delivery {
  const d = required(delivery, 'delivery');
  const status = DELIVERY_STATUSES.find((s) => STATUS_TO_PROTO[s] === d.status);
  if (!status) throw new Error(`malformed gRPC message: delivery.status is ${d.status}`);
  return {
    id: d.id as DeliveryId,
    messageId: d.messageId as MessageId,
    endpointId: d.endpointId as EndpointId,
    url: d.url,
    status,
    attemptCount: d.attemptCount,
    policyAttempts: d.policyAttempts,
    nextAttemptAt: d.nextAttemptAtMs === undefined ? null : Number(d.nextAttemptAtMs),
    manual: d.manual,
    createdAt: Number(d.createdAtMs),
    // Only an ordered delivery carries its lane (an unordered one reads as before ordered delivery).
    ...(d.orderingKey === undefined ? {} : { orderingKey: d.orderingKey, sequence: d.sequence ?? null }),
  };
}
