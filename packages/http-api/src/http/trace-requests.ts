import type { NextFunction, Request, Response } from 'express';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import { spansRecorded } from '@wirehook/core';
import { unrecordedSpan } from '@wirehook/platform';
import { requestRoute, UNMATCHED } from './route-label.ts';

const TRACER = '@wirehook/gateway';

/**
 * Nothing records spans: only the ids, so log lines and the calls this request makes still carry
 * its trace. The chain runs in them; the request and response are not bound (binding an emitter
 * wraps each of its listener methods: 5.8 KB a request for the two, issue 46). What continues the
 * request from another context brings the ids back itself: the JSON body parser (raw-body binds
 * its callback to the caller's context) and the request log's 'finish' listener.
 */
function withTraceIds(req: Request, _res: Response, next: NextFunction): void {
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  context.with(trace.setSpan(parent, unrecordedSpan(parent)), next);
}

export interface TraceOptions {
  ignorePaths?: readonly string[];
  tracedPath?: (path: string) => string;
}
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE']);

/**
 * One SERVER span per request (HTTP semantic conventions), continuing the caller's trace when
 * it sends a W3C `traceparent`. Everything after this middleware — the handlers, the gRPC
 * call to message-intake, the request log line — runs inside the span. Named
 * `METHOD /route/template` once the route is known; the query string is never recorded.
 * Requests to `ignorePaths` (health probes) are not traced; `tracedPath` rewrites a path
 * before it is recorded, for an app whose paths hold credentials.
 */
export function traceRequests(options: TraceOptions = {}) {
  const ignored = new Set(options.ignorePaths);
  const tracedPath = options.tracedPath ?? ((path: string) => path);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (ignored.has(req.path)) return next();
    if (!spansRecorded()) return withTraceIds(req, res, next);
    const method = KNOWN_METHODS.has(req.method) ? req.method : '_OTHER';
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = trace.getTracer(TRACER).startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: method,
          [ATTR_URL_PATH]: tracedPath(req.path),
          [ATTR_URL_SCHEME]: req.protocol,
          [ATTR_NETWORK_PROTOCOL_VERSION]: req.httpVersion,
          ...(req.socket.remoteAddress ? { [ATTR_CLIENT_ADDRESS]: req.socket.remoteAddress } : {}),
          ...(req.get('user-agent') ? { [ATTR_USER_AGENT_ORIGINAL]: req.get('user-agent') } : {}),
        },
      },
      parent,
    );
    const active = trace.setSpan(parent, span);
    // Listeners on the request and response run inside the span too, whichever async context
    // emits their events (a callback-style body parser, the request log's 'finish').
    context.bind(active, req);
    context.bind(active, res);
    res.once('close', () => {
      // The route template, not the path (the span name must not hold ids): the metrics' label,
      // read from the path. Express's routing state was reset by the time an error was answered
      // (a 422 of POST /v1/endpoints was named POST /), and how far depended on a turn's timing.
      const route = requestRoute(req);
      if (route !== UNMATCHED) {
        span.setAttribute(ATTR_HTTP_ROUTE, route);
        span.updateName(`${method} ${route}`);
      }
      // Only a status that was sent: a connection closed before any answer has none (a status set
      // later, by an error handler that found the client gone, is no response).
      if (res.headersSent) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, res.statusCode);
      if (!res.writableFinished) {
        span.setAttribute(ATTR_ERROR_TYPE, 'aborted');
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'the connection closed before the response was sent' });
      } else if (res.statusCode >= 500) {
        span.setAttribute(ATTR_ERROR_TYPE, String(res.statusCode));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    });
    context.with(active, next);
  };
}
