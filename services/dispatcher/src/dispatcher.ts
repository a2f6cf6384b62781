import { context } from '@opentelemetry/api';
import type { Clock, DeliveryId, SecretBox } from '@wirehook/core';
import { decodeDispatchJob, DISPATCH_SUBJECT, encodeDispatchJob, type Bus, type Subscription } from '@wirehook/bus';
import type { Component, Logger } from '@wirehook/platform';
import type { DeliveryJob, Store } from '@wirehook/store';
import { AttemptRecorder } from './attempt-recorder.ts';
import { DeliveryLeases } from './delivery-leases.ts';
import type { DispatcherMetrics } from './metrics.ts';
import { gateEntry, SendGate, type Turn } from './send-gate.ts';
import { WebhookSender, type Sender } from './webhook-sender.ts';

export type { Sender } from './webhook-sender.ts';

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

export interface DispatcherDeps {
  store: Store;
  bus: Bus;
  /** Direct sends. */
  sender: Sender;
  /** Sends of `fixed_ip` endpoints: the egress relay (in-process, or over gRPC). */
  relay: Sender;
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
 *
 * Fairness: an endpoint uses at most `slotsPerEndpoint` sends and as many parked wake-ups
 * here, and the sweeper takes at most that many due deliveries of one endpoint per sweep. A
 * backlog behind a slow or failing endpoint therefore never holds another endpoint's due
 * deliveries back: they are found by the same sweep and have their own slots.
 *
 * Faults: no store or bus error ends the process. A failed claim, release or completion is
 * logged with the delivery id and counted (`wirehook_dispatch_store_errors_total`); the
 * delivery keeps its lease until it runs out, and the sweeper finds it again (at least once).
 */
/**
 * A job intake handed over this long after its lease was set is not sent but released for a
 * fresh claim: the lease (two timeouts and a margin) must outlast the whole send.
 */
const HANDOFF_MAX_AGE_MS = 5_000;

export class Dispatcher implements Component {
  readonly name = 'dispatcher';
  readonly #deps: DispatcherDeps;
  /** Who may send now, per endpoint: slots, and the deliveries waiting for one. */
  readonly #gate: SendGate;
  readonly #leases: DeliveryLeases;
  readonly #webhooks: WebhookSender;
  readonly #recorder: AttemptRecorder;
  /**
   * Published or waiting here, with when: the sweeper does not publish these again for a
   * lease's length (with several replicas a job may be taken by another one, so entries
   * also expire rather than wait to be cleared here).
   */
  readonly #tracked = new Map<DeliveryId, number>();
  /** The tracked deliveries being sent (leased: no due page lists them). */
  readonly #sendingTracked = new Set<DeliveryId>();
  readonly #inFlight = new Set<Promise<void>>();
  /** Releases of handed-over jobs it had no room for (stop() waits for them too). */
  readonly #releasing = new Set<Promise<void>>();
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
    this.#gate = new SendGate(deps.config.slotsPerEndpoint);
    const { store, clock, logger, metrics } = deps;
    this.#leases = new DeliveryLeases({ store, clock, logger, metrics, leaseMs: deps.config.leaseMs });
    this.#webhooks = new WebhookSender({ sender: deps.sender, relay: deps.relay, secretBox: deps.secretBox, leases: this.#leases, clock, logger, metrics });
    this.#recorder = new AttemptRecorder({ leases: this.#leases, clock, logger, metrics });
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
    await Promise.allSettled([...this.#inFlight, ...this.#releasing]);
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
      // Over-fetch by what is already on its way and still listed as due (queued, parked), so
      // new work is still found; sends in flight are leased, so no page lists them.
      const listed = Math.max(0, this.#tracked.size - this.#sendingTracked.size);
      const limit = room + Math.min(listed, config.sweepBatch + config.concurrency);
      // At most what one endpoint can use (its slots and its parking) from each endpoint.
      const due = await store.deliveries.due(now, limit, this.#gate.perEndpoint);
      this.#behind = due.length >= limit;
      let published = 0;
      for (const { id, endpointId } of due) {
        if (published >= room) break;
        const since = this.#tracked.get(id);
        if (this.#stopped || (since !== undefined && now - since < config.leaseMs)) continue;
        // No room: left in the store; the sweep that follows the endpoint's queue draining finds it.
        if (!this.#gate.hasRoom(endpointId)) continue;
        this.#tracked.set(id, now);
        published++;
        try {
          await bus.publish(DISPATCH_SUBJECT, encodeDispatchJob(id));
        } catch (err) {
          // Not on its way after all: the next sweep publishes it again.
          this.#tracked.delete(id);
          throw err;
        }
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

  /**
   * Forgets what was published a lease's length ago: taken elsewhere, or lost, it may be
   * published again. A send of its own in flight is neither: its end forgets it (expired
   * here, it would still be counted in #sendingTracked, which the sweep's over-fetch
   * subtracts from #tracked).
   */
  #expireTracked(now: number): void {
    for (const [id, since] of this.#tracked) {
      if (now - since >= this.#deps.config.leaseMs && !this.#sendingTracked.has(id)) this.#tracked.delete(id);
    }
  }

  /**
   * Claims `id` and starts its send when there is room; else leaves it due in the store
   * for the sweeper. Resolves once the claim is decided (the send goes on). `fromWaitingOf`:
   * it was waiting for a slot of that endpoint, which it is taking over.
   */
  async #admit(id: DeliveryId, fromWaitingOf?: string): Promise<void> {
    if (this.#stopped) return;
    // Room for it? Else it stays due in the store, for the sweeper.
    if (this.#active >= this.#deps.config.concurrency) {
      this.#tracked.delete(id);
      this.#behind = true;
      return;
    }
    await this.#occupy(() => this.#attempt(id, fromWaitingOf));
  }

  /** Runs `attempt` in one of the `concurrency` places; the place is given back when no send started (a send gives it back as it ends). */
  async #occupy(attempt: () => Promise<boolean>): Promise<void> {
    this.#active++;
    let sending = false;
    try {
      sending = await attempt();
    } finally {
      if (!sending) this.#finished();
    }
  }

  /** One admitted attempt is over: room for the next. */
  #finished(): void {
    this.#active--;
    this.#sweepIfBehind();
  }

  /**
   * Deliveries claimed for this dispatcher by intake, in the transaction that created them
   * (embedded mode): no wake-up, no claim of their own. How many it can start, and the
   * lease to claim them with, is {@link room}'s answer.
   */
  room(now: number): { max: number; leaseUntil: number } {
    const { concurrency, leaseMs } = this.#deps.config;
    return { max: this.#stopped ? 0 : Math.max(0, concurrency - this.#active), leaseUntil: now + leaseMs };
  }

  /** Starts the sends of `jobs` (claimed for it); what it has no room for goes back to the store, due now. */
  take(jobs: readonly DeliveryJob[]): void {
    const now = this.#deps.clock.now();
    for (const job of jobs) {
      // The lease was set before the message's (durable) write: after a long stall there, too
      // little of it may be left for a whole send. Such a job goes back for a fresh claim.
      const late = now - job.message.createdAt > HANDOFF_MAX_AGE_MS;
      if (this.#stopped || late || this.#active >= this.#deps.config.concurrency) {
        // Other sends took the room meanwhile: due again at once, for the sweeper.
        this.#behind = true;
        this.#keepUntilStop(this.#leases.release(job, now));
        continue;
      }
      void this.#occupy(() => this.#start(job, now, true)).catch((err) => this.#deps.logger.error({ err, deliveryId: job.delivery.id }, 'attempt failed'));
    }
  }

  /** @returns whether a send started (it ends with #finished). */
  async #attempt(id: DeliveryId, fromWaitingOf: string | undefined): Promise<boolean> {
    const now = this.#deps.clock.now();
    const job = await this.#leases.claim(id, now);
    if (!job) {
      this.#tracked.delete(id); // done, not due, paused, or claimed elsewhere
      // It was to use a freed slot of its endpoint: pass the turn on.
      if (fromWaitingOf !== undefined) this.#giveTurn(this.#gate.passOn(fromWaitingOf));
      return false;
    }
    return this.#start(job, now);
  }

  /**
   * Sends a claimed delivery when the gate lets it in, else leaves it waiting there (a job
   * handed over by intake never overtakes deliveries waiting for its endpoint).
   * @returns whether a send started.
   */
  async #start(job: DeliveryJob, now: number, handedOver = false): Promise<boolean> {
    const id = job.delivery.id;
    const entry = gateEntry(job);
    if (!this.#gate.tryEnter(entry, handedOver)) {
      // Its endpoint is busy. Park it (before the release is written: a turn freed meanwhile
      // must find it waiting), unless the endpoint's parking is full: then it waits in the
      // store, and the sweep that follows the endpoint's queue draining brings it back.
      if (this.#gate.wait(entry, context.active())) {
        this.#tracked.set(id, now);
        this.#deps.metrics.waiting.set(this.#gate.waiting);
      } else {
        this.#tracked.delete(id);
      }
      await this.#leases.release(job, now);
      return false;
    }
    // Still tracked (a sweep that listed it before the claim must not publish it again), but
    // leased: the sweep's over-fetch leaves it out.
    const tracked = this.#tracked.has(id);
    if (tracked) this.#sendingTracked.add(id);
    const sending = this.#send(job)
      .catch((err) => this.#deps.logger.error({ err, deliveryId: id }, 'send failed unexpectedly'))
      .finally(() => {
        this.#tracked.delete(id);
        this.#sendingTracked.delete(id);
        this.#inFlight.delete(sending);
        this.#deps.metrics.inFlight.set(this.#inFlight.size);
        this.#giveTurn(this.#gate.ended(entry));
        this.#finished();
      });
    this.#inFlight.add(sending);
    this.#deps.metrics.inFlight.set(this.#inFlight.size);
    return true;
  }

  /** Keeps `work` (a release) among what stop() waits for: the store closes after it. */
  #keepUntilStop(work: Promise<void>): void {
    this.#releasing.add(work);
    void work.finally(() => this.#releasing.delete(work));
  }

  /** A turn of an endpoint is free (see SendGate): its next waiting delivery is claimed again to take it. */
  #giveTurn({ endpointId, next, refill }: Turn): void {
    this.#deps.metrics.waiting.set(this.#gate.waiting);
    // Deliveries of this endpoint were left in the store while its queue was full: fetch them
    // (marked behind too, so a sweep already running is followed by another).
    if (refill && !this.#stopped) {
      this.#behind = true;
      void this.sweep();
    }
    if (next === undefined) return;
    // Called as another delivery's send ends: run in the waiting delivery's own trace, not that one.
    void context
      .with(next.trace, () => this.#admit(next.id, endpointId))
      .catch((err) => this.#deps.logger.error({ err, deliveryId: next.id }, 'attempt failed'))
      .finally(() => this.#gate.turnSettled(endpointId));
  }

  /** Sends a claimed delivery and records its attempt (unless the send was put off). */
  async #send(job: DeliveryJob): Promise<void> {
    const at = this.#deps.clock.now();
    const result = await this.#webhooks.send(job, at);
    if (result !== null) await this.#recorder.record(job, result, at);
  }
}
