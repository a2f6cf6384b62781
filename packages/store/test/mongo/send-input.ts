import { newId, type ConsumerId, type MessageId } from '@wirehook/core';
import type { NewMessage } from '../../src/ports/message-port.ts';

/** A live send of consumer 'acme' made at `now`, as intake asks the store: no Idempotency-Key and no counter unless `more` gives them. */
export function aSend(now: number, more: Partial<NewMessage> = {}): NewMessage {
  return {
    id: newId('message', { now: () => now }) as MessageId,
    eventType: 'invoice.paid',
    payload: '{}',
    createdAt: now,
    consumerExternalId: 'acme',
    newConsumerId: 'con_new' as ConsumerId,
    idempotencyKey: null,
    idempotencySince: now - 86_400_000,
    counters: [],
    ...more,
  };
}
