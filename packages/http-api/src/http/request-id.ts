import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { isSpanContextValid, trace } from '@opentelemetry/api';

/** An incoming `x-request-id` that is echoed: short, and nothing a log or a header could be misled by. */
export const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Sets `x-request-id` on every response, before anything can answer: the caller's own when it
 * sent a safe one (SAFE_REQUEST_ID), else the request's trace id (what every log line of the
 * request carries as `trace_id`), else — a request outside any trace, /healthz — a random
 * UUID. The id is also kept in `res.locals.requestId` for the request log.
 */
export function requestId() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const incoming = req.get('x-request-id');
    const span = trace.getActiveSpan()?.spanContext();
    const id = incoming !== undefined && SAFE_REQUEST_ID.test(incoming) ? incoming : span && isSpanContextValid(span) ? span.traceId : randomUUID();
    res.locals['requestId'] = id;
    res.set('x-request-id', id);
    next();
  };
}
