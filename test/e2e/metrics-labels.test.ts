// The HTTP metrics' label set: method, the API's route template (whatever the outcome —
// an error answered before or after routing keeps its route) and the status class, so error
// ratios by route can be computed.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readMetric } from '@wirehook/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { methodLabel, routeLabel } from '../../packages/http-api/src/http/route-label.ts';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';

let wh: Harness;
let t: TestTenant;

beforeAll(async () => {
  wh = await startWirehook();
  t = await wh.tenant();
});
afterAll(() => wh.close());

async function requestsCounted(method: string, route: string, statusClass: string): Promise<number> {
  return readMetric(wh.embedded.metricsUrl(), 'wirehook_http_requests_total', { method, route, status_class: statusClass });
}

describe('HTTP metrics labels', () => {
  it('labels by method, route template and status class, for errors before and after routing too', async () => {
    const cases: [() => Promise<unknown>, string, string, string][] = [
      [() => t.api.post('/v1/messages', { consumer: 'c', event_type: 'bad type', payload: {} }), 'POST', '/v1/messages', '4xx'],
      [() => t.api.post('/v1/messages', { consumer: 'c', event_type: 'a.b', payload: {} }), 'POST', '/v1/messages', '2xx'],
      [() => wh.anonymous.get('/v1/messages'), 'GET', '/v1/messages', '4xx'], // 401, before any route
      [() => t.api.get('/v1/messages/msg_01KAAAAAAAAAAAAAAAAAAAAAAA'), 'GET', '/v1/messages/:id', '4xx'], // 404 for an unknown id
      [() => t.api.get('/v1/consumers/'), 'GET', '/v1/consumers', '2xx'], // trailing slash
      [() => t.api.delete('/v1/endpoints/ep_nope'), 'DELETE', '/v1/endpoints/:id', '4xx'],
      [() => t.api.get('/v1/nope'), 'GET', 'unmatched', '4xx'],
    ];
    for (const [send, method, route, statusClass] of cases) {
      const before = await requestsCounted(method, route, statusClass);
      await send();
      expect(await requestsCounted(method, route, statusClass), `${method} ${route} ${statusClass}`).toBe(before + 1);
    }
  });

  it('a method the API does not answer (any token a client sends) is labelled other: no series of its own', async () => {
    const before = await requestsCounted('other', '/v1/messages', '4xx');
    for (const method of ['PROPFIND', 'MKCALENDAR', 'M-SEARCH']) await fetch(`${wh.url}/v1/messages`, { method });
    expect(await requestsCounted('other', '/v1/messages', '4xx')).toBe(before + 3);
    const text = await (await fetch(wh.embedded.metricsUrl())).text();
    expect(text).not.toMatch(/method="(PROPFIND|MKCALENDAR|M-SEARCH)"/);
    // The methods it answers keep their names.
    expect(methodLabel('PATCH')).toBe('PATCH');
    expect(methodLabel('get')).toBe('other');
  });

  it('every path of the API (docs/openapi.json) and its portal twin under /api has its own template, none unmatched', async () => {
    const { paths } = JSON.parse(await readFile(join(import.meta.dirname, '../../docs/openapi.json'), 'utf8')) as { paths: Record<string, unknown> };
    expect(Object.keys(paths).length).toBeGreaterThan(20);
    // What the portal's token API serves of them (services/portal/src/portal-api/portal-api.ts), under /api.
    const portal = /^\/v1\/(endpoints|event-types|egress-ips|messages|deliveries)(\/|$)/;
    for (const path of Object.keys(paths)) {
      const template = path.replace(/\{[a-z_]+\}/g, ':id');
      expect(routeLabel(path.replace(/\{[a-z_]+\}/g, 'x_01KAAAAAAAAAAAAAAAAAAAAAAA')), path).toBe(template);
      const twin = template.replace(/^\/v1/, '/api');
      expect(routeLabel(twin.replace(/:id/g, 'x_1')), path).toBe(portal.test(path) ? twin : 'unmatched');
    }
    // A template's dot is a dot: an event type named openapi_json is one of many.
    expect(routeLabel('/v1/event-types/openapi_json')).toBe('/v1/event-types/:id');
    expect(routeLabel('/v1/openapiXjson')).toBe('unmatched');
    // A name that is also a route of its own: the route.
    expect(routeLabel('/v1/event-types/openapi.json')).toBe('/v1/event-types/openapi.json');
    expect(routeLabel('/v1/event-types/order.created/versions')).toBe('/v1/event-types/:id/versions');
    expect(routeLabel('/v1/openapi.json')).toBe('/v1/openapi.json');
  });

  it.each([
    ['/v1/messages?status=failed', '/v1/messages'],
    ['/v1/endpoints/ep_1/rotate-secret', '/v1/endpoints/:id/rotate-secret'],
    ['/v1/deliveries/dlv_1/retry', '/v1/deliveries/:id/retry'],
    ['/v1/consumers/con_1/portal', '/v1/consumers/:id/portal'],
    ['/v1/messages/msg_1/extra', 'unmatched'],
    ['/v2/messages', 'unmatched'],
  ])('%s → %s', (path, template) => {
    expect(routeLabel(path)).toBe(template);
  });
});
