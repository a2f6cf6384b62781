import {
  alertConditionsPatch,
  alertConditionsSchema,
  alertTargetCreatedResponse,
  alertTargetDetailResponse,
  alertTestResponse,
  alertTargetResponse,
  createAlertTargetBody,
} from '@wirehook/core';
import { idParam, listSchema, type Operation } from './operation.ts';

/** The operations under the 'Alerts' tag, in the order the reference shows them. */
export const ALERT_OPERATIONS: readonly Operation[] = [
  {
    id: 'getAlertConditions',
    method: 'get',
    path: '/v1/alert-conditions',
    tag: 'Alerts',
    summary: 'Get the alert conditions',
    description: "The failure-notification conditions of the key's environment (each environment has its own), or the defaults.",
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
    description: "A partial body changes only what it names, in the key's environment only (a test key cannot change live alerting).",
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
      'A webhook (signed like deliveries; its secret is shown only here), a Slack-compatible chat webhook, ' +
      'or an e-mail address (needs SMTP_URL on the server). ' +
      'At most 20 per environment: the 21st is 422 `invalid`.',
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
    success: { status: 200, description: 'The targets', schema: listSchema('AlertTargetList', alertTargetResponse) },
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
    params: [idParam('alert target id')],
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
      'Queues a sample notice (type alert.test) to the target and waits up to 15 seconds for its first try, which it returns: ' +
      'check a target without breaking an endpoint.',
    scope: 'endpoints:write',
    params: [idParam('alert target id')],
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
    params: [idParam('alert target id')],
    success: { status: 204, description: 'Removed' },
    errors: ['not_found'],
  },
];
