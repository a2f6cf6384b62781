import type { z } from 'zod';
import {
  alertConditionsPatch,
  alertConditionsSchema,
  alertTargetCreatedResponse,
  alertTargetDetailResponse,
  alertTestResponse,
  alertTargetResponse,
  consumerResponse,
  createAlertTargetBody,
  createConsumerBody,
  createEndpointBody,
  createEventTypeBody,
  deliveryResponse,
  endpointDetailResponse,
  endpointResponse,
  endpointWithSecretResponse,
  eventTypeResponse,
  listEndpointsQuery,
  listMessagesQuery,
  listOf,
  messageDetailResponse,
  messageRowResponse,
  pageOf,
  pageQuery,
  patchEndpointBody,
  portalLinkBody,
  portalLinkResponse,
  recoverBody,
  recoveryResponse,
  rotatedSecretResponse,
  sendMessageBody,
  sendMessageResponse,
  type ErrorCode,
  type Scope,
} from '@wirehook/core';

/** A path parameter: its name and what it holds. */
export interface PathParam {
  name: string;
  description: string;
}

/** A success response: its status, what it holds and its schema's component name (none for 204). */
export interface SuccessResponse {
  status: 200 | 201 | 202 | 204;
  description: string;
  schema?: { name: string; schema: z.ZodType };
  /** A sample body, shown in the reference. */
  example?: unknown;
  /** Response headers beyond the rate-limit ones every authenticated response has. */
  headers?: readonly 'x-usage-month'[];
}

/**
 * One operation of the public API, as data: what the OpenAPI document is generated from.
 * The request schemas are the very ones the routes parse with; the response schemas type the
 * presenters; `test/e2e` validates every response the suites receive against the document.
 */
export interface Operation {
  id: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI form: `/v1/endpoints/{id}`. */
  path: string;
  tag: 'Messages' | 'Consumers' | 'Endpoints' | 'Event types' | 'Alerts';
  summary: string;
  description?: string;
  /** null: any key of the environment. */
  scope: Scope | null;
  params?: readonly PathParam[];
  query?: z.ZodObject;
  body?: { name: string; schema: z.ZodType; required: boolean; example?: unknown };
  idempotencyKey?: boolean;
  success: SuccessResponse;
  /** Errors this operation answers beyond 401, 429 (every one) and 403, 413, 422 (every scoped one). */
  errors: readonly ErrorCode[];
}

const id = (what: string): PathParam => ({ name: 'id', description: what });

const page = (name: string, item: z.ZodType) => ({ name, schema: pageOf(item) });
const list = (name: string, item: z.ZodType) => ({ name, schema: listOf(item) });

export const OPERATIONS: readonly Operation[] = [
  {
    id: 'sendMessage',
    method: 'post',
    path: '/v1/messages',
    tag: 'Messages',
    summary: 'Send a message',
    description:
      'Creates one delivery per matching endpoint of the consumer and answers 202 once the message and its deliveries are stored. ' +
      'The same Idempotency-Key returns the same id for 24 hours (the first message wins); such a replay carries the header `idempotent-replayed: true`. An unknown consumer is created on the spot (0 deliveries). ' +
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
      '`q` matches part of the message id, event type, consumer external_id or Idempotency-Key. With `q`, `status` or `event_type` and no `since`, only the last 7 days are searched. ' +
      'A cursor outside the retention window is refused (422).',
    scope: 'logs:read',
    query: listMessagesQuery,
    success: { status: 200, description: 'A page of messages, newest first', schema: page('MessageRowPage', messageRowResponse) },
    errors: [],
  },
  {
    id: 'getMessage',
    method: 'get',
    path: '/v1/messages/{id}',
    tag: 'Messages',
    summary: 'Get a message',
    description: 'The payload, and each delivery with its attempts. An id outside the retention window is 404.',
    scope: 'logs:read',
    params: [id('message id (msg_…)')],
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
      'One delivery of a message to one endpoint, with its attempts, as getMessage shows it (the id the retry operation takes). ' +
      'An unknown id, one of another environment, or one outside the retention window is 404.',
    scope: 'logs:read',
    params: [id('delivery id (dlv_…)')],
    success: { status: 200, description: 'The delivery', schema: { name: 'Delivery', schema: deliveryResponse } },
    errors: ['not_found'],
  },
  {
    id: 'retryDelivery',
    method: 'post',
    path: '/v1/deliveries/{id}/retry',
    tag: 'Messages',
    summary: 'Retry a delivery',
    description:
      'Sends the delivery again at once, as the same message (same webhook-id). The answer is the delivery as queued (attempts empty). ' +
      '409 conflict when its endpoint is paused, disabled or deleted.',
    scope: 'messages:retry',
    params: [id('delivery id (dlv_…)')],
    success: { status: 202, description: 'Queued', schema: { name: 'Delivery', schema: deliveryResponse } },
    errors: ['not_found', 'conflict'],
  },
  {
    id: 'listConsumers',
    method: 'get',
    path: '/v1/consumers',
    tag: 'Consumers',
    summary: 'List consumers',
    scope: 'logs:read',
    query: pageQuery,
    success: { status: 200, description: 'A page of consumers', schema: page('ConsumerPage', consumerResponse) },
    errors: [],
  },
  {
    id: 'createConsumer',
    method: 'post',
    path: '/v1/consumers',
    tag: 'Consumers',
    summary: 'Create a consumer',
    description: 'A consumer is one of your customers. Its external_id is your own id for it and is unique (409 conflict).',
    scope: 'consumers:write',
    body: { name: 'CreateConsumerRequest', schema: createConsumerBody, required: true, example: { external_id: 'customer-42', name: 'Globex' } },
    success: { status: 201, description: 'Created', schema: { name: 'Consumer', schema: consumerResponse } },
    errors: ['conflict'],
  },
  {
    id: 'createPortalLink',
    method: 'post',
    path: '/v1/consumers/{id}/portal',
    tag: 'Consumers',
    summary: 'Create a portal link',
    description:
      'A link to the customer settings page for this consumer, valid 15 minutes. Only `frame_origin` may embed it in an iframe. Not on the Free plan (402 plan_limit).',
    scope: 'endpoints:write',
    params: [id('consumer id (con_…)')],
    body: { name: 'PortalLinkRequest', schema: portalLinkBody, required: false, example: { frame_origin: 'https://dashboard.example.com', locale: 'ja' } },
    success: { status: 201, description: 'Created', schema: { name: 'PortalLink', schema: portalLinkResponse } },
    errors: ['plan_limit', 'not_found'],
  },
  {
    id: 'listEndpoints',
    method: 'get',
    path: '/v1/endpoints',
    tag: 'Endpoints',
    summary: 'List endpoints',
    scope: 'logs:read',
    query: listEndpointsQuery,
    success: { status: 200, description: 'The endpoints (no paging)', schema: list('EndpointList', endpointResponse) },
    errors: [],
  },
  {
    id: 'createEndpoint',
    method: 'post',
    path: '/v1/endpoints',
    tag: 'Endpoints',
    summary: 'Create an endpoint',
    description:
      'The URL must be https on port 443 or 8443 and resolve to a public address (422 otherwise). At most 20 endpoints per consumer (422). ' +
      'The answer carries the signing secret, shown only here.',
    scope: 'endpoints:write',
    body: {
      name: 'CreateEndpointRequest',
      schema: createEndpointBody,
      required: true,
      example: {
        consumer_id: 'con_01JH4Z6Q8R2W7X3Y5Z9A0B1C2D',
        url: 'https://hooks.globex.example/wirehook',
        event_types: ['invoice.paid'],
        retry: { count: 7, interval: 'progressive' },
      },
    },
    success: { status: 201, description: 'Created', schema: { name: 'EndpointWithSecret', schema: endpointWithSecretResponse } },
    errors: ['not_found'],
  },
  {
    id: 'getEndpoint',
    method: 'get',
    path: '/v1/endpoints/{id}',
    tag: 'Endpoints',
    summary: 'Get an endpoint',
    description: 'The endpoint with its recent attempts, the count of deliveries retrying and its latest recovery.',
    scope: 'logs:read',
    params: [id('endpoint id (ep_…)')],
    success: { status: 200, description: 'The endpoint', schema: { name: 'EndpointDetail', schema: endpointDetailResponse } },
    errors: ['not_found'],
  },
  {
    id: 'updateEndpoint',
    method: 'patch',
    path: '/v1/endpoints/{id}',
    tag: 'Endpoints',
    summary: 'Update an endpoint',
    description:
      'Every field is optional. `retry: null` restores the default policy, `compat_signature: null` removes it. `status` pauses (messages are held) or resumes (held messages of this month and last month are sent).',
    scope: 'endpoints:write',
    params: [id('endpoint id (ep_…)')],
    body: { name: 'UpdateEndpointRequest', schema: patchEndpointBody, required: true, example: { status: 'paused' } },
    success: { status: 200, description: 'The endpoint as changed', schema: { name: 'Endpoint', schema: endpointResponse } },
    errors: ['not_found'],
  },
  {
    id: 'deleteEndpoint',
    method: 'delete',
    path: '/v1/endpoints/{id}',
    tag: 'Endpoints',
    summary: 'Delete an endpoint',
    description: 'Its open deliveries end as failed, in the same transaction.',
    scope: 'endpoints:write',
    params: [id('endpoint id (ep_…)')],
    success: { status: 204, description: 'Deleted' },
    errors: ['not_found'],
  },
  {
    id: 'rotateEndpointSecret',
    method: 'post',
    path: '/v1/endpoints/{id}/rotate-secret',
    tag: 'Endpoints',
    summary: 'Rotate the signing secret',
    description: 'For 24 hours deliveries carry a signature made with the old secret as well as the new one.',
    scope: 'endpoints:write',
    params: [id('endpoint id (ep_…)')],
    success: { status: 200, description: 'The new secret', schema: { name: 'RotatedSecret', schema: rotatedSecretResponse } },
    errors: ['not_found'],
  },
  {
    id: 'recoverEndpoint',
    method: 'post',
    path: '/v1/endpoints/{id}/recover',
    tag: 'Endpoints',
    summary: 'Start a recovery',
    description:
      'Re-sends the deliveries to this endpoint that had ended in failure, for messages created at or after `since`: 50 every 10 seconds, as the same messages. ' +
      '409 conflict when the endpoint is not active or a recovery already runs.',
    scope: 'messages:retry',
    params: [id('endpoint id (ep_…)')],
    body: { name: 'RecoverRequest', schema: recoverBody, required: true, example: { since: 1767225600000 } },
    success: { status: 202, description: 'Started', schema: { name: 'Recovery', schema: recoveryResponse } },
    errors: ['not_found', 'conflict'],
  },
  {
    id: 'getRecovery',
    method: 'get',
    path: '/v1/endpoints/{id}/recoveries/{recovery_id}',
    tag: 'Endpoints',
    summary: 'Get a recovery',
    scope: 'logs:read',
    params: [id('endpoint id (ep_…)'), { name: 'recovery_id', description: 'recovery id (rec_…)' }],
    success: { status: 200, description: 'The recovery', schema: { name: 'Recovery', schema: recoveryResponse } },
    errors: ['not_found'],
  },
  {
    id: 'listEventTypes',
    method: 'get',
    path: '/v1/event-types',
    tag: 'Event types',
    summary: 'List event types',
    description: 'Ordered by name, without paging. Any key of the environment may list them.',
    scope: null,
    success: { status: 200, description: 'The event types', schema: list('EventTypeList', eventTypeResponse) },
    errors: [],
  },
  {
    id: 'createEventType',
    method: 'post',
    path: '/v1/event-types',
    tag: 'Event types',
    summary: 'Register an event type',
    scope: 'endpoints:write',
    body: {
      name: 'CreateEventTypeRequest',
      schema: createEventTypeBody,
      required: true,
      example: { name: 'invoice.paid', description: 'An invoice was paid' },
    },
    success: { status: 201, description: 'Registered', schema: { name: 'EventType', schema: eventTypeResponse } },
    errors: ['conflict'],
  },
  {
    id: 'getAlertConditions',
    method: 'get',
    path: '/v1/alert-conditions',
    tag: 'Alerts',
    summary: 'Get the alert conditions',
    description: "The organization's failure-notification conditions (shared by both environments), or the defaults.",
    scope: 'logs:read',
    success: { status: 200, description: 'The conditions', schema: { name: 'AlertConditions', schema: alertConditionsSchema } },
    errors: [],
  },
  {
    id: 'updateAlertConditions',
    method: 'put',
    path: '/v1/alert-conditions',
    tag: 'Alerts',
    summary: 'Change the alert conditions',
    description: 'A partial body changes only what it names.',
    scope: 'endpoints:write',
    body: { name: 'AlertConditionsUpdate', schema: alertConditionsPatch, required: true, example: { delivery_failure: '15m' } },
    success: { status: 200, description: 'The conditions as changed', schema: { name: 'AlertConditions', schema: alertConditionsSchema } },
    errors: [],
  },
  {
    id: 'createAlertTarget',
    method: 'post',
    path: '/v1/alert-targets',
    tag: 'Alerts',
    summary: 'Add an alert target',
    description:
      'A webhook (signed like deliveries; its secret is shown only here), a Slack-compatible chat webhook, or an e-mail address (needs SMTP_URL on the server).',
    scope: 'endpoints:write',
    body: {
      name: 'CreateAlertTargetRequest',
      schema: createAlertTargetBody,
      required: true,
      example: { type: 'chat', url: 'https://hooks.slack.example/services/T000/B000/XXXX' },
    },
    success: { status: 201, description: 'Added', schema: { name: 'AlertTargetCreated', schema: alertTargetCreatedResponse } },
    errors: [],
  },
  {
    id: 'listAlertTargets',
    method: 'get',
    path: '/v1/alert-targets',
    tag: 'Alerts',
    summary: 'List alert targets',
    scope: 'logs:read',
    success: { status: 200, description: 'The targets', schema: list('AlertTargetList', alertTargetResponse) },
    errors: [],
  },
  {
    id: 'getAlertTarget',
    method: 'get',
    path: '/v1/alert-targets/{id}',
    tag: 'Alerts',
    summary: 'Get an alert target',
    description: 'The target with its latest notice attempts.',
    scope: 'logs:read',
    params: [id('alert target id')],
    success: { status: 200, description: 'The target', schema: { name: 'AlertTargetDetail', schema: alertTargetDetailResponse } },
    errors: ['not_found'],
  },
  {
    id: 'testAlertTarget',
    method: 'post',
    path: '/v1/alert-targets/{id}/test',
    tag: 'Alerts',
    summary: 'Send a test notice',
    description:
      'Queues a sample notice (type alert.test) to the target and waits up to 15 seconds for its first try, which it returns: check a target without breaking an endpoint.',
    scope: 'endpoints:write',
    params: [id('alert target id')],
    success: { status: 200, description: 'The notice and its first try', schema: { name: 'AlertTest', schema: alertTestResponse } },
    errors: ['not_found'],
  },
  {
    id: 'deleteAlertTarget',
    method: 'delete',
    path: '/v1/alert-targets/{id}',
    tag: 'Alerts',
    summary: 'Remove an alert target',
    scope: 'endpoints:write',
    params: [id('alert target id')],
    success: { status: 204, description: 'Removed' },
    errors: ['not_found'],
  },
];
