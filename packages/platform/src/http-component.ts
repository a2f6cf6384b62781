import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { nodeHttp } from '@wirehook/core';
import type { Component } from './lifecycle.ts';

/** How often a stopping server closes the keep-alive connections whose response has ended since. */
const CLOSE_IDLE_EVERY_MS = 100;

/** The response a connection is serving now: Node's own field on the socket (http-terminator reads it alike). */
const responseOn = (socket: Socket): ServerResponse | undefined => (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;

/**
 * A component serving `handler` (an Express app) on `port` and `host`: started, it listens
 * (a taken port is named with its variable); stopped, it drains the requests in flight. `upgrade`:
 * its WebSocket upgrades (the API's GET /v1/listen).
 *
 * Node's `server.close()` closes the keep-alive connections idle at that moment only: one whose
 * response was still running stays open for its keep-alive timeout, and a client that keeps
 * sending on it is served for as long as it does, past the stop's deadline. So once stopping,
 * the responses in flight (headers not yet sent) and every later one say `Connection: close`
 * (the client's next request opens a new connection, to another replica), and connections that
 * fall idle are closed as they do. Given up: a client that pipelines requests behind the one in
 * flight then loses the answers queued behind it (Node ends the connection after the one that says
 * close); RFC 9112 advises pipelining only safe requests, and browsers, undici and Node's agent do not.
 */
export function httpComponent(
  name: string,
  handler: RequestListener,
  listen: { port: number; host: string; variable: string; upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void },
): Component & { port(): number; listening(): boolean } {
  let server: Server | undefined;
  let stopping = false;
  /** Its connections (one entry a connection, not a request: nothing added to a request's path). */
  const sockets = new Set<Socket>();
  const serve: RequestListener = (req, res) => {
    if (stopping) res.setHeader('connection', 'close');
    handler(req, res);
  };
  return {
    name,
    start: () =>
      new Promise<void>((resolve, reject) => {
        server = nodeHttp().createServer(serve);
        if (listen.upgrade) server.on('upgrade', listen.upgrade);
        server.on('connection', (socket: Socket) => {
          sockets.add(socket);
          socket.once('close', () => sockets.delete(socket));
        });
        server.once('error', (err: NodeJS.ErrnoException) =>
          reject(new Error(`${listen.variable} ${listen.port} on ${listen.host} cannot be used: ${err.code ?? err.message}`, { cause: err })),
        );
        server.listen(listen.port, listen.host, () => resolve());
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (!server) return resolve();
        stopping = true;
        for (const socket of sockets) {
          const inFlight = responseOn(socket);
          if (inFlight && !inFlight.headersSent) inFlight.setHeader('connection', 'close');
        }
        const closing = server;
        const idle = setInterval(() => closing.closeIdleConnections(), CLOSE_IDLE_EVERY_MS);
        closing.close(() => {
          clearInterval(idle);
          resolve();
        });
        closing.closeIdleConnections();
      }),
    port: () => (server?.address() as AddressInfo | null | undefined)?.port ?? 0,
    listening: () => server?.listening ?? false,
  };
}
