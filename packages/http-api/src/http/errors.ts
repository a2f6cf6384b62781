import type { NextFunction, Request, Response } from 'express';
import { MAX_BODY_BYTES, NotFoundError, RateLimitedError, thousands, toErrorResponse, TooLargeError, InvalidError } from '@wirehook/core';
import type { Logger } from '@wirehook/platform';

/** Answers 404 JSON for any route the API does not have. */
export function notFound(req: Request, _res: Response, next: NextFunction): void {
  next(new NotFoundError(`no route ${req.method} ${req.originalUrl.split('?')[0]}`));
}

/** body-parser's errors, as the spec's error set. */
function fromBodyParser(err: unknown): unknown {
  const type = (err as { type?: string } | null)?.type;
  if (type === 'entity.too.large') {
    return new TooLargeError(`request body is larger than ${thousands(MAX_BODY_BYTES)} bytes (1.1 MB)`);
  }
  if (type === 'entity.parse.failed') return new InvalidError('request body is not valid JSON');
  // The client cut its body short (it is gone): no fault of ours, and no one to tell.
  if (type === 'request.aborted') return new InvalidError('request body was cut short');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new InvalidError('request body must be UTF-8 JSON');
  }
  // The router could not percent-decode a path parameter (`%ED%A0%80`, a lone surrogate):
  // no id can look like that, so it is an unknown one.
  if (err instanceof URIError) return new NotFoundError('not found: the path has a malformed percent-encoding');
  return err;
}

/** The one place errors become responses: `{ error, message }`, opaque 500 for the unknown. */
export function errorHandler(logger: Logger) {
  return (raw: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const err = fromBodyParser(raw);
    if (res.headersSent) {
      // Too late for an answer of ours (a handler failed after sending its own): its status, logs
      // and metrics stay the ones sent; a response cut short ends its connection.
      logger.error({ err, method: req.method, path: req.path }, 'request failed after its response was sent');
      if (!res.writableEnded) res.destroy();
      return;
    }
    const { status, body } = toErrorResponse(err);
    // A 503 of our own saying "try again" (the sandbox busy, a tenant's simulation running) is one
    // warn line without a stack, so a client repeating a refused call cannot fill the error log
    // (one key's refused simulations wrote 2.5 MB of stacks a minute). One that wraps a fault (the
    // store failing over, a service unreachable: its `cause`) is an error with it, as every fault.
    const refusal = status === 503 && (err as Error).cause === undefined;
    if (refusal) logger.warn({ method: req.method, path: req.path, error: (err as Error).message }, 'request refused: unavailable');
    else if (status >= 500) logger.error({ err, method: req.method, path: req.path }, 'request failed');
    // The client is gone (its body cut short, its connection reset): logged as any answer is, but
    // no one to answer, and no status to record as sent.
    if (req.socket?.destroyed) return;
    if (err instanceof RateLimitedError) res.set('retry-after', String(err.retryAfterSeconds));
    // A body left unread (413 before parsing) must not be kept alive for the next request.
    if (status === 413) res.set('connection', 'close');
    res.status(status).json(body);
  };
}
