import type { RequestHandler } from 'express';

/**
 * `router`, entered only by requests whose path (relative to where it is mounted) `paths`
 * matches, and whose method is one of `methods` when given; every other request passes it by.
 * A router mounted without a path is entered by every request, and one that answers nothing
 * leaves through `setImmediate` (router@2): a turn of the event loop of its own, which under
 * load is the wait of a whole turn's I/O, besides the allocations (issue 46). Its routes must
 * all lie within `paths`: one outside is never reached. Case-insensitive, as Express's routes.
 */
export function enteredFor(paths: RegExp, router: RequestHandler, methods?: readonly string[]): RequestHandler {
  const allowed = methods === undefined ? undefined : new Set(methods);
  return (req, res, next) => ((allowed === undefined || allowed.has(req.method)) && paths.test(req.path) ? router(req, res, next) : next());
}
