import type { Request, Response, Router } from 'express';
import express from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { MAX_BODY_BYTES } from '@wirehook/core';
import { apiOverHttp, createWirehookMcpServer, type WirehookApi } from '@wirehook/mcp';
import type { GatewayDeps } from './deps.ts';
import { authenticate, rateLimit } from '@wirehook/http-api';

/**
 * POST /mcp: the MCP tools over Streamable HTTP (stateless: a server and transport per
 * request), authenticated by the same API keys. Each tool calls this very API on the address
 * the caller reached, with the caller's key, so scopes, validation and errors are the API's.
 * The request itself counts against the environment's per-minute budget, as an API request
 * does (429 once spent), and so does each API call a tool makes.
 */
export function mcpRouter(deps: GatewayDeps): Router {
  const router = express.Router();
  router.post('/', authenticate(deps), rateLimit(deps), express.json({ limit: MAX_BODY_BYTES }), async (req: Request, res: Response) => {
    const server = createWirehookMcpServer(loopbackApi(req));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  // Stateless: no session to stream to or end.
  router.all('/', (_req, res) => {
    res.status(405).set('allow', 'POST').json({ error: 'method_not_allowed', message: 'MCP over Streamable HTTP: POST only (stateless)' });
  });
  return router;
}

/** The API as the caller reached it: the same local address and port, the caller's key. */
export function loopbackApi(req: Pick<Request, 'socket' | 'get'>): WirehookApi {
  const address = req.socket.localAddress ?? '127.0.0.1';
  const host = address.includes(':') ? `[${address.replace(/^::ffff:/, '')}]` : address;
  const base = `http://${address.startsWith('::ffff:') ? address.slice(7) : host}:${req.socket.localPort}`;
  return apiOverHttp(base, req.get('authorization') ?? '');
}
