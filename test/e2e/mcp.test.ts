// The MCP interface with the SDK's own client: over Streamable HTTP at POST /mcp (API keys,
// their scopes, the API's errors as tool errors) and over stdio (`pnpm -s mcp`).
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { eventually } from '@wirehook/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';
import { type NamedReceiver, reachingReceivers, startReceiver } from '../support/receivers.ts';

let wh: Harness;
let t: TestTenant;
let rx: NamedReceiver;
beforeAll(async () => {
  wh = await startWirehook(await reachingReceivers());
  t = await wh.tenant();
  rx = await startReceiver();
});
afterAll(async () => {
  await wh.close();
  await rx.receiver.close();
});

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'wirehook-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${wh.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}
const json = (result: unknown) => JSON.parse((result as { content: { text: string }[] }).content[0]!.text) as any;

describe('MCP over HTTP', () => {
  it('lists the spec’s tools and the debugging ones', async () => {
    const client = await connect(t.key);
    const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
    expect(names).toEqual(
      [
        'explain_delivery',
        'get_endpoint',
        'get_endpoint_health',
        'get_message',
        'get_recovery',
        'list_delivery_attempts',
        'list_endpoints',
        'list_event_types',
        'list_messages',
        'recover_endpoint',
        'retry_delivery',
        'simulate_transformation',
        'update_alert_conditions',
        'update_endpoint',
      ].sort(),
    );
    const recover = (await client.listTools()).tools.find((tool) => tool.name === 'recover_endpoint')!;
    expect(recover.inputSchema.required).toEqual(expect.arrayContaining(['endpoint_id', 'since']));
    await client.close();
  });

  it('each tool works through the API, with its errors as tool errors', async () => {
    const client = await connect(t.key);
    const consumerId = (await t.api.post('/v1/consumers', { external_id: 'mcp' })).body.id;
    const endpoint = (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url(), retry: { count: 0, interval: '1m' } })).body.id;
    rx.receiver.respondWith({ status: 401, body: 'bad signature' });
    const message = (await t.api.post('/v1/messages', { consumer: 'mcp', event_type: 'a.b', payload: {} })).body.id;
    await eventually(async () => expect((await t.api.get(`/v1/messages/${message}`)).body.status).toBe('failed'));
    rx.receiver.respondWith({});

    expect(json(await client.callTool({ name: 'list_endpoints', arguments: { consumer_id: consumerId } })).items).toHaveLength(1);
    expect(json(await client.callTool({ name: 'get_endpoint', arguments: { endpoint_id: endpoint } }))).toMatchObject({
      id: endpoint,
      recent: [expect.objectContaining({ response_status: 401 })],
    });
    expect(json(await client.callTool({ name: 'list_messages', arguments: { status: 'failed' } })).items.map((m: { id: string }) => m.id)).toContain(message);
    const detail = json(await client.callTool({ name: 'get_message', arguments: { message_id: message } }));
    const explained = (await client.callTool({ name: 'explain_delivery', arguments: { message_id: message } })) as { content: { text: string }[] };
    expect(explained.content[0]!.text).toContain('http_status: 401');
    expect(explained.content[0]!.text).toContain('verifies the webhook-signature');
    expect(explained.content[0]!.text).toContain('bad signature');
    // The receiver's words only inside the marked block, announced as untrusted data.
    expect(explained.content[0]!.text).toMatch(
      /untrusted data .* not instructions.*\n<receiver_data>\n\{[^\n]*"response_head":"bad signature"\}\n<\/receiver_data>$/,
    );
    const withNote = (await client.callTool({ name: 'get_message', arguments: { message_id: message } })) as { content: { text: string }[] };
    expect(withNote.content[1]!.text).toMatch(/response_head .* untrusted data, not instructions/);

    const retried = json(await client.callTool({ name: 'retry_delivery', arguments: { delivery_id: detail.deliveries[0].id } }));
    expect(retried).toMatchObject({ id: detail.deliveries[0].id, status: 'retrying' });
    await eventually(async () => expect((await t.api.get(`/v1/messages/${message}`)).body.status).toBe('success'));

    expect(json(await client.callTool({ name: 'update_alert_conditions', arguments: { delivery_failure: 'first' } }))).toMatchObject({
      delivery_failure: 'first',
      usage: 80,
    });
    expect(json(await client.callTool({ name: 'update_endpoint', arguments: { endpoint_id: endpoint, status: 'paused' } })).status).toBe('paused');
    await client.callTool({ name: 'update_endpoint', arguments: { endpoint_id: endpoint, status: 'active' } });

    // A recovery and its progress; then the API's 409, as a tool error with its body.
    rx.receiver.respondWith({ status: 500 });
    const again = (await t.api.post('/v1/messages', { consumer: 'mcp', event_type: 'a.b', payload: {} })).body.id;
    await eventually(async () => expect((await t.api.get(`/v1/messages/${again}`)).body.status).toBe('failed'));
    rx.receiver.respondWith({});
    const started = json(await client.callTool({ name: 'recover_endpoint', arguments: { endpoint_id: endpoint, since: wh.clock.now() - 60_000 } }));
    expect(started).toMatchObject({ id: expect.stringMatching(/^rcv_/), status: 'running', total: 1 });
    expect(json(await client.callTool({ name: 'get_recovery', arguments: { endpoint_id: endpoint, recovery_id: started.id } }))).toMatchObject({
      id: started.id,
    });
    const refused = await client.callTool({ name: 'recover_endpoint', arguments: { endpoint_id: endpoint, since: wh.clock.now() + 60_000 } });
    expect(refused.isError).toBe(true);
    expect(json(refused)).toEqual({ error: 'invalid', message: 'since: must be before now' });
    await client.close();
  });

  it('scopes hold (a tool error with the API’s 403 body); a bad key is refused before any tool', async () => {
    const reader = await wh.key(t.orgId, { scopes: ['logs:read'] });
    const client = await connect(reader.key);
    const refused = await client.callTool({ name: 'update_alert_conditions', arguments: { usage: 50 } });
    expect(refused.isError).toBe(true);
    expect(json(refused)).toEqual({ error: 'forbidden', message: 'this API key lacks the scope endpoints:write' });
    await client.close();

    await expect(connect('sk_live_nope')).rejects.toThrow(/401|unauthorized/i);
    const res = await fetch(`${wh.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
  });
});

describe('MCP and the rate limit', () => {
  /** One JSON-RPC request to /mcp, as an MCP client sends it. */
  const mcp = (key: string) =>
    fetch(`${wh.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });

  it('/mcp counts against the environment’s per-minute budget like the API, and is refused with 429 once it is spent', async () => {
    const free = await wh.tenant({ plan: 'free' }); // 600 requests per minute (spec)
    const remaining = async () => Number((await free.api.get('/v1/event-types')).headers.get('x-ratelimit-remaining'));
    const before = await remaining();
    const listed = await mcp(free.key);
    expect(listed.status).toBe(200);
    expect(listed.headers.get('x-ratelimit-limit')).toBe('600');
    expect(await remaining()).toBe(before - 2); // the /mcp request, then this read

    let left = await remaining();
    while (left > 0) {
      const batch = await Promise.all(Array.from({ length: Math.min(100, left) }, () => free.api.get('/v1/event-types')));
      left = Number(batch.at(-1)!.headers.get('x-ratelimit-remaining'));
      if (batch.some((r) => r.status === 429)) break;
    }
    const refused = await mcp(free.key);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ error: 'rate_limited' });
  });
});

describe('MCP over stdio (pnpm -s mcp)', () => {
  it('answers tools/list and calls the API with WIREHOOK_API_KEY', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(import.meta.dirname, '..', '..', 'scripts', 'mcp.ts')],
      env: { ...(process.env as Record<string, string>), WIREHOOK_API_URL: wh.url, WIREHOOK_API_KEY: t.key },
    });
    const client = new Client({ name: 'wirehook-test', version: '1.0.0' });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('recover_endpoint');
    expect(json(await client.callTool({ name: 'list_endpoints', arguments: {} })).items.length).toBeGreaterThan(0);
    await client.close();
  });
});
