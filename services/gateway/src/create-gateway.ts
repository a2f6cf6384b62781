import { API_DOCS_PATHS, apiDocsRouter, baseApp, enteredFor, errorHandler, notFound, publicApi, sendAhead } from '@wirehook/http-api';
import type { Express } from 'express';
import type { GatewayDeps } from './deps.ts';
import { mcpRouter } from './mcp-route.ts';

/**
 * The gateway's HTTP app: the public API (packages/http-api) under /v1, its OpenAPI document
 * and reference page (no key needed), and MCP at /mcp.
 */
export function createGateway(deps: GatewayDeps): Express {
  const app = baseApp(deps);
  // Before /v1's authentication: the document and its reference page need no key.
  // Entered by GET, HEAD and OPTIONS of its own paths only: every API request passes it by.
  app.use(enteredFor(API_DOCS_PATHS, apiDocsRouter({ publicUrl: deps.apiPublicUrl }), ['GET', 'HEAD', 'OPTIONS']));
  app.use('/v1', publicApi(deps));
  app.use('/mcp', mcpRouter(deps));
  app.use(notFound);
  const onError = errorHandler(deps.logger);
  app.use(onError);
  // Nearly every call: its own handlers, without the router's passes (routeAhead).
  sendAhead(app, deps, onError);
  return app;
}
