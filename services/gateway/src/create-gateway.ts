import { API_DOCS_PATHS, apiDocsRouter, baseApp, enteredFor, errorHandler, notFound, publicApi, sendAhead } from '@wirehook/http-api';
import type { ErrorRequestHandler, Express } from 'express';
import type { GatewayDeps } from './deps.ts';
import { mcpRouter } from './mcp-route.ts';

/**
 * The gateway's HTTP app: the public API (packages/http-api) under /v1, its OpenAPI document
 * and reference page (no key needed), and MCP at /mcp; POST /v1/messages, nearly every call,
 * served ahead of the router by the same handlers (sendAhead).
 */
export function createGateway(deps: GatewayDeps): Express {
  const { app, onError } = routedGateway(deps);
  sendAhead(app, deps, onError);
  return app;
}

/** The gateway's app with every request through Express's router: what sendAhead must answer alike (its test compares). */
export function routedGateway(deps: GatewayDeps): { app: Express; onError: ErrorRequestHandler } {
  const app = baseApp(deps);
  // Before /v1's authentication: the document and its reference page need no key.
  // Entered by GET, HEAD and OPTIONS of its own paths only: every API request passes it by.
  app.use(enteredFor(API_DOCS_PATHS, apiDocsRouter({ publicUrl: deps.apiPublicUrl }), ['GET', 'HEAD', 'OPTIONS']));
  app.use('/v1', publicApi(deps));
  app.use('/mcp', mcpRouter(deps));
  app.use(notFound);
  const onError = errorHandler(deps.logger);
  app.use(onError);
  return { app, onError };
}
