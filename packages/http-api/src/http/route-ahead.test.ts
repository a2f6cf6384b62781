import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routeAhead } from './route-ahead.ts';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** An app whose router answers POST /x itself (`router`), with `handlers` ahead of it for POST /x; the router's calls counted. */
async function start(
  handlers: RequestHandler[],
  onError: ErrorRequestHandler = (err, _req, res, _next) => res.status(418).json({ error: String((err as Error).message) }),
) {
  const app: Express = express();
  app.post('/x', (_req, res) => void res.json({ by: 'router' }));
  const routed = vi.spyOn(app.router as unknown as { handle: () => void }, 'handle');
  routeAhead(app, { method: 'POST', path: '/x', baseUrl: '/v', routePath: '/x', handlers, onError });
  server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = async (method: string, path: string) => {
    const res = await fetch(url + path, { method, headers: { 'content-type': 'application/json' }, ...(method === 'POST' ? { body: '{}' } : {}) });
    return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
  };
  return { call, routed };
}

const answer: RequestHandler = (req, res) => {
  res.json({
    by: 'ahead',
    baseUrl: req.baseUrl,
    route: req.route?.path,
    originalUrl: req.originalUrl,
    locals: typeof res.locals,
    host: req.get('host') !== undefined,
  });
};

describe('routeAhead', () => {
  it('serves its method on exactly its path without the router, as Express made the request; everything else goes through the router', async () => {
    const { call, routed } = await start([answer]);
    const ahead = await call('POST', '/x?a=1');
    expect(JSON.parse(ahead.text)).toEqual({ by: 'ahead', baseUrl: '/v', route: '/x', originalUrl: '/x?a=1', locals: 'object', host: true });
    expect(JSON.parse((await call('POST', '/x')).text)).toMatchObject({ by: 'ahead' });
    expect(routed).not.toHaveBeenCalled();
    // Other spellings, which the router takes alike, and other methods: the router's answer.
    expect(JSON.parse((await call('POST', '/X')).text)).toEqual({ by: 'router' });
    expect(JSON.parse((await call('POST', '/x/')).text)).toEqual({ by: 'router' });
    expect((await call('POST', '/xy')).status).toBe(404);
    expect((await call('GET', '/x')).status).toBe(404);
    const options = await call('OPTIONS', '/x');
    expect([options.status, options.text]).toEqual([200, 'POST']);
    expect(routed).toHaveBeenCalledTimes(5);
  });

  it('runs the handlers in order; a throw or a rejected promise skips the rest to the error handler', async () => {
    const seen: string[] = [];
    const step =
      (name: string): RequestHandler =>
      (_req, _res, next) => {
        seen.push(name);
        next();
      };
    const thrower: RequestHandler = () => {
      throw new Error('thrown');
    };
    const rejecter: RequestHandler = async () => {
      await Promise.resolve();
      throw new Error('rejected');
    };
    const ordered = await start([step('a'), step('b'), answer]);
    expect(JSON.parse((await ordered.call('POST', '/x')).text)).toMatchObject({ by: 'ahead' });
    expect(seen).toEqual(['a', 'b']);
    server?.close();
    seen.length = 0;
    const throwing = await start([step('a'), thrower, step('never'), answer]);
    expect(await throwing.call('POST', '/x')).toMatchObject({ status: 418, text: '{"error":"thrown"}' });
    expect(seen).toEqual(['a']);
    server?.close();
    const rejecting = await start([rejecter, step('never'), answer]);
    expect(await rejecting.call('POST', '/x')).toMatchObject({ status: 418, text: '{"error":"rejected"}' });
    expect(seen).toEqual(['a']);
  });

  it("hands an error the error handler passes on, or throws, and a fall-through, to Express's final handler", async () => {
    const failing = await start([() => Promise.reject(new Error('x'))], (err, _req, _res, next) => next(err));
    expect((await failing.call('POST', '/x')).status).toBe(500);
    server?.close();
    const broken = await start(
      [
        () => {
          throw new Error('x');
        },
      ],
      () => {
        throw new Error('the error handler failed');
      },
    );
    expect((await broken.call('POST', '/x')).status).toBe(500);
    server?.close();
    const through = await start([(_req, _res, next) => next()]);
    const fell = await through.call('POST', '/x');
    expect([fell.status, fell.text]).toEqual([404, expect.stringContaining('Cannot POST /x')]);
  });
});
