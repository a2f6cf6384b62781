import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '@wirehook/core';
import { AddressPolicy, systemLookup, type LookupFn } from '@wirehook/egress';
import { createApp } from '@wirehook/gateway';
import { MemoryKv, RateLimiter } from '@wirehook/kv';
import { createHttpMetrics, loadSecretBox, metricsServer, type Component, type Logger } from '@wirehook/platform';
import { openEmbeddedStore } from '@wirehook/store';
import type { EmbeddedConfig } from './config.ts';

/** Embedded Wirehook as components, in start order. Tests build it too (with port 0). */
export interface Embedded {
  components: Component[];
  /** The API's base URL once started. */
  apiUrl(): string;
}

/** Wires every service of embedded mode in one process: SQLite store, in-process Kv. */
export function createEmbedded(config: EmbeddedConfig, deps: { clock: Clock; logger: Logger; lookup?: LookupFn }): Embedded {
  const { clock, logger } = deps;
  const store = openEmbeddedStore(config.DATA_DIR);
  const kv = new MemoryKv({ clock });
  const metrics = createHttpMetrics();
  const app = createApp({
    store,
    rateLimiter: new RateLimiter({ kv, clock }),
    clock,
    logger: logger.child({ component: 'gateway' }),
    metrics,
    secretBox: loadSecretBox({ keyBase64: config.WIREHOOK_SECRET_KEY, dataDir: config.DATA_DIR }),
    addressPolicy: new AddressPolicy({ allowHosts: config.DELIVERY_ALLOW_HOSTS }),
    lookup: deps.lookup ?? systemLookup,
    retentionMonths: config.RETENTION_MONTHS,
  });

  let server: Server | undefined;
  const api: Component = {
    name: 'api',
    start: () =>
      new Promise((resolve, reject) => {
        server = app.listen(config.PORT, config.HOST, (err?: Error) => (err ? reject(err) : resolve()));
      }),
    stop: () =>
      new Promise((resolve) => {
        if (!server) return resolve();
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
  const storeComponent: Component = { name: 'store', start: async () => {}, stop: () => store.close() };
  const kvComponent: Component = { name: 'kv', start: async () => kv.start(), stop: async () => kv.stop() };

  return {
    components: [storeComponent, kvComponent, metricsServer(metrics.registry, config.METRICS_PORT, config.HOST), api],
    apiUrl: () => `http://localhost:${(server?.address() as AddressInfo).port}`,
  };
}
