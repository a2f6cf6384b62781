import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { describe, expect, it } from 'vitest';
import { messagesRouter } from '../api/messages.ts';
import { API_DOCS_PATHS, apiDocsRouter } from '../openapi/routes.ts';
import { MESSAGE_PATHS } from '../app.ts';
import { enteredFor } from './entered-for.ts';

/** The paths of a router's routes, each parameter filled in. */
function routePaths(router: Router): string[] {
  const stack = (router as unknown as { stack: { route?: { path: string | string[] } }[] }).stack;
  return stack.flatMap((layer) => (layer.route ? [layer.route.path].flat() : [])).map((path) => path.replace(/:[A-Za-z]+/g, 'x_1'));
}

describe('enteredFor', () => {
  const entered = (paths: RegExp, methods: string[] | undefined, method: string, path: string) => {
    let into = false;
    let passed = false;
    const router: RequestHandler = () => {
      into = true;
    };
    enteredFor(paths, router, methods)({ method, path } as Request, {} as Response, (() => (passed = true)) as NextFunction);
    return into ? 'entered' : passed ? 'passed by' : 'neither';
  };

  it('enters the router for its paths (any case, a trailing slash) and methods, and passes it by otherwise', () => {
    expect(entered(MESSAGE_PATHS, undefined, 'POST', '/messages')).toBe('entered');
    expect(entered(MESSAGE_PATHS, undefined, 'GET', '/Messages/')).toBe('entered');
    expect(entered(MESSAGE_PATHS, undefined, 'POST', '/deliveries/dlv_1/retry')).toBe('entered');
    expect(entered(MESSAGE_PATHS, undefined, 'GET', '/event-types')).toBe('passed by');
    expect(entered(MESSAGE_PATHS, undefined, 'GET', '/messagesx')).toBe('passed by');
    expect(entered(API_DOCS_PATHS, ['GET', 'HEAD', 'OPTIONS'], 'GET', '/docs/')).toBe('entered');
    expect(entered(API_DOCS_PATHS, ['GET', 'HEAD', 'OPTIONS'], 'OPTIONS', '/v1/openapi.json')).toBe('entered');
    expect(entered(API_DOCS_PATHS, ['GET', 'HEAD', 'OPTIONS'], 'POST', '/docs')).toBe('passed by');
    expect(entered(API_DOCS_PATHS, ['GET', 'HEAD', 'OPTIONS'], 'GET', '/v1/event-types')).toBe('passed by');
  });

  // A route outside the paths its router is entered for would never be reached.
  it('covers every route of the routers it guards', () => {
    const messages = routePaths(messagesRouter({ store: {}, clock: {} } as never));
    const docs = routePaths(apiDocsRouter());
    expect(messages.length).toBeGreaterThanOrEqual(6);
    expect(docs).toEqual(['/v1/openapi.json', '/docs', '/docs/', '/docs/redoc.standalone.js']);
    expect(messages.filter((path) => !MESSAGE_PATHS.test(path))).toEqual([]);
    expect(docs.filter((path) => !API_DOCS_PATHS.test(path))).toEqual([]);
  });
});
