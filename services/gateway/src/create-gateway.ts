import express, { type Express } from 'express';
import type { GatewayDeps } from './deps.ts';
import { alertsRouter } from './api/alerts.ts';
import { consumersRouter } from './api/consumers.ts';
import { egressIpsRouter } from './api/egress-ips.ts';
import { endpointsRouter } from './api/endpoints.ts';
import { eventTypesRouter } from './api/event-types.ts';
import { messagesRouter } from './api/messages.ts';
import { mcpRouter } from './mcp-route.ts';
import { apiDocsRouter } from './openapi/routes.ts';
import { authenticate } from './http/auth.ts';
import { errorHandler, notFound } from './http/errors.ts';
import { rateLimit } from './http/rate-limit.ts';
import { requestId } from './http/request-id.ts';
import { requestLog } from './http/request-log.ts';
import { traceRequests, type TraceOptions } from './http/trace-requests.ts';

/**
 * The public HTTP API. Checks run in a fixed order — key (401), rate limit (429), scope
 * (403), body size (413), input (422) — so the body is read only for a caller allowed to
 * send it: neither an anonymous nor a throttled caller can make the gateway parse 1.1 MB.
 */
export function createGateway(deps: GatewayDeps): Express {
  const app = baseApp(deps);

  // Before /v1's authentication: the document and its reference page need no key.
  app.use(apiDocsRouter());

  const v1 = express.Router();
  v1.use(authenticate(deps), rateLimit(deps));
  v1.use('/consumers', consumersRouter(deps));
  v1.use('/endpoints', endpointsRouter(deps));
  v1.use('/event-types', eventTypesRouter(deps));
  v1.use('/egress-ips', egressIpsRouter(deps));
  v1.use(messagesRouter(deps));
  v1.use(alertsRouter(deps));
  v1.use(notFound);
  app.use('/v1', v1);
  app.use('/mcp', mcpRouter(deps));

  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
}

/**
 * What every HTTP app of ours starts with (the API, the portal): no framework banner or
 * etags, flat query strings, each request in its own span, an `x-request-id` on every
 * response, each request logged with its metrics, and /healthz.
 */
export function baseApp(deps: Pick<GatewayDeps, 'logger' | 'metrics'>, trace: Pick<TraceOptions, 'tracedPath'> = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  // First: everything after it, the request log line included, runs inside the request's span.
  app.use(traceRequests({ ignorePaths: ['/healthz'], ...trace }));
  // Second: its id is the trace's, and every answer after it — a 401 included — carries it.
  app.use(requestId());
  app.use(requestLog(deps.logger, deps.metrics));
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  return app;
}
