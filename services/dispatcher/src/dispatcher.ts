import { context, ROOT_CONTEXT, type Context } from '@opentelemetry/api';
import { newId, type Clock, type DeliveryId, type SecretBox } from '@wirehook/core';
import { decodeDispatchJob, DISPATCH_SUBJECT, encodeDispatchJob, type Bus, type Subscription } from '@wirehook/bus';
import type { Component, Logger } from '@wirehook/platform';
import type { DeliveryJob, Store } from '@wirehook/store';
import { EndpointSlots } from './endpoint-slots.ts';
import { SigningKeys } from './signing-keys.ts';
import { outcomeLabel, type DispatcherMetrics } from './metrics.ts';
import { decideOutcome, type SendResult } from './outcome.ts';
import { traceSend } from './send-span.ts';
import { buildWebhookRequest, type WebhookRequest } from './webhook-request.ts';

export interface DispatcherConfig {
  /** Deliveries this dispatcher claims and sends at once; wake-ups beyond it are left to the sweeper. */
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
 *
 * A wake-up holds its bus slot only while the delivery is claimed, not while it is sent.
 * When `concurrency` attempts are already running, a wake-up is dropped: the delivery stays
 * due in the store, and the sweeper brings it back, in due order, as sends finish. So a
 * backlog of any size waits in the store (indexed), not in memory.
 */
export class Dispatcher implements Component {
  readonly name = 'dispatcher';
  readonly #deps: DispatcherDeps;
  readonly #slots: EndpointSlots;
  readonly #signingKeys: SigningKeys;
  /**
   * Published or waiting here, with when: the sweeper does not publish these again for a
   * lease's length (with several replicas a job may be taken by another one, so entries
   * also expire rather than wait to be cleared here).
   */
  readonly #tracked = new Map<DeliveryId, number>();
  /** Due deliveries whose endpoint has no free slot, per endpoint, in arrival order (a Set: no duplicates). */
  readonly #waiting = new Map<string, Set<DeliveryId>>();
  /** How many ids #waiting holds. */
  #waitingCount = 0;
  /** The trace each waiting delivery's job arrived in: its send, later, continues it. */
  readonly #waitingTrace = new Map<DeliveryId, Context>();
  readonly #inFlight = new Set<Promise<void>>();
  /** Attempts admitted and not finished: claiming, or sending. */
  #active = 0;
  #subscription: Subscription | undefined;
  #sweepTimer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;
  /** More may be due than is on its way: the last sweep was cut off, or a wake-up was dropped. */
  #behind = false;
  #stopped = false;

  constructor(deps: DispatcherDeps) {
    this.#deps = deps;
    this.#slots = new EndpointSlots(deps.config.slotsPerEndpoint);
    this.#signingKeys = new SigningKeys(deps.secretBox);
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
        await this.#admit(decodeDispatchJob(message.data));
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
      this.#expireTracked(now);
      // Publish what can be taken now: a wake-up beyond `concurrency` would only be dropped.
      // Only this dispatcher's own state counts: with replicas, another may take what it publishes.
      const room = Math.min(config.sweepBatch, config.concurrency - this.#active);
      if (room <= 0) return;
      // Over-fetch by what is already on its way (queued, waiting), so new work is still found.
      const limit = room + Math.min(this.#tracked.size, config.sweepBatch + config.concurrency);
      const due = await store.deliveries.due(now, limit);
      this.#behind = due.length >= limit;
      let published = 0;
      for (const id of due) {
        if (published >= room) break;
        const since = this.#tracked.get(id);
        if (this.#stopped || (since !== undefined && now - since < config.leaseMs)) continue;
        this.#tracked.set(id, now);
        published++;
        await bus.publish(DISPATCH_SUBJECT, encodeDispatchJob(id));
      }
    } catch (err) {
      logger.error({ err }, 'sweep failed; trying again at the next tick');
    }
  }

  /**
   * A backlog (e.g. an endpoint resumed with 100,000 held deliveries) drains at sending
   * speed, not at one sweep batch per tick: while behind, the next sweep starts as soon as
   * half the attempts have finished.
   */
  #sweepIfBehind(): void {
    // At half load, not at every finished send: one sweep (one indexed query) refills many.
    if (this.#behind && !this.#stopped && this.#active <= this.#deps.config.concurrency / 2) void this.sweep();
  }

  /** Forgets what was published a lease's length ago: taken elsewhere, or lost, it may be published again. */
  #expireTracked(now: number): void {
    for (const [id, since] of this.#tracked) if (now - since >= this.#deps.config.leaseMs) this.#tracked.delete(id);
  }

  /**
   * Claims `id` and starts its send when there is room; else leaves it due in the store
   * for the sweeper. Resolves once the claim is decided (the send goes on). `fromWaitingOf`:
   * it was waiting for a slot of that endpoint, which it is taking over.
   */
  async #admit(id: DeliveryId, fromWaitingOf?: string): Promise<void> {
    if (this.#stopped) return;
    const { concurrency, sweepBatch } = this.#deps.config;
    // Room for it, and (a new wake-up) not too many already parked waiting for endpoint slots.
    if (this.#active >= concurrency || (fromWaitingOf === undefined && this.#waitingCount >= sweepBatch)) {
      this.#tracked.delete(id);
      this.#behind = true;
      return;
    }
    this.#active++;
    let sending = false;
    try {
      sending = await this.#attempt(id, fromWaitingOf);
    } finally {
      if (!sending) this.#finished();
    }
  }

  /** One admitted attempt is over: room for the next. */
  #finished(): void {
    this.#active--;
    this.#sweepIfBehind();
  }

  /** @returns whether a send started (it ends with #finished). */
  async #attempt(id: DeliveryId, fromWaitingOf: string | undefined): Promise<boolean> {
    const { store, clock, config } = this.#deps;
    const now = clock.now();
    const job = await store.deliveries.claim(id, now, now + config.leaseMs);
    if (!job) {
      this.#tracked.delete(id); // done, not due, paused, or claimed elsewhere
      // It was to use a freed slot of its endpoint: pass the turn on.
      if (fromWaitingOf !== undefined) this.#next(fromWaitingOf);
      return false;
    }
    const endpointId = job.endpoint.id;
    if (!this.#slots.tryTake(endpointId)) {
      // Queued before the release is written: a slot freed meanwhile must find it waiting.
      this.#wait(endpointId, id);
      await store.deliveries.release(id, now);
      return false;
    }
    const sending = this.#send(job).finally(() => {
      this.#slots.give(endpointId);
      this.#tracked.delete(id);
      this.#inFlight.delete(sending);
      this.#deps.metrics.inFlight.set(this.#inFlight.size);
      this.#next(endpointId);
      this.#finished();
    });
    this.#inFlight.add(sending);
    this.#deps.metrics.inFlight.set(this.#inFlight.size);
    return true;
  }

  #wait(endpointId: string, id: DeliveryId): void {
    this.#tracked.set(id, this.#deps.clock.now());
    const queue = this.#waiting.get(endpointId) ?? new Set();
    if (queue.has(id)) return;
    queue.add(id);
    this.#waitingCount++;
    this.#waitingTrace.set(id, context.active());
    this.#waiting.set(endpointId, queue);
    this.#deps.metrics.waiting.inc();
  }

  #next(endpointId: string): void {
    const queue = this.#waiting.get(endpointId);
    const id = queue?.values().next().value;
    if (queue === undefined || id === undefined) return;
    queue.delete(id);
    this.#waitingCount--;
    if (queue.size === 0) this.#waiting.delete(endpointId);
    this.#deps.metrics.waiting.dec();
    // Called as another delivery's send ends: run in the waiting delivery's own trace, not that one.
    const parent = this.#waitingTrace.get(id) ?? ROOT_CONTEXT;
    this.#waitingTrace.delete(id);
    void context
      .with(parent, () => this.#admit(id, endpointId))
      .catch((err) => this.#deps.logger.error({ err, deliveryId: id }, 'attempt failed'));
  }

  async #send(job: DeliveryJob): Promise<void> {
    const { store, clock, sender, logger, metrics } = this.#deps;
    const at = clock.now();
    let result: SendResult;
    try {
      const request = buildWebhookRequest(job, this.#signingKeys, at);
      result = await traceSend(job, request.url, () => sender.send(request));
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
