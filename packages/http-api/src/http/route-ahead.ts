import { tracingChannel } from 'node:diagnostics_channel';
import type { ErrorRequestHandler, Express, NextFunction, Request, RequestHandler, Response } from 'express';

/** router@2's report of each handler it runs: an agent listening to it (an APM's) is given the router's way. */
const routerRequests = tracingChannel('express.router.request');

/** One route served ahead of the app's router: its method and exact path, and what the router runs for it. */
export interface RouteAhead {
  method: string;
  /** The path as sent, its query string aside; any other spelling (case, a trailing slash) takes the router's way. */
  path: string;
  /** Where the route's router is mounted (`req.baseUrl` inside it) and its path there (`req.route.path`), as the router sets them. */
  mountPath: string;
  routePath: string;
  /** The handlers the router runs before the route's own: the app's, then the mount's, in their order. */
  before: readonly RequestHandler[];
  /** The route's handlers. */
  route: readonly RequestHandler[];
  /** What the router comes to when the route passes the request on (the mount's 404). */
  otherwise: RequestHandler;
  /** The app's error handler. */
  onError: ErrorRequestHandler;
}

/** The app's router as Express calls it, with the request made Express's own and the final handler. */
type RouterHandle = (req: Request, res: Response, done: (err?: unknown) => void) => void;

/**
 * Serves `route` ahead of Express's router. POST /v1/messages is nearly every call, and on its
 * way the router enters three routers (the app, /v1, the messages' own), each allocating its
 * state and a closure a layer: 11 KB of the 71 KB the API thread allocated a delivery (issue 46,
 * docs/benchmarks.md). Here, once Express has made the request its own (`app.handle`: its
 * prototypes, `locals`, the final handler), the same handlers run in the same order, as the
 * router runs them (router@2's Layer): a throw or a rejected promise is the next step's error, a
 * falsy one none; an error goes to the app's error handler, and what that passes on to Express's
 * final handler; `next('route')` from the route or `next('router')` goes on to `otherwise`.
 * `req.baseUrl` and `req.route` are as the router leaves them for a handler to read: the route's
 * once it is reached, the mount's base dropped once an error leaves it. Every other request, and every other spelling of
 * the path (which the router treats alike), goes through the router as before: an OPTIONS or a
 * GET of the path gets the router's answer; and every request while something listens to the
 * router's diagnostics channel (`express.router.request`: APM agents), which only its layers report to.
 * One difference is left, unused: `next('router')` from a step of the app's own goes on to
 * `otherwise`, where the router would leave for Express's final handler (no such step passes it).
 */
export function routeAhead(app: Express, route: RouteAhead): void {
  const router = app.router as unknown as { handle: RouterHandle };
  const routed = router.handle.bind(router);
  const steps = [...route.before, ...route.route, route.otherwise];
  const record = Object.freeze({ path: route.routePath });
  router.handle = (req, res, done) => {
    if (req.method !== route.method || !isExactly(req.url, route.path) || routerRequests.hasSubscribers) {
      routed(req, res, done);
      return;
    }
    req.originalUrl ||= req.url;
    req.baseUrl = route.mountPath;
    req.params = {};
    run(req, res, steps, route, record, done);
  };
}

/** `url` is `path`, with or without a query string. */
function isExactly(url: string | undefined, path: string): boolean {
  if (!url?.startsWith(path)) return false;
  return url.length === path.length || url.charCodeAt(path.length) === 63; // '?'
}

/** Runs `steps` in order as the router's layers do; an error skips to `onError`, whose own goes to `finish`. */
function run(
  req: Request,
  res: Response,
  steps: readonly RequestHandler[],
  route: RouteAhead,
  record: Readonly<{ path: string }>,
  finish: (err?: unknown) => void,
): void {
  const routeAt = route.before.length;
  const otherwiseAt = steps.length - 1;
  let at = 0;
  let failed = false;
  const next: NextFunction = (err?: unknown) => {
    if (failed) {
      finish(err);
      return;
    }
    // The router's words: 'route' skips the rest of the route (before it, nothing), 'router' the
    // rest of the mount's router — on to what answers then.
    if (err === 'route' || err === 'router') {
      if (err === 'router' || at > routeAt) at = Math.max(at, otherwiseAt);
      err = undefined;
    }
    let ret: unknown;
    try {
      if (err) {
        failed = true;
        req.baseUrl = ''; // the mount's router puts its base back as the error leaves it
        ret = route.onError(err, req, res, next);
      } else {
        const handler = steps[at++];
        if (handler === undefined) {
          finish();
          return;
        }
        if (at - 1 === routeAt) req.route = record;
        ret = handler(req, res, next);
      }
    } catch (error) {
      next(error);
      return;
    }
    if (!isPromise(ret)) return;
    // As the router's Layer: inside its try, a thenable's own `then` may throw.
    try {
      ret.then(noop, (error: unknown) => next(error || new Error('Rejected promise')));
    } catch (error) {
      next(error);
    }
  };
  req.next = next;
  next();
}

const noop = (): void => {};

/** What the router takes for a promise (its `is-promise`): anything with a `then` method. */
function isPromise(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
