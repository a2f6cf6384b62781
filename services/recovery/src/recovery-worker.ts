import { DISPATCH_SUBJECT, dispatchJobHeaders, encodeDispatchJob, type Bus } from '@wirehook/bus';
import { RECOVERY_BATCH, RECOVERY_INTERVAL_MS, type Clock } from '@wirehook/core';
import { OutageLog, type Component, type Logger } from '@wirehook/platform';
import type { RecoveryLease, Store } from '@wirehook/store';
import { Counter, Gauge, type Registry } from 'prom-client';

export interface RecoveryWorkerOptions {
  store: Store;
  bus: Bus;
  clock: Clock;
  logger: Logger;
  registry?: Registry;
  /** How often the worker looks for work and paces what it holds (real time). */
  tickMs?: number;
  /** How long a recovery stays this worker's without a step (another takes it after). */
  leaseMs?: number;
  /** A batch waits while the endpoint has this many deliveries due or being sent (ENDPOINT_SLOTS). */
  endpointSlots: number;
  /** At most this many recoveries driven at once by this worker. */
  maxRecoveries?: number;
  /** One process owns the store (embedded mode): leases left at start are a dead run's. */
  releaseLeasesAtStart: boolean;
}

const DEFAULT_TICK_MS = 1_000;
const DEFAULT_LEASE_MS = 60_000;
const DEFAULT_MAX_RECOVERIES = 64;

/**
 * Drives running recoveries: takes each under a lease, and every 10 s queues its next 50
 * targets (waiting while the endpoint's slots are full) as dispatch work, until it is done
 * or its endpoint is paused or deleted. The pace is counted in the store (`lastBatchAt`), so
 * a worker that takes over a recovery — after a crash, or a restart — keeps it; each step
 * is one transaction fenced by the lease, so no batch goes twice.
 */
export class RecoveryWorker implements Component {
  readonly name = 'recovery-worker';
  readonly #o: Required<Omit<RecoveryWorkerOptions, 'registry'>>;
  readonly #held = new Map<string, RecoveryLease>();
  readonly #queued: Counter;
  readonly #running: Gauge;
  readonly #storeOutage: OutageLog;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #stopped = false;

  constructor(options: RecoveryWorkerOptions) {
    // `??`, not defaults spread under the options: a caller's explicit `tickMs: undefined`
    // (the factory passes its own optional one on) would override a spread default, and a
    // setTimeout of undefined polls the store a thousand times a second.
    this.#o = {
      ...options,
      tickMs: options.tickMs ?? DEFAULT_TICK_MS,
      leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
      maxRecoveries: options.maxRecoveries ?? DEFAULT_MAX_RECOVERIES,
    } as Required<Omit<RecoveryWorkerOptions, 'registry'>>;
    const registers = options.registry ? [options.registry] : [];
    this.#queued = new Counter({ name: 'wirehook_recovery_queued_total', help: 'Deliveries re-queued by recoveries', registers });
    this.#running = new Gauge({ name: 'wirehook_recovery_driven', help: 'Recoveries this worker drives right now', registers });
    this.#storeOutage = new OutageLog({
      logger: options.logger,
      clock: options.clock,
      what: 'recovery store calls failing',
      deferred: 'recovery steps put off',
      consequence: 'recoveries wait; their progress is in the store',
    });
  }

  async start(): Promise<void> {
    if (this.#o.releaseLeasesAtStart) await this.#o.store.recoveries.releaseAll();
    const loop = () => {
      if (this.#stopped) return;
      this.#timer = setTimeout(() => {
        void this.tick().finally(loop);
      }, this.#o.tickMs);
    };
    loop();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#ticking;
    // Hand back what is held: another worker (or the next start) takes over at once.
    await Promise.allSettled([...this.#held.values()].map((lease) => this.#o.store.recoveries.release(lease)));
    this.#held.clear();
  }

  /** One round: take free recoveries, then step each one whose time has come. Tests call it with the clock moved. */
  tick(): Promise<void> {
    this.#ticking ??= this.#tick().finally(() => (this.#ticking = undefined));
    return this.#ticking;
  }

  async #tick(): Promise<void> {
    const { store, clock } = this.#o;
    try {
      while (!this.#stopped && this.#held.size < this.#o.maxRecoveries) {
        const now = clock.now();
        const lease = await store.recoveries.claim(now, now + this.#o.leaseMs);
        if (lease === null) break;
        this.#held.set(lease.recovery.id, lease);
      }
      for (const lease of [...this.#held.values()]) {
        // Stopping: the rest wait for the next worker (each step's wake-ups may wait out a NATS outage, and the stop has its deadline).
        if (this.#stopped) break;
        await this.#step(lease);
      }
      this.#storeOutage.succeeded();
    } catch (err) {
      this.#storeOutage.failed(err);
    }
    this.#running.set(this.#held.size);
  }

  async #step(lease: RecoveryLease): Promise<void> {
    const { store, clock, bus, logger } = this.#o;
    const now = clock.now();
    // Not yet. The lease (a minute) outlasts the pace (10 s): every step extends it.
    if (lease.lastBatchAt !== null && now < lease.lastBatchAt + RECOVERY_INTERVAL_MS) return;
    const step = await store.recoveries.step(lease, now, RECOVERY_BATCH, this.#o.endpointSlots, now + this.#o.leaseMs);
    if (!step.applied) {
      this.#held.delete(lease.recovery.id); // another worker has it now
      return;
    }
    if (step.queuedIds.length > 0) {
      this.#queued.inc(step.queuedIds.length);
      // Wake-ups are hints: a lost one is found by the dispatchers' sweep (the deliveries are due now).
      const headers = dispatchJobHeaders(lease.tenant);
      await Promise.allSettled(step.queuedIds.map((id) => bus.publish(DISPATCH_SUBJECT, encodeDispatchJob(id), { headers })));
    }
    const { recovery } = step;
    if (recovery.status !== 'running') {
      this.#held.delete(recovery.id);
      logger.info(
        { recoveryId: recovery.id, endpointId: recovery.endpointId, status: recovery.status, total: recovery.total, queued: recovery.queued },
        `recovery ${recovery.status}`,
      );
      return;
    }
    // Waiting for free slots leaves lastBatchAt as it was: the next tick tries again.
    this.#held.set(recovery.id, {
      ...lease,
      recovery,
      lastBatchAt: step.queuedIds.length > 0 || recovery.queued > lease.recovery.queued ? now : lease.lastBatchAt,
    });
  }
}
