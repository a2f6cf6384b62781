import type { Clock, DeliveryId, SecretBox, Tenant, Transformer } from '@wirehook/core';
import { decodeDispatchJob, DISPATCH_SUBJECT, dispatchJobTenant, type Bus, type Subscription } from '@wirehook/bus';
import type { Kv } from '@wirehook/kv';
import type { Component, Logger } from '@wirehook/platform';
import type { DeliveryJob, Store } from '@wirehook/store';
import { AttemptPlaces } from './attempt-places.ts';
import { AttemptRecorder } from './attempt-recorder.ts';
import { AttemptRunner } from './attempt-runner.ts';
import { DeliveryLeases } from './delivery-leases.ts';
import { DueSweep } from './due-sweep.ts';
import { EndpointThrottle } from './endpoint-throttle.ts';
import type { DispatcherMetrics } from './metrics.ts';
import { SendGate } from './send-gate.ts';
import { TenantHolds } from './tenant-holds.ts';
import { defaultPlacesPerTenant, TenantShares } from './tenant-shares.ts';
import type { ThroughputMetrics } from './throughput-metrics.ts';
import { WakeupLedger } from './wakeup-ledger.ts';
import { WebhookSender, type Sender, type TokenSender } from './webhook-sender.ts';

export type { Sender, TokenSender } from './webhook-sender.ts';

/**
 * What a claimed delivery may wait before its send begins: a place in its endpoint's flight
 * (FLIGHT_WAIT_MS, 1 s), a transformation's thread (≤ 1 s), and a margin for dispatchers'
 * clocks. A claim answered later than its lease's end less this and the send is not sent.
 */
const SEND_WAITS_MS = 5_000;

export interface DispatcherConfig {
  /** Deliveries this dispatcher claims and sends at once; wake-ups beyond it are left to the sweeper. */
  concurrency: number;
  /** Concurrent sends to one endpoint. */
  slotsPerEndpoint: number;
  /** Of the `concurrency` places, how many one tenant's sends may hold at once; default defaultPlacesPerTenant's (a quarter, at least the slots). */
  placesPerTenant?: number;
  /** How long a claim holds a delivery; longer than the send timeout. */
  leaseMs: number;
  /** How often the store is swept for due deliveries (retries, lost wake-ups, crashes). */
  sweepIntervalMs: number;
  /** Most due deliveries one sweep publishes. */
  sweepBatch: number;
  /** While behind, a sweep follows once 1/refillShare of the places are free (DueSweep's refillAt); default 2, half. */
  refillShare?: number;
  /** An answered send gives its place back before its attempt is written (AttemptRunner's completionsWithoutPlace); default false. */
  completionsWithoutPlace?: boolean;
  /** Free every lease at start: only when no other dispatcher shares the store (embedded mode). */
  releaseLeasesAtStart: boolean;
  /** The attempt's limit (DELIVERY_TIMEOUT_MS): an OAuth token request's too. */
  timeoutMs: number;
}

export interface DispatcherDeps {
  store: Store;
  bus: Bus;
  /** Direct sends (and OAuth token requests). */
  sender: TokenSender;
  /** Sends of `fixed_ip` endpoints (and their token requests): the egress relay (in-process, or over gRPC). */
  relay: TokenSender;
  /** Sends of listener endpoints (`wirehook listen`). */
  listen?: Sender;
  secretBox: SecretBox;
  clock: Clock;
  logger: Logger;
  metrics: DispatcherMetrics;
  config: DispatcherConfig;
  /**
   * Where endpoints' throughput state is shared (rate and in-flight limits), by every
   * dispatcher: Redis in cluster mode, the process's MemoryKv in embedded mode.
   */
  kv: Kv;
  throughputMetrics: ThroughputMetrics;
  /** Runs endpoints' transformations before their sends (@wirehook/transform's TransformRunner). */
  transforms: Transformer;
}

/**
 * Sends deliveries, at least once. The store is the truth: a delivery is claimed with a lease
 * before it is sent, and its attempt and new state are written in one step after. This class
 * holds what wakes an attempt — wake-ups on the bus, published by the sweep of the store
 * (DueSweep), and intake's hand-off (`room`/`take`) — and the lifecycle. Each attempt then
 * takes AttemptRunner's path: one of `concurrency` places (AttemptPlaces) → a claim
 * (DeliveryLeases) → a place of its tenant's share (TenantShares) → who may send now per endpoint (SendGate) → the send (WebhookSender) →
 * its completion (AttemptRecorder).
 *
 * A wake-up holds its bus slot only while the delivery is claimed, not while it is sent.
 * When every place is taken, a wake-up is dropped: the delivery stays due in the store, and
 * the sweeper brings it back, in due order, as sends finish. So a backlog of any size waits
 * in the store (indexed), not in memory; and since a sweep fetches at most what the gate can
 * hold of one endpoint, a slow endpoint's backlog never hides another endpoint's deliveries;
 * since one tenant's sends hold at most its share of the places, its slow endpoints never take
 * the places another tenant's deliveries need.
 * Jobs intake claimed for it beyond its places (creates written together each saw the same
 * free places) wait briefly for the next places instead, within bounds (AttemptRunner).
 * No store or bus error ends the process: the delivery keeps its lease until it runs out.
 */
export class Dispatcher implements Component {
  readonly name = 'dispatcher';
  readonly #deps: DispatcherDeps;
  readonly #places: AttemptPlaces;
  readonly #due: DueSweep;
  readonly #runner: AttemptRunner;
  readonly #webhooks: WebhookSender;
  #subscription: Subscription | undefined;
  #stopped = false;

  constructor(deps: DispatcherDeps) {
    this.#deps = deps;
    const { store, bus, clock, logger, metrics, config } = deps;
    const places = new AttemptPlaces(config.concurrency);
    // Tenants whose store calls were refused for overload: no room for new work a while.
    const holds = new TenantHolds(clock);
    metrics.tenantsHeld.readFrom(() => holds.heldCount());
    const shares = new TenantShares(
      Math.min(config.concurrency, config.placesPerTenant ?? defaultPlacesPerTenant(config.concurrency, config.slotsPerEndpoint)),
      holds,
    );
    // Deliveries on their way (published or waiting here): the sweep leaves them alone.
    const ledger = new WakeupLedger(config.leaseMs);
    const throttle = new EndpointThrottle({
      kv: deps.kv,
      clock,
      logger,
      metrics: deps.throughputMetrics,
      slots: config.slotsPerEndpoint,
    });
    const gate = new SendGate(config.slotsPerEndpoint, (endpointId) => throttle.capOf(endpointId));
    const due = new DueSweep({
      store,
      bus,
      clock,
      logger,
      ledger,
      places,
      gate,
      shares,
      intervalMs: config.sweepIntervalMs,
      batch: config.sweepBatch,
      refillShare: config.refillShare ?? 2,
      sweeps: metrics.sweeps,
    });
    // A send takes at most a timeout for its connection and one for its answer (HttpEgress),
    // after waits of its own (a place in the endpoint's flight, a transformation's thread).
    const leases = new DeliveryLeases({
      store,
      clock,
      logger,
      metrics,
      leaseMs: config.leaseMs,
      sendMs: 2 * config.timeoutMs + SEND_WAITS_MS,
      holds,
      wakeAt: (at) => due.wakeAt(at),
    });
    const webhooks = new WebhookSender({
      sender: deps.sender,
      relay: deps.relay,
      listen: deps.listen,
      secretBox: deps.secretBox,
      leases,
      clock,
      logger,
      metrics,
      kv: deps.kv,
      timeoutMs: config.timeoutMs,
      transforms: deps.transforms,
      store,
    });
    // The next of an ordered lane goes as soon as its head has ended (a wake-up of our own).
    const wake = (id: DeliveryId, tenant: Tenant) =>
      void this.#runner.admit(id, undefined, tenant).catch((err: unknown) => logger.error({ err, deliveryId: id }, 'attempt failed'));
    // A receiver's Retry-After holds its endpoint in the store, for every dispatcher.
    const hold = (job: DeliveryJob, until: number) => store.endpoints.hold(job.tenant, job.endpoint.id, until);
    const recorder = new AttemptRecorder({ leases, clock, logger, metrics, wake, hold });
    const completionsWithoutPlace = config.completionsWithoutPlace === true;
    this.#runner = new AttemptRunner({
      clock,
      logger,
      metrics,
      places,
      shares,
      ledger,
      due,
      leases,
      gate,
      throttle,
      webhooks,
      recorder,
      completionsWithoutPlace,
    });
    this.#places = places;
    this.#due = due;
    this.#webhooks = webhooks;
  }

  async start(): Promise<void> {
    const { bus, config, store, logger } = this.#deps;
    if (config.releaseLeasesAtStart) {
      const released = await store.deliveries.releaseAll(this.#deps.clock.now());
      if (released > 0) logger.info({ released }, 'freed leases left by the previous run');
    }
    this.#subscription = bus.consume(
      DISPATCH_SUBJECT,
      async (message) => {
        await this.#runner.admitWakeUp(decodeDispatchJob(message.data), dispatchJobTenant(message.headers));
        return 'ack';
      },
      { concurrency: config.concurrency },
    );
    await this.#due.start();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#runner.stopAdmitting();
    this.#webhooks.stop(); // sends still waiting for a token give way
    await this.#due.stop();
    await this.#subscription?.stop();
    await this.#runner.settled();
    // Token requests already asked: their tokens kept and locks let go while the shared store is open.
    await this.#webhooks.settled();
  }

  /** Publishes the due deliveries not already on their way. Runs on a timer; tests may call it. */
  sweep(): Promise<void> {
    return this.#due.sweep();
  }

  /**
   * Deliveries claimed for this dispatcher by intake, in the transaction that created them
   * (embedded mode): no wake-up, no claim of their own. How many it can start, and the
   * lease to claim them with, is {@link room}'s answer.
   */
  room(now: number): { max: number; leaseUntil: number } {
    return { max: this.#stopped ? 0 : this.#places.free, leaseUntil: now + this.#deps.config.leaseMs };
  }

  /**
   * Starts the sends of `jobs` (claimed for it); those it has no place for wait for the next
   * places freed, within bounds, and the rest go back to the store, due now (AttemptRunner).
   */
  take(jobs: readonly DeliveryJob[]): void {
    const now = this.#deps.clock.now();
    for (const job of jobs) this.#runner.takeHandedOver(job, now);
  }
}
