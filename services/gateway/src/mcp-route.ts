import type { Request, Response, Router } from 'express';
import express from 'express';
import { MAX_BODY_BYTES } from '@wirehook/core';
import type { WirehookApi } from '@wirehook/mcp';
import type { GatewayDeps } from './deps.ts';
import { authenticate, rateLimit } from '@wirehook/http-api';

/**
 * The MCP SDK and the tools, imported with the first POST /mcp rather than at start (≈ 250 ms of
 * CPU imported alone: ajv, zod-to-json-schema, the SDK; a few per cent of the gateway's start once
 * what they share with the rest is counted, docs/benchmarks.md), paid by every gateway and
 * embedded-mode start for a route a deployment may never see. The first MCP request waits for
 * them once. A failed import is not kept (a module not found is resolved again by the next
 * request; one that threw while loading stays failed in Node's own cache).
 */
let mcpModules: Promise<[typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'), typeof import('@wirehook/mcp')]> | undefined;
function loadMcp(): NonNullable<typeof mcpModules> {
  mcpModules ??= Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('@wirehook/mcp')]).catch((err: unknown) => {
    mcpModules = undefined;
    throw err;
  });
  return mcpModules;
}

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
    const [{ StreamableHTTPServerTransport }, { createWirehookMcpServer }] = await loadMcp();
    // A caller gone while the first request waited for the import: its 'close' has passed, so no
    // server or transport is made that nothing would close.
    if (res.closed) return;
    const server = createWirehookMcpServer(await loopbackApi(req));
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
export async function loopbackApi(req: Pick<Request, 'socket' | 'get'>): Promise<WirehookApi> {
  const [, { apiOverHttp }] = await loadMcp();
  const address = req.socket.localAddress ?? '127.0.0.1';
  const host = address.includes(':') ? `[${address.replace(/^::ffff:/, '')}]` : address;
  const base = `http://${address.startsWith('::ffff:') ? address.slice(7) : host}:${req.socket.localPort}`;
  return apiOverHttp(base, req.get('authorization') ?? '');
}
