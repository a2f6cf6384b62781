import type { RequestListener, Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Component } from './lifecycle.ts';

/**
 * A component serving `handler` (an Express app) on `port` and `host`: started, it listens
 * (a taken port is named with its variable); stopped, it drains the requests in flight.
 */
export function httpComponent(
  name: string,
  handler: RequestListener,
  listen: { port: number; host: string; variable: string },
): Component & { port(): number; listening(): boolean } {
  let server: Server | undefined;
  return {
    name,
    start: () =>
      new Promise<void>((resolve, reject) => {
        server = createServer(handler);
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
