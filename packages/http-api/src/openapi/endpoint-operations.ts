import {
  createEndpointBody,
  egressIpResponse,
  endpointDetailResponse,
  endpointStatsQuery,
  endpointStatsResponse,
  endpointResponse,
  endpointUpdatedResponse,
  endpointWithSecretResponse,
  listEndpointsQuery,
  patchEndpointBody,
  recoverBody,
  recoveryResponse,
  rotatedSecretResponse,
  simulateTransformationBody,
  transformationSimulationResponse,
} from '@wirehook/core';
import { idParam, listSchema, pageSchema, type Operation } from './operation.ts';

/** The operations under the 'Endpoints' tag, in the order the reference shows them. */
export const ENDPOINT_OPERATIONS: readonly Operation[] = [
  {
    id: 'listEndpoints',
    method: 'get',
    path: '/v1/endpoints',
    tag: 'Endpoints',
    summary: 'List endpoints',
    scope: 'logs:read',
    description:
      "By id, up to 1,000 a page (`limit`), all of nearly every tenant's in one: the spec shows `{ items }` alone, so `next_cursor` " +
      'is an addition, null unless more endpoints follow. A cursor outside the retention window is refused (422).',
    query: listEndpointsQuery,
    success: { status: 200, description: 'A page of endpoints by id', schema: pageSchema('EndpointList', endpointResponse) },
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
    description:
      'The endpoint with its recent attempts, the count of deliveries retrying, its latest recovery and its throughput now ' +
      '(rate limit, adaptive concurrency, sends in flight, a receiver’s Retry-After hold).',
    scope: 'logs:read',
    params: [idParam('endpoint id (ep_…)')],
    success: { status: 200, description: 'The endpoint', schema: { name: 'EndpointDetail', schema: endpointDetailResponse } },
    errors: ['not_found'],
  },
  {
    id: 'getEndpointStats',
    method: 'get',
    path: '/v1/endpoints/{id}/stats',
    tag: 'Endpoints',
    summary: 'Get an endpoint’s health',
    description:
      'Attempts made to the endpoint in the window (every try counted), how many succeeded (2xx), the failures by class, latency percentiles ' +
      'and a series of buckets whose counts add up to the totals; ' +
      'and, as of now, its deliveries waiting and the oldest one’s creation. ' +
      'Read from rollups kept as attempts complete, so it costs the same whatever the traffic. ' +
      'The window ends at the end of the bucket holding now: `1h` is 12 five-minute buckets, `24h` (the default) 24 hourly ones, ' +
      '`7d` 28 six-hourly ones (UTC 00, 06, 12, 18 h). ' +
      'Percentiles are the bounds of a fixed log-spaced latency histogram (about √2 apart), so never below the true value and at most ~41 % above it.',
    scope: 'logs:read',
    params: [idParam('endpoint id (ep_…)')],
    query: endpointStatsQuery,
    success: { status: 200, description: 'The endpoint’s health', schema: { name: 'EndpointStats', schema: endpointStatsResponse } },
    errors: ['not_found'],
  },
  {
    id: 'updateEndpoint',
    method: 'patch',
    path: '/v1/endpoints/{id}',
    tag: 'Endpoints',
    summary: 'Update an endpoint',
    description:
      'Every field is optional. `retry: null` restores the default policy, `compat_signature: null` removes it. ' +
      '`status` pauses (messages are held) or resumes (held messages of this month and last month are sent).',
    scope: 'endpoints:write',
    params: [idParam('endpoint id (ep_…)')],
    body: { name: 'UpdateEndpointRequest', schema: patchEndpointBody, required: true, example: { status: 'paused' } },
    success: {
      status: 200,
      description: 'The endpoint as changed, with its throughput now',
      schema: { name: 'EndpointUpdated', schema: endpointUpdatedResponse },
    },
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
    params: [idParam('endpoint id (ep_…)')],
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
    params: [idParam('endpoint id (ep_…)')],
    success: { status: 200, description: 'The new secret', schema: { name: 'RotatedSecret', schema: rotatedSecretResponse } },
    errors: ['not_found'],
  },
  {
    id: 'simulateEndpointTransformation',
    method: 'post',
    path: '/v1/endpoints/{id}/transformation/simulate',
    tag: 'Endpoints',
    summary: 'Try a transformation',
    description:
      'Runs `code` (or the endpoint’s stored transformation) on a webhook of `event_type` with `payload`, as a send would — the same sandbox, ' +
      'budget and checks of what it returns — and answers the request that would be sent, a cancel, or the error an attempt would record. ' +
      'Nothing is sent or stored. The code is given the endpoint’s custom headers as responses show them (redacted). ' +
      '422 when no code is given and the endpoint has no transformation; 503 when the sandbox is busy (try again shortly).',
    scope: 'endpoints:write',
    params: [idParam('endpoint id (ep_…)')],
    body: {
      name: 'SimulateTransformationRequest',
      schema: simulateTransformationBody,
      required: true,
      example: {
        event_type: 'invoice.paid',
        payload: { invoice_id: 'in_1' },
        code: [
          'function handler(webhook) {',
          '  const { invoice_id, ...rest } = webhook.payload;',
          '  webhook.payload = { ...rest, invoiceId: invoice_id };',
          '  return webhook;',
          '}',
        ].join('\n'),
      },
    },
    success: {
      status: 200,
      description: 'What a send would do',
      schema: { name: 'TransformationSimulation', schema: transformationSimulationResponse },
    },
    errors: ['not_found', 'unavailable'],
  },
  {
    id: 'recoverEndpoint',
    method: 'post',
    path: '/v1/endpoints/{id}/recover',
    tag: 'Endpoints',
    summary: 'Start a recovery',
    description:
      'Re-sends the deliveries to this endpoint that had ended in failure, for messages created at or after `since`: ' +
      '50 every 10 seconds, as the same messages. ' +
      '409 conflict when the endpoint is not active or a recovery already runs.',
    scope: 'messages:retry',
    params: [idParam('endpoint id (ep_…)')],
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
    params: [idParam('endpoint id (ep_…)'), { name: 'recovery_id', description: 'recovery id (rec_…)' }],
    success: { status: 200, description: 'The recovery', schema: { name: 'Recovery', schema: recoveryResponse } },
    errors: ['not_found'],
  },
  {
    id: 'listEgressIps',
    method: 'get',
    path: '/v1/egress-ips',
    tag: 'Endpoints',
    summary: 'List the fixed source addresses',
    description:
      'The addresses `fixed_ip` endpoints’ webhooks are sent from (the fixed IP pool), for customers to allowlist. ' +
      'An address taken out of the pool stays listed with `retiring_at` for 30 days after the change; current ones have `retiring_at: null` and come first. ' +
      'Any key of the environment may list them.',
    scope: null,
    success: { status: 200, description: 'The addresses', schema: listSchema('EgressIpList', egressIpResponse) },
    errors: [],
  },
];
