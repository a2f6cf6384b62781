import type { operations } from './api-types.ts';
import type { Wirehook } from './client.ts';

/** The document's operations the client calls: all but the webhooks, which Wirehook sends rather than answers. */
type ApiOperation = Exclude<keyof operations, 'receiveMessage' | 'receiveFailureNotice'>;

type Resource = 'messages' | 'deliveries' | 'consumers' | 'endpoints' | 'eventTypes' | 'alerts';
type MethodOf<T> = { [K in keyof T]: T[K] extends (...args: never[]) => unknown ? K : never }[keyof T] & string;

/** A client method, as `resource.method` (e.g. `endpoints.rotateSecret`). */
export type ClientMethodPath = { [R in Resource]: `${R}.${MethodOf<Wirehook[R]>}` }[Resource];

/**
 * Each operationId of the API document with the client method that calls it. Typed against
 * the generated `operations` both ways (a missing or unknown operationId fails the
 * type-check) and against the client's methods; a test checks it against docs/openapi.json.
 */
export const OPERATION_METHODS = {
  sendMessage: 'messages.send',
  listMessages: 'messages.list',
  getMessage: 'messages.get',
  getDelivery: 'deliveries.get',
  listDeliveryAttempts: 'deliveries.attempts',
  retryDelivery: 'deliveries.retry',
  listConsumers: 'consumers.list',
  getConsumer: 'consumers.get',
  createConsumer: 'consumers.create',
  createPortalLink: 'consumers.portalLink',
  listEndpoints: 'endpoints.list',
  createEndpoint: 'endpoints.create',
  getEndpoint: 'endpoints.get',
  getEndpointStats: 'endpoints.stats',
  updateEndpoint: 'endpoints.update',
  deleteEndpoint: 'endpoints.delete',
  rotateEndpointSecret: 'endpoints.rotateSecret',
  simulateEndpointTransformation: 'endpoints.simulateTransformation',
  recoverEndpoint: 'endpoints.recover',
  getRecovery: 'endpoints.getRecovery',
  listEgressIps: 'endpoints.egressIps',
  listEventTypes: 'eventTypes.list',
  createEventType: 'eventTypes.create',
  exportEventCatalog: 'eventTypes.exportOpenApi',
  getEventType: 'eventTypes.get',
  updateEventType: 'eventTypes.update',
  listEventTypeVersions: 'eventTypes.versions',
  getAlertConditions: 'alerts.getConditions',
  updateAlertConditions: 'alerts.updateConditions',
  createAlertTarget: 'alerts.createTarget',
  listAlertTargets: 'alerts.listTargets',
  getAlertTarget: 'alerts.getTarget',
  testAlertTarget: 'alerts.testTarget',
  deleteAlertTarget: 'alerts.deleteTarget',
} as const satisfies Record<ApiOperation, ClientMethodPath>;

/** An operationId of the API document. */
export type OperationId = keyof typeof OPERATION_METHODS;
