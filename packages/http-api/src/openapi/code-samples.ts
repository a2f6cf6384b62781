import type { Operation } from './operations.ts';

/** The SDK the samples use, named in their text only (the server does not depend on it). */
const CLIENT_PACKAGE = '@wirehook/client';
/**
 * The @wirehook/client method of each operation: the client's OPERATION_METHODS, written out
 * here because the server does not depend on its SDK. packages/client's operations.test.ts fails
 * when a sample of docs/openapi.json calls another method than OPERATION_METHODS names, and
 * test/packages/install.test.ts type-checks every sample against the packed client.
 */
const CLIENT_METHODS: Record<string, string> = {
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
};

/** A sample id for a path parameter, by the path segment before it (`/v1/endpoints/{id}` → ep_…). */
const SAMPLE_IDS: Record<string, string> = {
  messages: 'msg_01JH4Z6Q8R2W7X3Y5Z9A0B1C2D',
  deliveries: 'dlv_01JH4Z6Q8R2W7X3Y5Z9A0B1C2E',
  consumers: 'con_01JH4Z6Q8R2W7X3Y5Z9A0B1C2F',
  endpoints: 'ep_01JH4Z6Q8R2W7X3Y5Z9A0B1C2G',
  recoveries: 'rcv_01JH4Z6Q8R2W7X3Y5Z9A0B1C2H',
  'alert-targets': 'atg_01JH4Z6Q8R2W7X3Y5Z9A0B1C2J',
  'event-types': 'invoice.paid',
};

/** One entry of Redoc's `x-codeSamples`. */
export interface CodeSample {
  lang: 'Shell' | 'TypeScript';
  label: string;
  source: string;
}

/**
 * The operation's `x-codeSamples`: curl, and a complete module using @wirehook/client. Both are
 * made from the operation table (method, path, sample body), never written by hand.
 */
export function codeSamples(op: Operation): CodeSample[] {
  const method = CLIENT_METHODS[op.id];
  if (!method) throw new Error(`no @wirehook/client method for operation ${op.id}`);
  const ids = pathIds(op.path);
  const path = op.path.replace(/\{[^}]+\}/g, () => ids.shift()!.value);
  return [
    { lang: 'Shell', label: 'curl', source: curl(op, path) },
    { lang: 'TypeScript', label: CLIENT_PACKAGE, source: typescript(op, method) },
  ];
}

function pathIds(path: string): { name: string; value: string }[] {
  const segments = path.split('/');
  return segments.flatMap((segment, i) => {
    const name = /^\{(.+)\}$/.exec(segment)?.[1];
    if (!name) return [];
    const value = SAMPLE_IDS[segments[i - 1] ?? ''];
    if (!value) throw new Error(`no sample id for {${name}} in ${path}`);
    return [{ name, value }];
  });
}

function curl(op: Operation, path: string): string {
  const lines = [`curl -X ${op.method.toUpperCase()} "$WIREHOOK_URL${path}"`, `-H "Authorization: Bearer $WIREHOOK_API_KEY"`];
  if (op.idempotencyKey) lines.push(`-H 'Idempotency-Key: order-1001-paid'`);
  if (op.body?.example !== undefined) {
    lines.push(`-H 'Content-Type: application/json'`);
    lines.push(`-d '${JSON.stringify(op.body.example).replaceAll("'", "'\\''")}'`);
  }
  return `${lines.join(' \\\n  ')}\n`;
}

function typescript(op: Operation, method: string): string {
  const args = pathIds(op.path).map((id) => `'${id.value}'`);
  if (op.body?.example !== undefined) args.push(tsValue(op.body.example));
  if (op.idempotencyKey) args.push(`{ idempotencyKey: 'order-1001-paid' }`);
  const call = `await wirehook.${method}(${args.join(', ')})`;
  return [
    `import { Wirehook } from '${CLIENT_PACKAGE}';`,
    '',
    `const wirehook = new Wirehook({ apiKey: process.env.WIREHOOK_API_KEY!, baseUrl: process.env.WIREHOOK_URL });`,
    op.success.schema ? `const answer = ${call};\nconsole.log(answer);` : `${call};`,
    '',
  ].join('\n');
}

/** A JSON value as a TypeScript literal: unquoted keys where they are identifiers, single quotes. */
function tsValue(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(tsValue).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : `'${k}'`}: ${tsValue(v)}`);
    return entries.length ? `{ ${entries.join(', ')} }` : '{}';
  }
  // Line breaks escaped too: a sample's code (a transformation) spans lines.
  if (typeof value === 'string') return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'").replaceAll('\n', '\\n')}'`;
  return JSON.stringify(value);
}
