import {
  attemptResponse,
  deliveryResponse,
  listMessagesQuery,
  pageQuery,
  messageDetailResponse,
  messageRowResponse,
  sendMessageBody,
  sendMessageResponse,
} from '@wirehook/core';
import { idParam, pageSchema, type Operation } from './operation.ts';

/** The operations under the 'Messages' tag, in the order the reference shows them. */
export const MESSAGE_OPERATIONS: readonly Operation[] = [
  {
    id: 'sendMessage',
    method: 'post',
    path: '/v1/messages',
    tag: 'Messages',
    summary: 'Send a message',
    description:
      'Creates one delivery per matching endpoint of the consumer and answers 202 once the message and its deliveries are stored. ' +
      'The same Idempotency-Key returns the same id for 24 hours (the first message wins); such a replay carries the header `idempotent-replayed: true`. ' +
      'An unknown consumer is created on the spot (0 deliveries). ' +
      'Test-environment messages are limited to 1,000 per environment per UTC day (402 plan_limit). ' +
      'The payload may be up to 1 MB of JSON (422 beyond); a request body over 1.1 MB is refused unread (413 too_large).',
    scope: 'messages:send',
    body: {
      name: 'SendMessageRequest',
      schema: sendMessageBody,
      required: true,
      example: { consumer: 'customer-42', event_type: 'invoice.paid', payload: { invoice: 1001, amount: 4200 } },
    },
    idempotencyKey: true,
    success: {
      status: 202,
      description: 'Accepted',
      schema: { name: 'MessageAccepted', schema: sendMessageResponse },
      example: { id: 'msg_01JH4Z6Q8R2W7X3Y5Z9A0B1C2D', deliveries: 1 },
      headers: ['x-usage-month'],
    },
    errors: ['plan_limit'],
  },
  {
    id: 'listMessages',
    method: 'get',
    path: '/v1/messages',
    tag: 'Messages',
    summary: 'List messages',
    description:
      '`q` matches part of the message id, event type, consumer external_id or Idempotency-Key. ' +
      'With `q`, `status` or `event_type` and no `since`, only the last 7 days are searched. ' +
      'A cursor outside the retention window is refused (422). ' +
      'A filtered page may hold fewer items than `limit`, even none, with a `next_cursor` (the store bounds what one page reads): ' +
      'only a null `next_cursor` ends the list.',
    scope: 'logs:read',
    query: listMessagesQuery,
    success: { status: 200, description: 'A page of messages, newest first', schema: pageSchema('MessageRowPage', messageRowResponse) },
    errors: [],
  },
  {
    id: 'getMessage',
    method: 'get',
    path: '/v1/messages/{id}',
    tag: 'Messages',
    summary: 'Get a message',
    description:
      'The payload, and each delivery with its newest 20 attempts (oldest of them first); ' +
      'a delivery with more has an `attempts_next_cursor` for listDeliveryAttempts. ' +
      'An id outside the retention window is 404.',
    scope: 'logs:read',
    params: [idParam('message id (msg_…)')],
    success: { status: 200, description: 'The message', schema: { name: 'MessageDetail', schema: messageDetailResponse } },
    errors: ['not_found'],
  },
  {
    id: 'getDelivery',
    method: 'get',
    path: '/v1/deliveries/{id}',
    tag: 'Messages',
    summary: 'Get a delivery',
    description:
      'One delivery of a message to one endpoint, with its newest 20 attempts, as getMessage shows it (the id the retry operation takes); ' +
      '`attempts_next_cursor` pages the older ones (listDeliveryAttempts). ' +
      'An unknown id, one of another environment, or one outside the retention window is 404.',
    scope: 'logs:read',
    params: [idParam('delivery id (dlv_…)')],
    success: { status: 200, description: 'The delivery', schema: { name: 'Delivery', schema: deliveryResponse } },
    errors: ['not_found'],
  },
  {
    id: 'listDeliveryAttempts',
    method: 'get',
    path: '/v1/deliveries/{id}/attempts',
    tag: 'Messages',
    summary: 'List a delivery’s attempts',
    description:
      'Every attempt of one delivery, newest first, paged: the way to the attempts older than the 20 a delivery shows ' +
      '(start from its `attempts_next_cursor`, or without a cursor from the newest). ' +
      'An unknown delivery id, or one outside the retention window, is 404; a cursor of another list or outside the retention window is 422.',
    scope: 'logs:read',
    params: [idParam('delivery id (dlv_…)')],
    query: pageQuery,
    success: { status: 200, description: 'A page of attempts, newest first', schema: pageSchema('AttemptRowPage', attemptResponse) },
    errors: ['not_found'],
  },
  {
    id: 'retryDelivery',
    method: 'post',
    path: '/v1/deliveries/{id}/retry',
    tag: 'Messages',
    summary: 'Retry a delivery',
    description:
      'Sends the delivery again at once, as the same message (same webhook-id). ' +
      'The answer is the delivery as queued, as getDelivery shows it: its newest 20 attempts so far and `attempts_next_cursor` for older ones. ' +
      '409 conflict when its endpoint is paused, disabled or deleted, or when the delivery already has 100 attempts (a send in flight counted): ' +
      'manual retries stop there; send the payload as a new message instead.',
    scope: 'messages:retry',
    params: [idParam('delivery id (dlv_…)')],
    success: { status: 202, description: 'Queued', schema: { name: 'Delivery', schema: deliveryResponse } },
    errors: ['not_found', 'conflict'],
  },
];
