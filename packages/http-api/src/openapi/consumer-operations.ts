import { consumerResponse, createConsumerBody, pageQuery, portalLinkBody, portalLinkResponse } from '@wirehook/core';
import { idParam, pageSchema, type Operation } from './operation.ts';

/** The operations under the 'Consumers' tag, in the order the reference shows them. */
export const CONSUMER_OPERATIONS: readonly Operation[] = [
  {
    id: 'listConsumers',
    method: 'get',
    path: '/v1/consumers',
    tag: 'Consumers',
    summary: 'List consumers',
    scope: 'logs:read',
    query: pageQuery,
    success: { status: 200, description: 'A page of consumers', schema: pageSchema('ConsumerPage', consumerResponse) },
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
    id: 'getConsumer',
    method: 'get',
    path: '/v1/consumers/{id}',
    tag: 'Consumers',
    summary: 'Get a consumer',
    description: 'Added: one consumer by its id, with its external_id (what a message names it by). 404 in another environment.',
    scope: 'logs:read',
    params: [idParam('consumer id (con_…)')],
    success: { status: 200, description: 'The consumer', schema: { name: 'Consumer', schema: consumerResponse } },
    errors: ['not_found'],
  },
  {
    id: 'createPortalLink',
    method: 'post',
    path: '/v1/consumers/{id}/portal',
    tag: 'Consumers',
    summary: 'Create a portal link',
    description:
      'A link to the customer settings page for this consumer, valid 15 minutes. Only `frame_origin` may embed it in an iframe. ' +
      'Not on the Free plan (402 plan_limit).',
    scope: 'endpoints:write',
    params: [idParam('consumer id (con_…)')],
    body: { name: 'PortalLinkRequest', schema: portalLinkBody, required: false, example: { frame_origin: 'https://dashboard.example.com', locale: 'ja' } },
    success: { status: 201, description: 'Created', schema: { name: 'PortalLink', schema: portalLinkResponse } },
    errors: ['plan_limit', 'not_found'],
  },
];
