import type { DeliveryId } from '@wirehook/core';

// Subjects and payloads of the bus, in one place. A dispatch job is the bare delivery id:
// the store holds everything else, so a wake-up has nothing more to carry. Should a payload
// ever carry more, it becomes a message under proto/ (as the gRPC boundary is).

/** "Delivery X may be due": wakes a dispatcher, which claims it from the store. */
export const DISPATCH_SUBJECT = 'wirehook.dispatch';

/**
 * Request/reply to the `wirehook listen` connection of a listener endpoint: served by the
 * gateway process that holds the connection, asked by the dispatcher that sends to it.
 */
export function listenSubject(endpointId: string): string {
  return `wirehook.listen.${endpointId}`;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeDispatchJob(deliveryId: DeliveryId): Uint8Array {
  return encoder.encode(deliveryId);
}

/** @throws Error for a payload that is not a delivery id. */
export function decodeDispatchJob(data: Uint8Array): DeliveryId {
  const id = decoder.decode(data);
  if (!id.startsWith('dlv_')) throw new Error('not a dispatch job');
  return id as DeliveryId;
}
