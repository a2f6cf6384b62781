import type { AddressInfo } from 'node:net';
import type { Clock } from '@wirehook/core';
import { MemoryBus, type Bus } from '@wirehook/bus';
import { createDispatcher, type DeliveryEgress, type Dispatcher, type RetentionJob } from '@wirehook/dispatcher';
import { AddressPolicy, ListenHub, lookupWithOverrides, parseResolveOverrides, systemLookup, type LookupFn } from '@wirehook/egress';
import { addressesNotOnThisHost, EgressRelay } from '@wirehook/egress-relay';
import { createGateway, egressIpSync, type GatewayDeps } from '@wirehook/gateway';
import { ListenServer } from '@wirehook/http-api';
import { createPortal } from '@wirehook/portal';
import { EndpointThroughput, MemoryKv, RateLimiter } from '@wirehook/kv';
import { createAlerting, type AlertingWorker } from '@wirehook/alerting';
import { MessageIntake } from '@wirehook/message-intake';
import { createRecovery, type RecoveryWorker } from '@wirehook/recovery';
import {
  createHttpMetrics,
  createRegistry,
  httpComponent,
  listenerCheck,
  loadSealingKeys,
  metricsServer,
  sealingKeyCheck,
  storeCheck,
  verifySealingKeys,
  type Component,
  type Logger,
  type ReadinessCheck,
} from '@wirehook/platform';
import { openEmbeddedStore, type Store } from '@wirehook/store';
import type { EmbeddedConfig } from './config.ts';

/** Embedded Wirehook: its parts, and its components in start order. */
export interface Embedded {
  components: Component[];
  /** What its `/readyz` checks: `stoppingCheck` joins them as its stop begins. */
  readiness: ReadinessCheck[];
  store: Store;
  bus: Bus;
  dispatcher: Dispatcher;
  /** Where the dispatcher's sends go: the egress thread (EgressThread), or HttpEgress on this thread with a test's own lookup. */
  egress: DeliveryEgress;
  /** The `wirehook listen` connections the API holds. */
  listeners: ListenHub;
  retention: RetentionJob;
  /** Drives running recoveries (tests call its tick() with the clock moved). */
  recoveryWorker: RecoveryWorker;
  /** Decides and sends failure notices (tests call its tick() with the clock moved). */
  alertingWorker: AlertingWorker;
  /** The API's base URL once started. */
  apiUrl(): string;
  /** The portal's base URL once started. */
  portalUrl(): string;
  /** The metrics server's base URL once started. */
  metricsUrl(): string;
}

export interface EmbeddedOverrides {
  clock: Clock;
  logger: Logger;
  /** DNS for URL checks and sends (tests map names to addresses). */
  lookup?: LookupFn;
  /** Extra CA certificates trusted for deliveries (tests; production uses NODE_EXTRA_CA_CERTS). */
  ca?: string;
}

/**
 * Wires every service of embedded mode into one process: SQLite store, in-process Kv and
 * Bus, gateway, message-intake, dispatcher, retention. Tests build it too, with port 0.
 */
export function createEmbedded(config: EmbeddedConfig, deps: EmbeddedOverrides): Embedded {
  const { clock, logger } = deps;
  const store = openEmbeddedStore(config.DATA_DIR);
  const kv = new MemoryKv({ clock });
  const bus = new MemoryBus();
  const httpMetrics = createHttpMetrics(createRegistry('wirehook'));
  const keys = loadSealingKeys(config);
  if (keys.warning) logger.warn(keys.warning);
  const secretBox = keys.box;
  // The egress relay, in-process: fixed_ip endpoints are sent from RELAY_SOURCE_IPS.
  const relay = new EgressRelay({
    pool: config.RELAY_SOURCE_IPS,
    policy: new AddressPolicy({ allowHosts: config.DELIVERY_ALLOW_HOSTS }),
    lookup: lookupWithOverrides(parseResolveOverrides(config.DELIVERY_RESOLVE), deps.lookup ?? systemLookup),
    timeoutMs: config.DELIVERY_TIMEOUT_MS,
    connectionsPerOrigin: config.ENDPOINT_SLOTS,
    ca: deps.ca,
    registry: httpMetrics.registry,
  });
  // Listener endpoints (`wirehook listen`): the API holds their connections, the dispatcher sends over them.
  const listeners = new ListenHub({ clock, timeoutMs: config.DELIVERY_TIMEOUT_MS });
  const delivery = createDispatcher(config, {
    relay,
    listen: listeners,
    store,
    bus,
    secretBox,
    clock,
    logger,
    registry: httpMetrics.registry,
    // One process owns this store: a lease found at start belongs to a run that died.
    soleDispatcher: true,
    // The API's thread keeps to the API: undici, TLS and their garbage go to the egress thread.
    egressThread: true,
    kv,
    lookup: deps.lookup,
    ca: deps.ca,
  });
  const { dispatcher, retention, addressPolicy, lookup, transforms } = delivery;
  // New deliveries are claimed as they are written and handed to the dispatcher in-process.
  const intake = new MessageIntake({
    store,
    bus,
    clock,
    logger: logger.child({ component: 'message-intake' }),
    registry: httpMetrics.registry,
    local: dispatcher,
  });
  const recovery = createRecovery(config, { store, bus, clock, logger, registry: httpMetrics.registry, soleWorker: true });
  const alerting = createAlerting(config, { store, clock, logger, secretBox, registry: httpMetrics.registry, lookup: deps.lookup, ca: deps.ca });
  const gatewayDeps: GatewayDeps = {
    store,
    intake,
    recovery: recovery.service,
    rateLimiter: new RateLimiter({ kv, clock }),
    throughput: new EndpointThroughput(kv),
    clock,
    logger: logger.child({ component: 'gateway' }),
    metrics: httpMetrics,
    secretBox,
    addressPolicy,
    lookup,
    retentionMonths: config.RETENTION_MONTHS,
    transforms,
    portalPublicUrl: config.PORTAL_PUBLIC_URL,
    apiPublicUrl: config.API_PUBLIC_URL,
    emailConfigured: Boolean(config.SMTP_URL),
  };
  const listen = new ListenServer({ store, clock, logger: logger.child({ component: 'listen' }), secretBox, hub: listeners });
  const api = httpComponent('api', createGateway(gatewayDeps), { port: config.PORT, host: config.HOST, variable: 'PORT', upgrade: listen.upgrade });
  // The customer portal, in-process: its page and token API on PORTAL_PORT.
  const portal = httpComponent('portal', createPortal({ ...gatewayDeps, logger: logger.child({ component: 'portal' }) }), {
    port: config.PORTAL_PORT,
    host: config.HOST,
    variable: 'PORTAL_PORT',
  });
  // The servers start after the metrics server: not ready until both listen, nor once its stop begins (`stopping`).
  const readiness = [storeCheck(store), sealingKeyCheck(store.sealing, keys, clock), listenerCheck(api), listenerCheck(portal)];
  const metrics = metricsServer(httpMetrics.registry, config.METRICS_PORT, config.METRICS_HOST, readiness);
  const component = (name: string, stop: () => Promise<void> | void, start: () => Promise<void> | void = () => {}) => ({
    name,
    start: async () => start(),
    stop: async () => stop(),
  });

  return {
    readiness,
    store,
    bus,
    dispatcher,
    egress: delivery.egress,
    listeners,
    retention,
    recoveryWorker: recovery.worker,
    alertingWorker: alerting.worker,
    // Start order; stop runs in reverse: API first (no new work), then the workers, the store last.
    components: [
      // A wrong key is refused before anything is sent or sealed with it.
      component(
        'store',
        () => store.close(),
        () => verifySealingKeys(store.sealing, keys, clock),
      ),
      component(
        'kv',
        () => kv.stop(),
        () => kv.start(),
      ),
      component('bus', () => bus.close()),
      // Not a readiness failure here: most embedded users have no fixed_ip endpoint, and the API must serve.
      component(
        'relay',
        () => relay.close(),
        async () => {
          const missing = await addressesNotOnThisHost(config.RELAY_SOURCE_IPS);
          if (missing.length > 0) {
            logger.warn({ missing }, `RELAY_SOURCE_IPS has addresses this host does not have (${missing.join(', ')}): fixed_ip sends from them fail`);
          }
        },
      ),
      // Before the API: GET /v1/egress-ips lists the pool this start was given.
      egressIpSync({ store, clock, logger: logger.child({ component: 'egress-ips' }), pool: config.RELAY_SOURCE_IPS }),
      ...delivery.components,
      recovery.worker,
      ...alerting.components,
      metrics,
      portal,
      api,
      // Stopped first: the listener connections close (as going away) before the API drains.
      component('listen', async () => {
        await listen.close();
        listeners.close();
      }),
    ],
    apiUrl: () => `http://127.0.0.1:${api.port()}`,
    portalUrl: () => `http://127.0.0.1:${portal.port()}`,
    metricsUrl: () => `http://127.0.0.1:${(metrics.server.address() as AddressInfo).port}`,
  };
}
