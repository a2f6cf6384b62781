import type { MessageInitShape } from '@bufbuild/protobuf';
import type { EndpointId, Recovery, RecoveryId, RecoveryStatus } from '@wirehook/core';
import { RecoveryStatus as RecoveryStatusEnum, type Recovery as RecoveryMessage, type RecoverySchema } from './gen/wirehook/recovery/v1/recovery_pb.ts';

// proto ⇄ domain for the recovery service (times as int64 Unix ms, as in intake-codec.ts).

const STATUS_TO_PROTO: Readonly<Record<RecoveryStatus, RecoveryStatusEnum>> = {
  running: RecoveryStatusEnum.RUNNING,
  done: RecoveryStatusEnum.DONE,
  stopped: RecoveryStatusEnum.STOPPED,
};
const STATUS_FROM_PROTO = new Map<RecoveryStatusEnum, RecoveryStatus>(Object.entries(STATUS_TO_PROTO).map(([k, v]) => [v, k as RecoveryStatus]));

export function recoveryToProto(r: Recovery): MessageInitShape<typeof RecoverySchema> {
  return {
    id: r.id,
    endpointId: r.endpointId,
    since: BigInt(r.since),
    status: STATUS_TO_PROTO[r.status],
    total: r.total,
    queued: r.queued,
    createdAt: BigInt(r.createdAt),
    ...(r.finishedAt === null ? {} : { finishedAt: BigInt(r.finishedAt) }),
  };
}

/** @throws Error when the recovery is missing or its status unknown (a bug in the caller). */
export function recoveryFromProto(r: RecoveryMessage | undefined): Recovery {
  if (r === undefined) throw new Error('malformed gRPC message: recovery is missing');
  const status = STATUS_FROM_PROTO.get(r.status);
  if (status === undefined) throw new Error(`malformed gRPC message: recovery.status is ${r.status}`);
  return {
    id: r.id as RecoveryId,
    endpointId: r.endpointId as EndpointId,
    since: Number(r.since),
    status,
    total: r.total,
    queued: r.queued,
    createdAt: Number(r.createdAt),
    finishedAt: r.finishedAt === undefined ? null : Number(r.finishedAt),
  };
}
