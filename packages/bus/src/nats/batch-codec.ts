import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { BatchSchema } from '@wirehook/rpc/bus-batch';

/**
 * Marks a JetStream message that carries several bus messages (its value: how many), encoded
 * as `wirehook.bus.v1.Batch` (proto/wirehook/bus/v1/batch.proto). A message without it is
 * one bus message, as every message was before batches: both kinds are read.
 */
export const BATCH_HEADER = 'Wirehook-Batch';

/** One bus message inside a batch: its payload and headers (trace context included), as published. */
export interface BatchedMessage {
  readonly data: Uint8Array;
  readonly headers: Readonly<Record<string, string>>;
}

export function encodeBatch(items: readonly BatchedMessage[]): Uint8Array {
  return toBinary(BatchSchema, create(BatchSchema, { items: items.map(({ data, headers }) => ({ data, headers: { ...headers } })) }));
}

/** @throws Error when `data` is not an encoded batch of at least one message. */
export function decodeBatch(data: Uint8Array): BatchedMessage[] {
  const { items } = fromBinary(BatchSchema, data);
  if (items.length === 0) throw new Error('an empty batch');
  return items.map(({ data: payload, headers }) => ({ data: payload, headers }));
}
