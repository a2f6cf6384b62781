import { definePlans } from './plan.ts';

/** The named queries of messages, message_bodies, idempotency keys and the message list. */
export const MESSAGES_PLANS = definePlans('messages', {});
