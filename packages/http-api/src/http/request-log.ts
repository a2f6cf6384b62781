import { context } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import type { HttpMetrics, Logger } from '@wirehook/platform';
import { methodLabel, requestRoute } from './route-label.ts';

/** Logs each request once it is answered, and feeds the HTTP metrics. Never logs bodies or keys. */
export function requestLog(logger: Logger, metrics: HttpMetrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    // Bound: 'finish' comes from the socket's context, and the log line carries the request's trace.
    res.on(
      'finish',
      context.bind(context.active(), () => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const route = requestRoute(req);
        const method = methodLabel(req.method);
        metrics.requests.inc({ method, route, status_class: `${Math.floor(res.statusCode / 100)}xx` });
        metrics.duration.observe({ method, route }, seconds);
        const requestId = res.locals['requestId'] as string | undefined;
        logger.debug({ method: req.method, route, status: res.statusCode, ms: Math.round(seconds * 1000), request_id: requestId }, 'request');
      }),
    );
    next();
  };
}
