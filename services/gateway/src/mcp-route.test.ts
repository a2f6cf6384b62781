// The MCP tools' calls to the API as the caller reached it (loopbackApi): the same address and
// port, the caller's key, the API's answer as it came. On a port fetch refuses too (the Fetch
// standard's "bad ports": a gateway whose PORT is 10080 had every tool call fail).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopbackApi } from './mcp-route.ts';

/** Bad ports a user may bind without privileges; the first free one is used. */
const BAD_PORTS = [10_080, 6_566, 6_665, 6_666, 6_667, 6_668, 6_669, 6_679, 6_697];

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
const seen: Seen[] = [];
let server: Server;
let port = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.url === '/v1/none') return res.writeHead(204).end();
      if (req.url === '/v1/moved') return res.writeHead(307, { location: '/v1/here' }).end();
      if (req.url === '/v1/text') return res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
      res.writeHead(req.method === 'POST' ? 202 : 200, { 'content-type': 'application/json' }).end(JSON.stringify({ echoed: body || null }));
    });
  });
  for (const candidate of BAD_PORTS) {
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(candidate, '127.0.0.1', () => resolve(true));
    });
    if (bound) {
      port = candidate;
      break;
    }
  }
  if (port === 0) throw new Error(`none of the bad ports ${BAD_PORTS.join(', ')} is free on 127.0.0.1`);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const api = () => loopbackApi({ socket: { localAddress: '127.0.0.1', localPort: port }, get: () => 'Bearer sk_test_abc' } as never);

describe('MCP tools: calls to the API the caller reached', () => {
  it('a port fetch refuses is the premise: fetch fails on it, the tools do not', async () => {
    await expect(fetch(`http://127.0.0.1:${port}/v1/x`)).rejects.toMatchObject({ cause: { message: 'bad port' } });
    expect(await (await api()).request('GET', '/v1/endpoints?limit=1')).toEqual({ status: 200, body: { echoed: null } });
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/v1/endpoints?limit=1', headers: { authorization: 'Bearer sk_test_abc' } });
    expect(seen.at(-1)?.headers['content-type']).toBeUndefined();
  });

  it('a body goes as JSON; the answer comes back with its status', async () => {
    expect(await (await api()).request('POST', '/v1/messages', { consumer: 'c' })).toEqual({ status: 202, body: { echoed: '{"consumer":"c"}' } });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', headers: { authorization: 'Bearer sk_test_abc', 'content-type': 'application/json' } });
  });

  it('a redirect is followed, as fetch followed it: the answer is the one it leads to', async () => {
    expect(await (await api()).request('POST', '/v1/moved', { a: 1 })).toEqual({ status: 202, body: { echoed: '{"a":1}' } });
    expect(seen.slice(-2).map((r) => `${r.method} ${r.url}`)).toEqual(['POST /v1/moved', 'POST /v1/here']);
    expect(seen.at(-1)?.headers.authorization).toBe('Bearer sk_test_abc'); // the same origin: the key goes along
  });

  it('a 204 is a null body; an answer that is not JSON is a null body with its status', async () => {
    expect(await (await api()).request('PATCH', '/v1/none', {})).toEqual({ status: 204, body: null });
    expect(await (await api()).request('GET', '/v1/text')).toEqual({ status: 502, body: null });
  });
});
