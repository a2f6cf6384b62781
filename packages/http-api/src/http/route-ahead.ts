import type { ErrorRequestHandler, Express, NextFunction, Request, RequestHandler, Response } from 'express';

/** One route served ahead of the app's router: its method and exact path, and where the router would have mounted it. */
export interface RouteAhead {
  method: string;
  /** The path as sent, its query string aside; any other spelling (case, a trailing slash) takes the router's way. */
  path: string;
  /** `req.baseUrl` and `req.route.path` as the router sets them (a recorded span is named by them). */
  baseUrl: string;
  routePath: string;
  /** Every handler the router runs for it, in its order: the app's, the mounts', the route's, then what answers a fall-through. */
  handlers: readonly RequestHandler[];
  /** The app's error handler. */
  onError: ErrorRequestHandler;
}

/** The app's router as Express calls it, with the request made Express's own and the final handler. */
type RouterHandle = (req: Request, res: Response, done: (err?: unknown) => void) => void;

/**
 * Serves `route` ahead of Express's router. POST /v1/messages is nearly every call, and on its
 * way the router enters three routers (the app, /v1, the messages' own), each allocating its
 * state and a closure a layer: 11 KB of the 74 KB the API thread allocated a delivery (issue 46,
 * docs/benchmarks.md). Here, once Express has made the request its own (`app.handle`: its
 * prototypes, `locals`, the final handler), the same handlers run in the same order as the
 * router runs them — a throw or a rejected promise is the next step's error, an error goes to
 * the app's error handler and what that passes on to Express's final handler. Every other
 * request, and every other spelling of the path (which the router treats alike), goes through
 * the router as before: an OPTIONS or a GET of the path gets the router's answer, not ours.
 */
export function routeAhead(app: Express, route: RouteAhead): void {
  const router = app.router as unknown as { handle: RouterHandle };
  const routed = router.handle.bind(router);
  const { method, path, handlers, onError } = route;
  const routeRecord = Object.freeze({ path: route.routePath });
  router.handle = (req, res, done) => {
    if (req.method !== method || !isExactly(req.url, path)) {
      routed(req, res, done);
      return;
    }
    // What the router sets on its way (a recorded span is named by `baseUrl` and `route.path`).
    req.originalUrl ||= req.url;
    req.baseUrl = route.baseUrl;
    req.params = {};
    req.route = routeRecord;
    run(req, res, handlers, onError, done);
  };
}

/** `url` is `path`, with or without a query string. */
function isExactly(url: string | undefined, path: string): boolean {
  if (!url?.startsWith(path)) return false;
  return url.length === path.length || url.charCodeAt(path.length) === 63; // '?'
}

/** Runs `handlers` in order as Express's layers do; an error skips to `onError`, whose own goes to `finish`. */
function run(req: Request, res: Response, handlers: readonly RequestHandler[], onError: ErrorRequestHandler, finish: (err?: unknown) => void): void {
  let at = 0;
  let failed = false;
  const next: NextFunction = (err?: unknown) => {
    // Our handlers never pass 'route' or 'router': any value is an error, as a thrown one.
    const erred = err !== undefined && err !== null;
    const handler = erred ? undefined : handlers[at++];
    if (failed || (!erred && handler === undefined)) {
      finish(err);
      return;
    }
    // Express's Layer.handleRequest: a throw, or a promise rejected, is the error of the next step.
    let ret: unknown;
    try {
      if (handler === undefined) {
        failed = true;
        ret = onError(err, req, res, next);
      } else {
        ret = handler(req, res, next);
      }
    } catch (error) {
      next(error);
      return;
    }
    if (ret instanceof Promise) ret.then(undefined, (error: unknown) => next(error ?? new Error('Rejected promise')));
  };
  next();
}
