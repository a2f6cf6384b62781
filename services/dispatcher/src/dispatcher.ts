import { newId, type Clock, type DeliveryId, type SecretBox } from '@wirehook/core';
import { decodeDispatchJob, DISPATCH_SUBJECT, encodeDispatchJob, type Bus, type Subscription } from '@wirehook/bus';
import type { Component, Logger } from '@wirehook/platform';
import type { DeliveryJob, Store } from '@wirehook/store';
import { EndpointSlots } from './endpoint-slots.ts';
import { outcomeLabel, type DispatcherMetrics } from './metrics.ts';
import { decideOutcome, type SendResult } from './outcome.ts';
import { buildWebhookRequest, type WebhookRequest } from './webhook-request.ts';

export interface DispatcherConfig {
  /** Deliveries this dispatcher takes from the bus at once. */
  concurrency: number;
  /** Concurrent sends to one endpoint. */
  slotsPerEndpoint: number;
  /** How long a claim holds a delivery; longer than the send timeout. */
  leaseMs: number;
  /** How often the store is swept for due deliveries (retries, lost wake-ups, crashes). */
  sweepIntervalMs: number;
  /** Most due deliveries one sweep publishes. */
  sweepBatch: number;
  /** Free every lease at start: only when no other dispatcher shares the store (embedded mode). */
  releaseLeasesAtStart: boolean;
}

/** The outbound HTTP client, as the dispatcher uses it. */
export interface Sender {
  send(request: WebhookRequest): Promise<SendResult>;
}

export interface DispatcherDeps {
  store: Store;
  bus: Bus;
  sender: Sender;
  secretBox: SecretBox;
  clock: Clock;
  logger: Logger;
  metrics: DispatcherMetrics;
  config: DispatcherConfig;
}

/**
 * Sends deliveries. The store is the truth: a delivery is claimed with a lease before it is
 * sent, and its attempt and new state are written in one step after. The bus only says
 * "this may be due"; a sweeper finds what is due in the store (retries, lost wake-ups,
 * leases of a crashed dispatcher) and publishes it again. Delivery is at least once.
 */
export class Dispatcher implements Component {
  readonly name = 'dispatcher';
  readonly #deps: DispatcherDeps;
  readonly #slots: EndpointSlots;
  /**
   * Published or waiting here, with when: the sweeper does not publish these again for a
   * lease's length (with several replicas a job may be taken by another one, so entries
   * also expire rather than wait to be cleared here).
   */
  readonly #tracked = new Map<DeliveryId, number>();
  /** Due deliveries whose endpoint has no free slot, per endpoint, in arrival order (a Set: no duplicates). */
  readonly #waiting = new Map<string, Set<DeliveryId>>();
  readonly #inFlight = new Set<Promise<void>>();
  #subscription: Subscription | undefined;
  #sweepTimer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;
  #stopped = false;

  constructor(deps: DispatcherDeps) {
    this.#deps = deps;
    this.#slots = new EndpointSlots(deps.config.slotsPerEndpoint);
  }

  async start(): Promise<void> {
    const { bus, config, store, logger } = this.#deps;
    if (config.releaseLeasesAtStart) {
      const released = await store.deliveries.releaseAll();
      if (released > 0) logger.info({ released }, 'freed leases left by the previous run');
    }
    this.#subscription = bus.consume(
      DISPATCH_SUBJECT,
      async (message) => {
        await this.#attempt(decodeDispatchJob(message.data));
        return 'ack';
      },
      { concurrency: config.concurrency },
    );
    this.#sweepTimer = setInterval(() => void this.sweep(), config.sweepIntervalMs);
    this.#sweepTimer.unref();
    await this.sweep();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#sweepTimer);
    await this.#sweeping;
    await this.#subscription?.stop();
    await Promise.allSettled([...this.#inFlight]);
  }

  /** Publishes the due deliveries not already on their way. Runs on a timer; tests may call it. */
  sweep(): Promise<void> {
    this.#sweeping ??= this.#sweepOnce().finally(() => (this.#sweeping = undefined));
    return this.#sweeping;
  }

  async #sweepOnce(): Promise<void> {
    const { store, bus, clock, config, logger } = this.#deps;
    try {
      const now = clock.now();
      const due = await store.deliveries.due(now, config.sweepBatch);
      for (const id of due) {
        const since = this.#tracked.get(id);
        if (this.#stopped || (since !== undefined && now - since < config.leaseMs)) continue;
        this.#tracked.set(id, now);
        await bus.publish(DISPATCH_SUBJECT, encodeDispatchJob(id));
      }
    } catch (err) {
      logger.error({ err }, 'sweep failed; trying again at the next tick');
    }
  }

  async #attempt(id: DeliveryId): Promise<void> {
    const { store, clock, config } = this.#deps;
    if (this.#stopped) return;
    const now = clock.now();
    const job = await store.deliveries.claim(id, now, now + config.leaseMs);
    if (!job) {
      this.#tracked.delete(id); // done, not due, paused, or claimed elsewhere
      return;
    }
    const endpointId = job.endpoint.id;
    if (!this.#slots.tryTake(endpointId)) {
      await store.deliveries.release(id, now);
      this.#wait(endpointId, id);
      return;
    }
    const sending = this.#send(job).finally(() => {
      this.#slots.give(endpointId);
      this.#tracked.delete(id);
      this.#inFlight.delete(sending);
      this.#deps.metrics.inFlight.set(this.#inFlight.size);
      this.#next(endpointId);
    });
    this.#inFlight.add(sending);
    this.#deps.metrics.inFlight.set(this.#inFlight.size);
    await sending;
  }

  #wait(endpointId: string, id: DeliveryId): void {
    this.#tracked.set(id, this.#deps.clock.now());
    const queue = this.#waiting.get(endpointId) ?? new Set();
    if (queue.has(id)) return;
    queue.add(id);
    this.#waiting.set(endpointId, queue);
    this.#deps.metrics.waiting.inc();
  }

  #next(endpointId: string): void {
    const queue = this.#waiting.get(endpointId);
    const id = queue?.values().next().value;
    if (queue === undefined || id === undefined) return;
    queue.delete(id);
    if (queue.size === 0) this.#waiting.delete(endpointId);
    this.#deps.metrics.waiting.dec();
    void this.#attempt(id).catch((err) => this.#deps.logger.error({ err, deliveryId: id }, 'attempt failed'));
  }

  async #send(job: DeliveryJob): Promise<void> {
    const { store, clock, sender, secretBox, logger, metrics } = this.#deps;
    const at = clock.now();
    let result: SendResult;
    try {
      result = await sender.send(buildWebhookRequest(job, secretBox, at));
    } catch (err) {
      logger.error({ err, deliveryId: job.delivery.id }, 'send failed unexpectedly');
      result = { ok: false, status: null, responseHead: null, error: 'internal: the send failed inside Wirehook', durationMs: 0, sourceIp: null };
    }
    const outcome = decideOutcome(job, result, { id: newId('attempt', clock), at, via: 'direct' });
    // If this write fails the lease runs out and the delivery is sent again: at least once.
    await store.deliveries.complete(job, outcome);
    metrics.attempts.inc({ outcome: outcomeLabel(result) });
    metrics.attemptDuration.observe(result.durationMs / 1000);
    if (result.ok) metrics.deliveryLatency.observe(Math.max(0, clock.now() - job.message.createdAt) / 1000);
    logger.debug(
      { deliveryId: job.delivery.id, status: outcome.status, responseStatus: result.status, error: result.error },
      'attempt',
    );
  }
}
