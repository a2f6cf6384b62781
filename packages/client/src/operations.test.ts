// OPERATION_METHODS against docs/openapi.json both ways, and each mapped method really calls
// its operation's method and path (with an injected fetch recording the request).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Wirehook } from './client.ts';
import { OPERATION_METHODS, type OperationId } from './operations.ts';
import { fakeFetch, json } from './testing/fake-fetch.ts';

interface DocOperation {
  operationId: string;
  method: string;
  path: string;
  hasBody: boolean;
}

const document = JSON.parse(readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, { operationId?: string; requestBody?: unknown; 'x-codeSamples'?: { lang: string; source: string }[] }>>;
};
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
const docOperations: DocOperation[] = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method, op]) => METHODS.includes(method) && op.operationId)
    .map(([method, op]) => ({ operationId: op.operationId!, method: method.toUpperCase(), path, hasBody: op.requestBody !== undefined })),
);

/** Arguments to call each operation's method with; ids differ from every literal path segment. */
const ARGS: Record<OperationId, unknown[]> = {
  sendMessage: [{ consumer: 'acme', event_type: 'order.created', payload: { n: 1 } }],
  listMessages: [{ limit: 2 }],
  getMessage: ['msg_1'],
  getDelivery: ['dlv_1'],
  listDeliveryAttempts: ['dlv_1', { limit: 2 }],
  retryDelivery: ['dlv_1'],
  listConsumers: [{ limit: 2 }],
  getConsumer: ['con_1'],
  createConsumer: [{ external_id: 'acme' }],
  createPortalLink: ['con_1', { locale: 'en' }],
  listEndpoints: [{ consumer_id: 'con_1' }],
  createEndpoint: [{ consumer_id: 'con_1', url: 'https://example.com/hook' }],
  getEndpoint: ['ep_1'],
  getEndpointStats: ['ep_1', { window: '7d' }],
  updateEndpoint: ['ep_1', { status: 'paused' }],
  deleteEndpoint: ['ep_1'],
  rotateEndpointSecret: ['ep_1'],
  simulateEndpointTransformation: ['ep_1', { event_type: 'order.created', payload: {} }],
  recoverEndpoint: ['ep_1', { since: 1 }],
  getRecovery: ['ep_1', 'rcv_1'],
  listEgressIps: [],
  listEventTypes: [],
  createEventType: [{ name: 'order.created' }],
  exportEventCatalog: [],
  getEventType: ['order.created'],
  updateEventType: ['order.created', { deprecated: true }],
  listEventTypeVersions: ['order.created'],
  getAlertConditions: [],
  updateAlertConditions: [{ usage: 50 }],
  createAlertTarget: [{ type: 'email', address: 'ops@example.com' }],
  listAlertTargets: [],
  getAlertTarget: ['atg_1'],
  testAlertTarget: ['atg_1'],
  deleteAlertTarget: ['atg_1'],
};

const templateMatches = (template: string, pathname: string) => new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(pathname);

function resolve(client: Wirehook, methodPath: string): { target: object; fn: unknown } {
  const [resource = '', method = ''] = methodPath.split('.');
  const target = (client as unknown as Record<string, object>)[resource] ?? {};
  return { target, fn: (target as Record<string, unknown>)[method] };
}

describe('OPERATION_METHODS', () => {
  it('has an entry for every operationId of docs/openapi.json, and no other', () => {
    expect(docOperations.length).toBeGreaterThan(20);
    expect(Object.keys(OPERATION_METHODS).sort()).toEqual(docOperations.map((o) => o.operationId).sort());
  });

  it('maps each operation to a method that sends its documented method and path', async () => {
    const { fetch, requests } = fakeFetch(() => json(200, { items: [], next_cursor: null }));
    const client = new Wirehook({ apiKey: 'sk_test_x', baseUrl: 'http://wh.test', fetch });
    for (const op of docOperations) {
      const methodPath = OPERATION_METHODS[op.operationId as OperationId];
      const { target, fn } = resolve(client, methodPath);
      expect(typeof fn, `${op.operationId} → ${methodPath}`).toBe('function');
      await (fn as (...args: unknown[]) => Promise<unknown>).apply(target, ARGS[op.operationId as OperationId]);
      const sent = requests.at(-1)!;
      const candidates = docOperations.filter((o) => o.method === sent.method && templateMatches(o.path, sent.url.pathname));
      // As OpenAPI says: a concrete path wins over a templated one (/v1/event-types/openapi.json over /v1/event-types/{name}).
      const concrete = candidates.filter((o) => o.path === sent.url.pathname);
      const matching = concrete.length > 0 ? concrete : candidates;
      expect(
        matching.map((o) => o.operationId),
        `${methodPath} sent ${sent.method} ${sent.url.pathname}`,
      ).toEqual([op.operationId]);
      expect(sent.body !== undefined, `${methodPath} sends a body`).toBe(op.hasBody);
    }
    expect(requests).toHaveLength(docOperations.length);
  });

  it('every operation method of the client is in the map (iterate, iterateAttempts page through a list operation)', () => {
    const client = new Wirehook({ apiKey: 'sk_test_x' });
    const mapped = new Set<string>(Object.values(OPERATION_METHODS));
    const resources = ['messages', 'deliveries', 'consumers', 'endpoints', 'eventTypes', 'alerts'];
    const methods = resources.flatMap((r) => {
      const proto = Object.getPrototypeOf((client as unknown as Record<string, object>)[r]) as object;
      return Object.getOwnPropertyNames(proto)
        .filter((m) => m !== 'constructor' && !m.startsWith('iterate'))
        .map((m) => `${r}.${m}`);
    });
    expect(methods.sort()).toEqual([...mapped].sort());
  });

  it("is what the document's TypeScript samples call: each operation's x-codeSamples call its method, once", () => {
    for (const item of Object.values(document.paths)) {
      for (const op of Object.values(item)) {
        const source = op['x-codeSamples']?.find((sample) => sample.lang === 'TypeScript')?.source ?? '';
        const calls = [...source.matchAll(/wirehook\.(\w+\.\w+)\(/g)].map((m) => m[1]);
        expect(calls, op.operationId).toEqual([OPERATION_METHODS[op.operationId as OperationId]]);
        expect(source, op.operationId).toContain("import { Wirehook } from '@wirehook/client';");
      }
    }
  });
});
