import { tracingChannel } from 'node:diagnostics_channel';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routeAhead } from './route-ahead.ts';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

const teapot: ErrorRequestHandler = (err, req, res, _next) => {
  res.status(418).json({ error: err instanceof Error ? err.message : String(err), baseUrl: req.baseUrl, route: req.route?.path ?? null });
};
const notFound: RequestHandler = (_req, res) => void res.status(404).json({ by: 'otherwise' });

/** An app whose router answers POST /x itself, with `before` and `route` ahead of it for POST /x; the router's calls counted. */
async function start(before: RequestHandler[], route: RequestHandler[], onError: ErrorRequestHandler = teapot) {
  const app: Express = express();
  app.post('/x', (_req, res) => void res.json({ by: 'router' }));
  const routed = vi.spyOn(app.router as unknown as { handle: () => void }, 'handle');
  routeAhead(app, { method: 'POST', path: '/x', mountPath: '/v', routePath: '/x', before, route, otherwise: notFound, onError });
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  servers.push(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = async (method: string, path: string) => {
    const res = await fetch(url + path, { method, headers: { 'content-type': 'application/json' }, ...(method === 'POST' ? { body: '{}' } : {}) });
    return { status: res.status, text: await res.text() };
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
/** A step that notes it ran, and what the router would have left it then. */
const step =
  (seen: string[], name: string): RequestHandler =>
  (req, _res, next) => {
    seen.push(`${name}:${req.route?.path ?? '-'}`);
    next();
  };

describe('routeAhead', () => {
  it('serves its method on exactly its path without the router, as Express made the request; everything else goes through the router', async () => {
    const { call, routed } = await start([], [answer]);
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

  it("gives every request the router's way while something listens to the router's diagnostics channel (an APM agent)", async () => {
    const { call, routed } = await start([], [answer]);
    const channel = tracingChannel('express.router.request');
    const seen: unknown[] = [];
    const none = () => {};
    const listener = { start: (message: unknown) => void seen.push(message), end: none, asyncStart: none, asyncEnd: none, error: none };
    channel.subscribe(listener);
    try {
      expect(JSON.parse((await call('POST', '/x')).text)).toEqual({ by: 'router' });
      expect(routed).toHaveBeenCalledTimes(1);
      expect(seen.length).toBeGreaterThan(0);
    } finally {
      channel.unsubscribe(listener);
    }
    expect(JSON.parse((await call('POST', '/x')).text)).toMatchObject({ by: 'ahead' });
    expect(routed).toHaveBeenCalledTimes(1);
  });

  it('runs the handlers in order, the route named once it is reached; a throw or a rejected promise skips the rest to the error handler', async () => {
    const seen: string[] = [];
    const ordered = await start([step(seen, 'a')], [step(seen, 'b'), answer]);
    expect(JSON.parse((await ordered.call('POST', '/x')).text)).toMatchObject({ by: 'ahead', route: '/x' });
    expect(seen).toEqual(['a:-', 'b:/x']);
    seen.length = 0;
    const throwing = await start(
      [step(seen, 'a')],
      [
        () => {
          throw new Error('thrown');
        },
        step(seen, 'never'),
      ],
    );
    // The error leaves the mount: its base dropped, the route reached kept (as the router leaves them).
    expect(await throwing.call('POST', '/x')).toEqual({ status: 418, text: '{"error":"thrown","baseUrl":"","route":"/x"}' });
    expect(seen).toEqual(['a:-']);
    seen.length = 0;
    const early = await start([() => Promise.reject(new Error('before the route'))], [step(seen, 'never')]);
    expect(await early.call('POST', '/x')).toEqual({ status: 418, text: '{"error":"before the route","baseUrl":"","route":null}' });
    const rejecting = await start([], [async () => Promise.reject(''), step(seen, 'never')]);
    expect(await rejecting.call('POST', '/x')).toEqual({ status: 418, text: '{"error":"Rejected promise","baseUrl":"","route":"/x"}' });
    // A thenable that is not a Promise, as the router's is-promise takes it.
    const rejectingThenable = (_ok: unknown, fail: (e: unknown) => void) => fail(new Error('thenable'));
    // biome-ignore lint/suspicious/noThenProperty: the point is a thenable that is no Promise
    const thenable = await start([], [() => ({ then: rejectingThenable })]);
    expect((await thenable.call('POST', '/x')).text).toContain('"error":"thenable"');
    expect(seen).toEqual([]);
  });

  it("takes a falsy error for none, and 'route' or 'router' on to what answers otherwise", async () => {
    const seen: string[] = [];
    const falsy = await start(
      [
        () => {
          throw 0;
        },
      ],
      [step(seen, 'b'), answer],
    );
    expect(JSON.parse((await falsy.call('POST', '/x')).text)).toMatchObject({ by: 'ahead' });
    expect(seen).toEqual(['b:/x']);
    for (const word of ['route', 'router']) {
      const passing = await start([], [(_req, _res, next) => next(word), answer]);
      expect(await passing.call('POST', '/x')).toEqual({ status: 404, text: '{"by":"otherwise"}' });
    }
    // Before the route: 'route' skips nothing (the router's non-route layers), 'router' the rest of the mount.
    const beforeRoute = await start([(_req, _res, next) => next('route')], [answer]);
    expect(JSON.parse((await beforeRoute.call('POST', '/x')).text)).toMatchObject({ by: 'ahead' });
    const beforeRouter = await start([(_req, _res, next) => next('router')], [answer]);
    expect(await beforeRouter.call('POST', '/x')).toEqual({ status: 404, text: '{"by":"otherwise"}' });
    // A thenable whose own `then` throws: the next step's error, as the router's Layer takes it.
    const throwingThen = () => {
      throw new Error('then threw');
    };
    // biome-ignore lint/suspicious/noThenProperty: the point is a thenable that is no Promise
    const broken = await start([], [() => ({ then: throwingThen })]);
    expect((await broken.call('POST', '/x')).text).toContain('"error":"then threw"');
  });

  it("hands an error the error handler passes on, or throws, and a fall-through, to Express's final handler", async () => {
    const failing = await start([], [() => Promise.reject(new Error('x'))], (err, _req, _res, next) => next(err));
    expect((await failing.call('POST', '/x')).status).toBe(500);
    const broken = await start(
      [],
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
    const through = await start([], [(_req, _res, next) => next()]);
    expect(await through.call('POST', '/x')).toEqual({ status: 404, text: '{"by":"otherwise"}' });
  });
});
