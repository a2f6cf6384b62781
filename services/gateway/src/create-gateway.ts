import { apiDocsRouter, baseApp, errorHandler, notFound, publicApi } from '@wirehook/http-api';
import type { Express } from 'express';
import type { GatewayDeps } from './deps.ts';
import { mcpRouter } from './mcp-route.ts';

const DOCS_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The gateway's HTTP app: the public API (packages/http-api) under /v1, its OpenAPI document
 * and reference page (no key needed), and MCP at /mcp.
 */
export function createGateway(deps: GatewayDeps): Express {
  const app = baseApp(deps);
  // Before /v1's authentication: the document and its reference page need no key.
  // It serves GET and HEAD (and answers OPTIONS): any other request, each POST /v1/messages
  // above all, passes it by without entering it (entering a router allocates: issue 46).
  const docs = apiDocsRouter({ publicUrl: deps.apiPublicUrl });
  app.use((req, res, next) => (DOCS_METHODS.has(req.method) ? docs(req, res, next) : next()));
  app.use('/v1', publicApi(deps));
  app.use('/mcp', mcpRouter(deps));
  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
}
