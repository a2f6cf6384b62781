import type { Bus } from '@wirehook/bus';
import type { Clock, SecretBox } from '@wirehook/core';
import { TransformRunner } from '@wirehook/transform';
import { AddressPolicy, EgressThread, HttpEgress, lookupWithOverrides, parseResolveOverrides, systemLookup, type LookupFn } from '@wirehook/egress';
import type { Kv } from '@wirehook/kv';
import { type Component, type Logger, OutageLog } from '@wirehook/platform';
import type { Store } from '@wirehook/store';
import type { Registry } from 'prom-client';
import { Dispatcher, type DispatcherConfig, type Sender, type TokenSender } from './dispatcher.ts';
import { REFILL_SHARE_GROUPED } from './due-sweep.ts';
import { backlogReuse, createDispatcherMetrics, registerBacklogMetrics, registerEgressThreadMetrics, registerLaneMetrics } from './metrics.ts';
import { createThroughputMetrics } from './throughput-metrics.ts';
import { RetentionJob } from './retention-job.ts';
import { EndpointWalkJob } from './endpoint-walk-job.ts';
import { BacklogCountJob } from './backlog-count-job.ts';

/** The settings the delivery side reads, as both the dispatcher's and embedded mode's config schemas define them. */
export interface DeliverySettings {
  DELIVERY_ALLOW_HOSTS: string;
  DELIVERY_RESOLVE: string;
  DELIVERY_TIMEOUT_MS: number;
  DISPATCH_CONCURRENCY: number;
  ENDPOINT_SLOTS: number;
  DISPATCH_PLACES_PER_TENANT?: number | undefined;
  SWEEP_INTERVAL_MS: number;
  TRANSFORM_THREADS: number;
  RETENTION_MONTHS: number;
  RETENTION_INTERVAL_MS: number;
}

/** What the composition root already has. */
export interface DeliveryShared {
  store: Store;
  bus: Bus;
  secretBox: SecretBox;
  clock: Clock;
  logger: Logger;
  registry: Registry;
  /** True only when this process is the store's one dispatcher (embedded mode): leases found at start belong to a run that died. */
  soleDispatcher: boolean;
  /** DNS for URL checks and sends (tests map names to addresses); default: the system's. */
  lookup?: LookupFn;
  /** Extra CA certificates trusted for deliveries (tests; production uses NODE_EXTRA_CA_CERTS). */
  ca?: string;
  /** The egress relay for `fixed_ip` endpoints: in-process (embedded) or its gRPC client (cluster). */
  relay: TokenSender;
  /** Listener endpoints' connections (`wirehook listen`); absent: a send to one fails as `connection`. */
  listen?: Sender;
  /** Where endpoints' throughput state is shared: the process's Kv (embedded), Redis (cluster). */
  kv: Kv;
  /**
   * Sends on a thread of their own (EgressThread): embedded mode, whose main thread serves the
   * API. Not with a `lookup` of the caller's (a function cannot cross to a thread): those sends
   * stay on the caller's thread.
   */
  egressThread?: boolean;
}

/** The delivery egress as the dispatcher uses it: HttpEgress, on the caller's thread or its own. */
export type DeliveryEgress = TokenSender & { start?(): Promise<void>; close(): Promise<void> };

/** The delivery side of a process: its egress client, dispatcher and retention job. */
export interface DeliveryComponents {
  egress: DeliveryEgress;
  addressPolicy: AddressPolicy;
  lookup: LookupFn;
  dispatcher: Dispatcher;
  /** Runs endpoints' transformations: the dispatcher's before its sends (embedded mode's API simulates with it too). */
  transforms: TransformRunner;
  retention: RetentionJob;
  /** Finishes endpoints' walks (pause, resume, disable, delete) batch by batch. */
  walks: EndpointWalkJob;
  /** In start order (egress first): the root stops them in reverse. */
  components: Component[];
}

/**
 * A lease outlives the longest send by this much, so a send still running is not claimed
 * twice: the wait for a connection and the attempt have a timeout each (see HttpEgress).
 */
const LEASE_MARGIN_MS = 15_000;
/** Most due deliveries one sweep publishes. */
const SWEEP_BATCH = 1_000;

/**
 * The dispatcher's config from its settings and its store: how it sweeps and gives places back
 * follows how the store answers its writes (`Store.groupsWrites`: SQLite's group commit).
 */
export function dispatcherConfig(settings: DeliverySettings, store: Pick<Store, 'groupsWrites'>, soleDispatcher: boolean): DispatcherConfig {
  const grouped = store.groupsWrites === true;
  return {
    concurrency: settings.DISPATCH_CONCURRENCY,
    slotsPerEndpoint: settings.ENDPOINT_SLOTS,
    placesPerTenant: settings.DISPATCH_PLACES_PER_TENANT,
    leaseMs: 2 * settings.DELIVERY_TIMEOUT_MS + LEASE_MARGIN_MS,
    sweepIntervalMs: settings.SWEEP_INTERVAL_MS,
    sweepBatch: SWEEP_BATCH,
    // A store that answers a moment's completions together (SQLite) refills at an eighth, not half (DueSweep).
    refillShare: grouped ? REFILL_SHARE_GROUPED : 2,
    // Its completions answered together freed the places in waves: given back at each answer instead (AttemptRunner).
    completionsWithoutPlace: grouped,
    // With replicas, expired leases are taken over and live ones respected.
    releaseLeasesAtStart: soleDispatcher,
    timeoutMs: settings.DELIVERY_TIMEOUT_MS,
  };
}

/**
 * Wires the dispatcher with its egress and the retention job, the same way for the
 * dispatcher service (one replica of many) and embedded mode (the only one).
 */
export function createDispatcher(settings: DeliverySettings, shared: DeliveryShared): DeliveryComponents {
  const { store, bus, secretBox, clock, logger } = shared;
  const addressPolicy = new AddressPolicy({ allowHosts: settings.DELIVERY_ALLOW_HOSTS });
  const lookup = lookupWithOverrides(parseResolveOverrides(settings.DELIVERY_RESOLVE), shared.lookup ?? systemLookup);
  const limits = { timeoutMs: settings.DELIVERY_TIMEOUT_MS, connectionsPerOrigin: settings.ENDPOINT_SLOTS, ca: shared.ca };
  const thread =
    shared.egressThread && shared.lookup === undefined
      ? new EgressThread({ allowHosts: settings.DELIVERY_ALLOW_HOSTS, resolve: settings.DELIVERY_RESOLVE, ...limits })
      : undefined;
  if (thread) registerEgressThreadMetrics(shared.registry, () => thread.starts);
  const egress: DeliveryEgress = thread ?? new HttpEgress({ policy: addressPolicy, lookup, ...limits });
  // Sandbox threads start at the first transformation: endpoints without one cost nothing.
  // A send waits for a sandbox thread at most a second, and at most half the dispatcher's places
  // wait (an endpoint's slots bound its own share, a tenant's half of those bounds its endpoints'):
  // the wait holds a place and a slot, so one tenant's slow code cannot hold them all, nor for
  // long, nor turn every other tenant's send away. Past the limits a send is put off for a
  // second, no attempt. (Tighter per-endpoint caps put healthy load off: bench, transformed.)
  const maxWaiting = Math.max(1, Math.floor(settings.DISPATCH_CONCURRENCY / 2));
  const transforms = new TransformRunner({
    threads: settings.TRANSFORM_THREADS,
    maxWaitMs: 1_000,
    maxWaitingPerEndpoint: settings.ENDPOINT_SLOTS,
    maxWaitingPerTenant: Math.max(1, Math.floor(maxWaiting / 2)),
    maxWaiting,
  });
  const dispatcher = new Dispatcher({
    transforms,
    store,
    bus,
    sender: egress,
    relay: shared.relay,
    listen: shared.listen,
    secretBox,
    clock,
    logger: logger.child({ component: 'dispatcher' }),
    metrics: createDispatcherMetrics(shared.registry),
    kv: shared.kv,
    throughputMetrics: createThroughputMetrics(shared.registry),
    config: dispatcherConfig(settings, store, shared.soleDispatcher),
  });
  // Replicas sharing one store reuse a read for BACKLOG_REUSE_MS; the sole dispatcher reads at each scrape.
  // The first failed read, a summary every 30 s, the recovery: a database down fails every scrape.
  const backlogReads = new OutageLog({
    logger: logger.child({ component: 'metrics' }),
    clock,
    what: 'the backlog gauges could not be read',
    deferred: 'reads failed',
    consequence: 'they read NaN until a read succeeds',
  });
  registerBacklogMetrics(
    shared.registry,
    () => store.deliveries.backlog(clock.now()),
    () => clock.now(),
    { reuse: backlogReuse(shared.soleDispatcher), failed: (err, again) => backlogReads.failed(err, again ? 0 : 1), succeeded: () => backlogReads.succeeded() },
  );
  registerLaneMetrics(
    shared.registry,
    () => store.deliveries.laneStats(),
    () => clock.now(),
    backlogReuse(shared.soleDispatcher),
  );
  // Retention: one replica at a time (a store lease), a bounded run each interval.
  const retention = new RetentionJob({
    store,
    clock,
    logger: logger.child({ component: 'retention' }),
    retentionMonths: settings.RETENTION_MONTHS,
    intervalMs: settings.RETENTION_INTERVAL_MS,
  });
  // The store-wide backlog counted off the scrapes, where the store shares one count (MongoDB).
  const backlogCount = new BacklogCountJob({ store, clock, logger: logger.child({ component: 'backlog-count' }) });
  // What pauses, resumes, disables and deletes leave of an endpoint's backlog, in bounded batches.
  const walks = new EndpointWalkJob({ store, clock, logger: logger.child({ component: 'endpoint-walks' }), intervalMs: settings.SWEEP_INTERVAL_MS });
  // The egress thread starts with the process: one that cannot start fails the start, not every send.
  const egressComponent: Component = { name: 'egress', start: async () => egress.start?.(), stop: () => egress.close() };
  // Stopped after the dispatcher (components stop in reverse): its sends in flight finish their runs first.
  const transformsComponent: Component = { name: 'transforms', start: async () => {}, stop: () => transforms.close() };
  return {
    egress,
    addressPolicy,
    lookup,
    dispatcher,
    transforms,
    retention,
    walks,
    components: [egressComponent, transformsComponent, retention, walks, backlogCount, dispatcher],
  };
}
