import express, { type Express, type Router } from 'express';
import { alertsRouter } from './api/alerts.ts';
import { consumersRouter } from './api/consumers.ts';
import { egressIpsRouter } from './api/egress-ips.ts';
import { endpointsRouter } from './api/endpoints.ts';
import { eventTypesRouter } from './api/event-types.ts';
import { messagesRouter } from './api/messages.ts';
import type { ApiDeps, PublicApiDeps } from './deps.ts';
import { authenticate } from './http/auth.ts';
import { enteredFor } from './http/entered-for.ts';
import { notFound } from './http/errors.ts';
import { rateLimit } from './http/rate-limit.ts';
import { requestId } from './http/request-id.ts';
import { requestLog } from './http/request-log.ts';
import { traceRequests, type TraceOptions } from './http/trace-requests.ts';

/** The paths of messagesRouter's routes, under /v1. */
export const MESSAGE_PATHS = /^\/(messages|deliveries)(\/|$)/i;

/**
 * The public API's /v1 routes, behind an API key. Checks run in a fixed order — key (401),
 * rate limit (429), scope (403), body size (413), input (422) — so the body is read only for
 * a caller allowed to send it: neither an anonymous nor a throttled caller can make the
 * gateway parse 1.1 MB.
 */
export function publicApi(deps: PublicApiDeps): Router {
  const v1 = express.Router();
  v1.use(authenticate(deps), rateLimit(deps));
  // First: POST /v1/messages is nearly every call (no path here is in two routers, so the order
  // decides nothing else). Entered only for its own paths: a request for another passes it by.
  v1.use(enteredFor(MESSAGE_PATHS, messagesRouter(deps)));
  v1.use('/consumers', consumersRouter(deps));
  v1.use('/endpoints', endpointsRouter(deps));
  v1.use('/event-types', eventTypesRouter(deps));
  v1.use('/egress-ips', egressIpsRouter(deps));
  v1.use(alertsRouter(deps));
  v1.use(notFound);
  return v1;
}

/**
 * What every HTTP app of ours starts with (the API, the portal): no framework banner or
 * etags, flat query strings, each request in its own span, an `x-request-id` on every
 * response, each request logged with its metrics, and /healthz.
 */
export function baseApp(deps: Pick<ApiDeps, 'logger' | 'metrics'>, trace: Pick<TraceOptions, 'tracedPath'> = {}): Express {
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
