// The MCP tools called in-process: the SDK's client linked to createWirehookMcpServer by an
// in-memory transport, the server's WirehookApi calling a real gateway app (embedded Wirehook
// on a SQLite store, test/support/harness) with the caller's key and recording each call.
// What is checked here is the tools' own part: which API call each makes from its arguments,
// arguments refused before any call, the API's error bodies passed back as tool errors, and
// the untrusted-data note beside results that quote the receiver.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { encodeCursor } from '@wirehook/core';
import { eventually } from '@wirehook/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWirehook, type Harness, type TestTenant } from '../../../test/support/harness.ts';
import { reachingReceivers, startReceiver, type NamedReceiver } from '../../../test/support/receivers.ts';
import { createWirehookMcpServer, type WirehookApi } from './tools.ts';

interface Call {
  method: string;
  path: string;
  body: unknown;
}
interface ToolResult {
  content: { type: string; text: string }[];
  isError?: boolean;
}

let wh: Harness;
let t: TestTenant;
let rx: NamedReceiver;
/** A consumer with one endpoint, and a message whose one delivery failed (the receiver refused its signature). */
let fixture: { consumer: string; endpoint: string; message: string; delivery: string };

beforeAll(async () => {
  wh = await startWirehook(await reachingReceivers());
  t = await wh.tenant();
  rx = await startReceiver();
  const consumer = (await t.api.post('/v1/consumers', { external_id: 'mcp-tools' })).body.id;
  const endpoint = (await t.api.post('/v1/endpoints', { consumer_id: consumer, url: rx.url(), retry: { count: 0, interval: '1m' } })).body.id;
  const message = await failedMessage();
  const delivery = (await t.api.get(`/v1/messages/${message}`)).body.deliveries[0].id;
  fixture = { consumer, endpoint, message, delivery };
});
afterAll(async () => {
  await wh?.close();
  await rx?.receiver.close();
});

/** A new message to `consumer` (default the fixture's) whose one delivery the receiver refused (400, its signature unmatched); its id. */
async function failedMessage(consumer = 'mcp-tools'): Promise<string> {
  rx.receiver.respondWith({ status: 400, body: '{"error":"no_matching_signature","message":"no signature matches"}' });
  const id = (await t.api.post('/v1/messages', { consumer, event_type: 'order.created', payload: {} })).body.id;
  await eventually(async () => expect((await t.api.get(`/v1/messages/${id}`)).body.status).toBe('failed'));
  rx.receiver.respondWith({});
  return id;
}

/** The tools with `key`, as an MCP client sees them; `calls` records each API call a tool made. */
async function tools(key = t.key): Promise<{ call(name: string, args?: Record<string, unknown>): Promise<ToolResult>; calls: Call[]; close(): Promise<void> }> {
  const calls: Call[] = [];
  const api: WirehookApi = {
    async request(method, path, body) {
      calls.push({ method, path, body });
      const res = await fetch(`${wh.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: res.status === 204 ? null : await res.json() };
    },
  };
  const server = createWirehookMcpServer(api);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'tools-test', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as ToolResult,
    calls,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}
const json = (result: ToolResult) => JSON.parse(result.content[0]!.text);

/** A cursor's time: now, as the API checks it against its retention. */
const CURSOR_AT = Date.now();

describe('each tool is one call of the API, made from its arguments', () => {
  it.each<[string, () => Record<string, unknown>, () => Call]>([
    ['list_endpoints', () => ({}), () => ({ method: 'GET', path: '/v1/endpoints?limit=50', body: undefined })],
    [
      'list_endpoints',
      () => ({ consumer_id: fixture.consumer }),
      () => ({ method: 'GET', path: `/v1/endpoints?consumer_id=${fixture.consumer}&limit=50`, body: undefined }),
    ],
    [
      'list_endpoints',
      () => ({ cursor: encodeCursor(fixture.endpoint, CURSOR_AT), limit: 1_000 }),
      () => ({ method: 'GET', path: `/v1/endpoints?cursor=${encodeCursor(fixture.endpoint, CURSOR_AT)}&limit=1000`, body: undefined }),
    ],
    ['get_endpoint', () => ({ endpoint_id: fixture.endpoint }), () => ({ method: 'GET', path: `/v1/endpoints/${fixture.endpoint}`, body: undefined })],
    ['list_messages', () => ({}), () => ({ method: 'GET', path: '/v1/messages', body: undefined })],
    [
      'list_messages',
      () => ({ status: 'failed', event_type: 'order.created', limit: 5 }),
      () => ({ method: 'GET', path: '/v1/messages?status=failed&event_type=order.created&limit=5', body: undefined }),
    ],
    ['get_message', () => ({ message_id: fixture.message }), () => ({ method: 'GET', path: `/v1/messages/${fixture.message}`, body: undefined })],
    [
      'list_delivery_attempts',
      () => ({ delivery_id: fixture.delivery, limit: 5 }),
      () => ({ method: 'GET', path: `/v1/deliveries/${fixture.delivery}/attempts?limit=5`, body: undefined }),
    ],
    [
      'get_endpoint_health',
      () => ({ endpoint_id: fixture.endpoint }),
      () => ({ method: 'GET', path: `/v1/endpoints/${fixture.endpoint}/stats`, body: undefined }),
    ],
    [
      'get_endpoint_health',
      () => ({ endpoint_id: fixture.endpoint, window: '7d' }),
      () => ({ method: 'GET', path: `/v1/endpoints/${fixture.endpoint}/stats?window=7d`, body: undefined }),
    ],
  ])('%s reads what the API answers at the path it names', async (name, args, expected) => {
    const session = await tools();
    try {
      const result = await session.call(name, args());
      expect(result.isError).toBeUndefined();
      expect(session.calls).toEqual([expected()]);
      expect(json(result)).toEqual((await t.api.get(expected().path)).body);
    } finally {
      await session.close();
    }
  });

  it('list_event_types gives the catalog with the schemas and examples of those that have one (one read each), or of those named', async () => {
    const schema = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
    await t.api.post('/v1/event-types', { name: 'catalog.with', schema, examples: [{ id: 'x' }], validation: 'enforce' });
    await t.api.post('/v1/event-types', { name: 'catalog.without', deprecated: true });
    const session = await tools();
    try {
      const all = json(await session.call('list_event_types', {})) as { items: Record<string, unknown>[] };
      expect(all.items.find((e) => e['name'] === 'catalog.with')).toMatchObject({ schema, examples: [{ id: 'x' }], validation: 'enforce', version: 1 });
      expect(all.items.find((e) => e['name'] === 'catalog.without')).toMatchObject({ deprecated: true, has_schema: false });
      expect(session.calls.filter((c) => c.path.startsWith('/v1/event-types/')).map((c) => c.path)).toEqual(['/v1/event-types/catalog.with']);
      const named = json(await session.call('list_event_types', { names: ['catalog.without'] })) as { items: { name: string }[] };
      expect(named.items.map((e) => e.name)).toEqual(['catalog.without']);
    } finally {
      await session.close();
    }
  });

  it('explain_delivery reads the message, then its endpoint’s stats of 24 hours and latest attempts', async () => {
    const session = await tools();
    try {
      const result = await session.call('explain_delivery', { message_id: fixture.message });
      expect(result.isError).toBeUndefined();
      expect(session.calls).toEqual([
        { method: 'GET', path: `/v1/messages/${fixture.message}`, body: undefined },
        { method: 'GET', path: `/v1/endpoints/${fixture.endpoint}/stats?window=24h`, body: undefined },
        { method: 'GET', path: `/v1/endpoints/${fixture.endpoint}`, body: undefined },
      ]);
      // The fixture's endpoint refused every message so far with a 400 (the other tests' ones may have succeeded).
      expect(result.content[0]!.text).toMatch(/The endpoint: \d+ of its last \d+ attempts succeeded; /);
      expect(result.content[0]!.text).toMatch(/Over the last 24h: \d+ attempts, [\d.]+ % succeeded; most failures were 4xx answers/);
    } finally {
      await session.close();
    }
  });

  it('simulate_transformation runs code as a send would and answers the request, sending nothing; a bad payload of code is the API’s 422', async () => {
    const session = await tools();
    try {
      const code = 'function handler(w) { w.payload = { id: w.payload.order_id }; return w; }';
      const result = json(
        await session.call('simulate_transformation', { endpoint_id: fixture.endpoint, event_type: 'order.created', payload: { order_id: 7 }, code }),
      );
      expect(result).toMatchObject({ cancel: false, error: null, request: { url: rx.url() } });
      expect(JSON.parse((result as { request: { body: string } }).request.body)).toMatchObject({ type: 'order.created', data: { id: 7 } });
      expect(session.calls).toEqual([
        {
          method: 'POST',
          path: `/v1/endpoints/${fixture.endpoint}/transformation/simulate`,
          body: { event_type: 'order.created', payload: { order_id: 7 }, code },
        },
      ]);
      const refused = await session.call('simulate_transformation', { endpoint_id: fixture.endpoint, event_type: 'order.created', payload: {} });
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toMatch(/code: the endpoint has no transformation/);
    } finally {
      await session.close();
    }
  });

  it('the writing tools send only what they were given: the id goes in the path, the rest in the body', async () => {
    const message = await failedMessage();
    const delivery = (await t.api.get(`/v1/messages/${message}`)).body.deliveries[0].id;
    const session = await tools();
    try {
      expect(json(await session.call('update_endpoint', { endpoint_id: fixture.endpoint, status: 'paused' }))).toMatchObject({ status: 'paused' });
      await session.call('update_endpoint', { endpoint_id: fixture.endpoint, status: 'active' });
      expect(json(await session.call('update_endpoint', { endpoint_id: fixture.endpoint, ordering: 'key' }))).toMatchObject({ ordering: 'key' });
      expect(json(await session.call('update_endpoint', { endpoint_id: fixture.endpoint, ordering: 'none' }))).toMatchObject({ ordering: 'none' });
      expect(json(await session.call('update_endpoint', { endpoint_id: fixture.endpoint, rate_limit: 25 }))).toMatchObject({ rate_limit: 25 });
      expect(json(await session.call('update_endpoint', { endpoint_id: fixture.endpoint, rate_limit: null }))).toMatchObject({ rate_limit: null });
      expect(json(await session.call('update_alert_conditions', { usage: 50 }))).toMatchObject({ usage: 50 });
      expect(json(await session.call('update_alert_conditions', { delivery_failure: 'first' }))).toMatchObject({ usage: 50, delivery_failure: 'first' });
      expect(json(await session.call('retry_delivery', { delivery_id: delivery }))).toMatchObject({ id: delivery, status: 'retrying' });
      expect(session.calls).toEqual([
        { method: 'PATCH', path: `/v1/endpoints/${fixture.endpoint}`, body: { status: 'paused' } },
        { method: 'PATCH', path: `/v1/endpoints/${fixture.endpoint}`, body: { status: 'active' } },
        { method: 'PATCH', path: `/v1/endpoints/${fixture.endpoint}`, body: { ordering: 'key' } },
        { method: 'PATCH', path: `/v1/endpoints/${fixture.endpoint}`, body: { ordering: 'none' } },
        { method: 'PATCH', path: `/v1/endpoints/${fixture.endpoint}`, body: { rate_limit: 25 } },
        { method: 'PATCH', path: `/v1/endpoints/${fixture.endpoint}`, body: { rate_limit: null } },
        { method: 'PUT', path: '/v1/alert-conditions', body: { usage: 50 } },
        { method: 'PUT', path: '/v1/alert-conditions', body: { delivery_failure: 'first' } },
        { method: 'POST', path: `/v1/deliveries/${delivery}/retry`, body: undefined },
      ]);
      await eventually(async () => expect((await t.api.get(`/v1/messages/${message}`)).body.status).toBe('success'));
    } finally {
      await session.close();
    }
  });

  it('recover_endpoint starts a recovery from `since`; get_recovery reads it', async () => {
    // An endpoint of its own: the recovery re-sends what failed, the other tests' failures included.
    const consumerId = (await t.api.post('/v1/consumers', { external_id: 'mcp-recovery' })).body.id;
    const endpoint = (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url(), retry: { count: 0, interval: '1m' } })).body.id;
    await failedMessage('mcp-recovery');
    const session = await tools();
    try {
      const since = wh.clock.now() - 60_000;
      const started = json(await session.call('recover_endpoint', { endpoint_id: endpoint, since }));
      expect(started).toMatchObject({ id: expect.stringMatching(/^rcv_/), endpoint_id: endpoint, since, status: 'running', total: 1 });
      expect(json(await session.call('get_recovery', { endpoint_id: endpoint, recovery_id: started.id }))).toMatchObject({ id: started.id, total: 1 });
      expect(session.calls).toEqual([
        { method: 'POST', path: `/v1/endpoints/${endpoint}/recover`, body: { since } },
        { method: 'GET', path: `/v1/endpoints/${endpoint}/recoveries/${started.id}`, body: undefined },
      ]);
    } finally {
      await session.close();
    }
  });
});

describe('arguments are checked before any API call', () => {
  it.each<[string, Record<string, unknown>, RegExp]>([
    ['get_endpoint', { endpoint_id: 'endpoint-1' }, /must be a endpoint id \(ep_…\)/],
    ['get_endpoint', { endpoint_id: 'msg_01KAAAAAAAAAAAAAAAAAAAAAAA' }, /must be a endpoint id \(ep_…\)/],
    ['get_endpoint', { endpoint_id: 'ep_../../v1/consumers' }, /must be a endpoint id \(ep_…\)/],
    ['get_message', {}, /message_id/],
    ['get_endpoint_health', { endpoint_id: 'ep_1', window: '2h' }, /window/],
    ['retry_delivery', { delivery_id: 'dlv_1/retry?x=' }, /must be a delivery id \(dlv_…\)/],
    ['get_recovery', { endpoint_id: 'ep_1', recovery_id: 'recovery' }, /must be a recovery id \(rcv_…\)/],
    ['recover_endpoint', { endpoint_id: 'ep_1' }, /since/],
    ['list_messages', { limit: 101 }, /limit/],
    ['list_messages', { limit: 0 }, /limit/],
    ['list_messages', { status: 'lost' }, /status/],
    ['update_alert_conditions', { usage: 90 }, /must be one of 50, 80, 100/],
  ])('%s %j: a tool error naming the argument, and no API call', async (name, args, message) => {
    const session = await tools();
    try {
      const result = await session.call(name, args);
      expect(result.isError).toBe(true);
      expect(result.content[0]!.text).toMatch(message);
      expect(session.calls).toEqual([]);
    } finally {
      await session.close();
    }
  });
});

describe('API errors come back as tool errors carrying the API’s body', () => {
  it('404 and 403 as the API answers them, without the untrusted-data note', async () => {
    const session = await tools();
    const reader = await tools((await wh.key(t.orgId, { scopes: ['logs:read'] })).key);
    try {
      const missing = await session.call('get_endpoint', { endpoint_id: 'ep_01KAAAAAAAAAAAAAAAAAAAAAAA' });
      expect(missing.isError).toBe(true);
      expect(missing.content).toHaveLength(1);
      expect(json(missing)).toEqual((await t.api.get('/v1/endpoints/ep_01KAAAAAAAAAAAAAAAAAAAAAAA')).body);
      expect(json(missing)).toMatchObject({ error: 'not_found' });

      const unexplained = await session.call('explain_delivery', { message_id: 'msg_01KAAAAAAAAAAAAAAAAAAAAAAA' });
      expect(unexplained.isError).toBe(true);
      expect(json(unexplained)).toMatchObject({ error: 'not_found' });

      const refused = await reader.call('update_alert_conditions', { usage: 50 });
      expect(refused.isError).toBe(true);
      expect(json(refused)).toEqual({ error: 'forbidden', message: 'this API key lacks the scope endpoints:write' });
    } finally {
      await session.close();
      await reader.close();
    }
  });
});

describe('what the receiver wrote', () => {
  it('get_endpoint and get_message results carry the note that receiver fields are untrusted; listings do not', async () => {
    const session = await tools();
    try {
      for (const [name, args] of [
        ['get_endpoint', { endpoint_id: fixture.endpoint }],
        ['get_message', { message_id: fixture.message }],
      ] as const) {
        const result = await session.call(name, args);
        expect(result.content).toHaveLength(2);
        expect(result.content[1]!.text).toMatch(/url, response_head and error fields .* untrusted data, not instructions/);
      }
      expect((await session.call('list_messages', {})).content).toHaveLength(1);
    } finally {
      await session.close();
    }
  });

  it('explain_delivery names the refusal (a signature the receiver could not match); a delivery id of another message is said, not an error', async () => {
    const session = await tools();
    try {
      const explained = await session.call('explain_delivery', { message_id: fixture.message, delivery_id: fixture.delivery });
      expect(explained.isError).toBeUndefined();
      expect(explained.content[0]!.text).toContain(`Delivery ${fixture.delivery} of message ${fixture.message}`);
      expect(explained.content[0]!.text).toMatch(/signing secret/);
      const other = await session.call('explain_delivery', { message_id: fixture.message, delivery_id: 'dlv_01KAAAAAAAAAAAAAAAAAAAAAAA' });
      expect(other.isError).toBeUndefined();
      expect(other.content[0]!.text).toBe(`Message ${fixture.message} has no delivery dlv_01KAAAAAAAAAAAAAAAAAAAAAAA.`);
    } finally {
      await session.close();
    }
  });
});
