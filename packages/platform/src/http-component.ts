import type { IncomingMessage, RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { nodeHttp } from '@wirehook/core';
import type { Component } from './lifecycle.ts';

/**
 * A component serving `handler` (an Express app) on `port` and `host`: started, it listens
 * (a taken port is named with its variable); stopped, it drains the requests in flight. `upgrade`:
 * its WebSocket upgrades (the API's GET /v1/listen).
 */
export function httpComponent(
  name: string,
  handler: RequestListener,
  listen: { port: number; host: string; variable: string; upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void },
): Component & { port(): number; listening(): boolean } {
  let server: Server | undefined;
  return {
    name,
    start: () =>
      new Promise<void>((resolve, reject) => {
        server = nodeHttp().createServer(handler);
        if (listen.upgrade) server.on('upgrade', listen.upgrade);
        server.once('error', (err: NodeJS.ErrnoException) =>
          reject(new Error(`${listen.variable} ${listen.port} on ${listen.host} cannot be used: ${err.code ?? err.message}`, { cause: err })),
        );
        server.listen(listen.port, listen.host, () => resolve());
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (!server) return resolve();
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
    port: () => (server?.address() as AddressInfo | null | undefined)?.port ?? 0,
    listening: () => server?.listening ?? false,
  };
}
