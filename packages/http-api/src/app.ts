import express, { type ErrorRequestHandler, type Express, type RequestHandler, type Router } from 'express';
import { alertsRouter } from './api/alerts.ts';
import { consumersRouter } from './api/consumers.ts';
import { egressIpsRouter } from './api/egress-ips.ts';
import { endpointsRouter } from './api/endpoints.ts';
import { eventTypesRouter } from './api/event-types.ts';
import { messagesRouter, sendMessageRoute } from './api/messages.ts';
import type { ApiDeps, PublicApiDeps } from './deps.ts';
import { authenticate } from './http/auth.ts';
import { enteredFor } from './http/entered-for.ts';
import { notFound } from './http/errors.ts';
import { rateLimit } from './http/rate-limit.ts';
import { requestId } from './http/request-id.ts';
import { requestLog } from './http/request-log.ts';
import { routeAhead } from './http/route-ahead.ts';
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
  v1.use(apiGuards(deps));
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

/** What /v1 checks before any route: the key, then the rate limit. */
function apiGuards(deps: PublicApiDeps): RequestHandler[] {
  return [authenticate(deps), rateLimit(deps)];
}

/**
 * POST /v1/messages served ahead of Express's router (routeAhead says why), by the very handlers
 * `baseApp`, `publicApi` and its messages router run for it, in their order; `onError`: the app's
 * error handler. Call it on an app made by `baseApp(deps)` (no traced-path option: the API's paths
 * hold no credential) that mounts `publicApi` at /v1 and nothing before it that a POST there passes
 * through (the gateway's test holds its answers to the router's).
 */
export function sendAhead(app: Express, deps: PublicApiDeps, onError: ErrorRequestHandler): void {
  routeAhead(app, {
    method: 'POST',
    path: '/v1/messages',
    mountPath: '/v1',
    routePath: '/messages',
    before: [...baseMiddleware(deps), ...apiGuards(deps)],
    route: sendMessageRoute(deps),
    otherwise: notFound,
    onError,
  });
}

/** What every request to an app of ours passes first (baseApp says what each does). */
function baseMiddleware(deps: Pick<ApiDeps, 'logger' | 'metrics'>, trace: Pick<TraceOptions, 'tracedPath'> = {}): RequestHandler[] {
  return [
    // First: everything after it, the request log line included, runs inside the request's span.
    traceRequests({ ignorePaths: ['/healthz'], ...trace }),
    // Second: its id is the trace's, and every answer after it — a 401 included — carries it.
    requestId(),
    requestLog(deps.logger, deps.metrics),
  ];
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
  app.use(baseMiddleware(deps, trace));
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  return app;
}
