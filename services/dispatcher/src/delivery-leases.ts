// Claiming and completing: the dispatcher's store calls on a delivery's lease, with what a
// failing store means for the delivery decided in one place.
import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { type Clock, type DeliveryId, type Tenant, tenantKey, UnavailableError } from '@wirehook/core';
import { OutageLog, type Logger } from '@wirehook/platform';
import { claimRef, MAX_CLAIM_BATCH, type AttemptOutcome, type ClaimResult, type CompletedAttempt, type DeliveryJob, type Store } from '@wirehook/store';
import type { DispatcherMetrics } from './metrics.ts';
import type { TenantHolds } from './tenant-holds.ts';

interface QueuedClaim {
  id: DeliveryId;
  now: number;
  /** The delivery's tenant when its wake-up named it: held if the store refuses the claim for overload. */
  tenant: Tenant | undefined;
  resolve: (job: DeliveryJob | null) => void;
}

export interface DeliveryLeasesDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  metrics: DispatcherMetrics;
  /** How long a claim holds a delivery; longer than the send timeout. */
  leaseMs: number;
  /**
   * How long a claimed delivery's send may take (its wait for a connection and its answer, a
   * timeout each, and the waits before it): a claim answered so late that its send could
   * outlive the lease is not sent. Default 0: only a claim answered after its lease ended.
   */
  sendMs?: number;
  /** Tenants whose new work waits while the store refuses their calls for overload (none when absent). */
  holds?: TenantHolds;
  /** A hold began, ending at `at`: the sweep that brings its tenant's deliveries back is asked for then. */
  wakeAt?: (at: number) => void;
}

/**
 * The dispatcher's store calls on a delivery's lease: claim it, give it back, complete it.
 * Their faults are handled here, once: no store error ends the process. A failed call is
 * counted (`wirehook_dispatch_store_errors_total`, a delivery each), logged as part of an
 * outage (its first error, then summaries, not a line per delivery) and answered as "nothing
 * happened": the sweeper finds the delivery again — once its lease runs out when the store may
 * have kept one, at once when it kept none (SQLite keeps no lease of a claim that failed). A
 * call refused for overload holds its tenant's new work back a while (TenantHolds).
 */
export class DeliveryLeases {
  readonly #deps: DeliveryLeasesDeps;
  /** Store calls failing (a database outage): logged once, then summarised, not once per delivery. */
  readonly #outage: OutageLog;
  /** Claims asked for during this turn of the event loop, made together at its end. */
  #claims: QueuedClaim[] = [];

  constructor(deps: DeliveryLeasesDeps) {
    this.#deps = deps;
    this.#outage = new OutageLog({
      logger: deps.logger,
      clock: deps.clock,
      what: 'store calls failing',
      deferred: "deliveries' store calls failed (the sweeper finds them again, once any lease they hold runs out)",
      consequence: 'the delivery is left to the sweeper (once any lease it holds runs out)',
    });
  }

  /**
   * Claims `id` at `now` (or the latest `now` of the claims made with it) for a lease's
   * length. @returns its job, or null when it is not claimable (done, not due, paused, or
   * claimed elsewhere) or the claim failed.
   */
  claim(id: DeliveryId, now: number, tenant?: Tenant): Promise<DeliveryJob | null> {
    // A store without claimMany (MongoDB) claims one at a time, each answered as it ends.
    if (this.#deps.store.deliveries.claimMany === undefined) return this.#claimOne(id, now, tenant);
    return new Promise((resolve) => {
      // The claims of one turn of the event loop (a sweep's page, a pull of wake-ups) go in
      // store calls of MAX_CLAIM_BATCH: one write of the group commit, and a fan-out's claims
      // of one message read and carry its payload once (docs/benchmarks.md, round four's
      // eighth session). Made outside any claimant's trace: the batch is no one delivery's.
      if (this.#claims.length === 0) setImmediate(() => context.with(ROOT_CONTEXT, () => this.#claimQueued()));
      this.#claims.push({ id, now, tenant, resolve });
    });
  }

  async #claimOne(id: DeliveryId, now: number, tenant: Tenant | undefined): Promise<DeliveryJob | null> {
    const sentAt = this.#deps.clock.now();
    try {
      const job = await this.#deps.store.deliveries.claim(id, now, now + this.#deps.leaseMs);
      return job === null ? null : this.#inTime(job, now + this.#deps.leaseMs);
    } catch (err) {
      this.#failed('claim', err, 1, { deliveryId: id });
      if (tenant !== undefined) this.#holdIfOverloaded(tenant, err, sentAt);
      return null;
    }
  }

  #claimQueued(): void {
    const claims = this.#claims;
    this.#claims = [];
    for (let i = 0; i < claims.length; i += MAX_CLAIM_BATCH) {
      void this.#claimBatch(claims.slice(i, i + MAX_CLAIM_BATCH)).catch((err: unknown) => this.#deps.logger.error({ err }, 'claims failed'));
    }
  }

  /** Claims `claims` in one store call; every one is answered, whatever fails (null: nothing claimed). */
  async #claimBatch(claims: QueuedClaim[]): Promise<void> {
    const answers = new Map<number, DeliveryJob>();
    const sentAt = this.#deps.clock.now();
    try {
      // Asked a moment ago: claimed as of the latest of those moments (due by then, leased from then).
      const now = Math.max(...claims.map((c) => c.now));
      const results = await this.#deps.store.deliveries.claimMany!(
        claims.map((c) => c.id),
        now,
        now + this.#deps.leaseMs,
      );
      if (!Array.isArray(results) || results.length !== claims.length) {
        throw new Error(`the store answered ${Array.isArray(results) ? results.length : typeof results} for ${claims.length} claims`);
      }
      results.forEach((result: ClaimResult, i) => {
        if (result === null) return;
        if ('failed' in result) this.#failed('claim', new Error(result.failed), 1, { deliveryId: claims[i]!.id });
        else if (this.#inTime(result, now + this.#deps.leaseMs) !== null) answers.set(i, result);
      });
    } catch (err) {
      answers.clear(); // an answer that does not add up is no answer: their leases run out
      this.#failed('claim', err, claims.length, { deliveries: claims.length });
      const tenants = new Map(claims.flatMap((c) => (c.tenant === undefined ? [] : [[tenantKey(c.tenant), c.tenant] as const])));
      for (const tenant of tenants.values()) this.#holdIfOverloaded(tenant, err, sentAt);
    } finally {
      // A claim without an answer would hold its attempt's place for ever.
      claims.forEach((claim, i) => claim.resolve(answers.get(i) ?? null));
    }
  }

  /**
   * `job` when its claim was answered in time for its send to end within the lease, else null,
   * counted as a failed claim: nothing is sent, and its lease is given back, due again later. A claim the store
   * was slow to answer (MongoDB: a failover, a majority slow to hold it, a queue for the pool)
   * must not send while a second dispatcher may hold it.
   */
  #inTime(job: DeliveryJob, leaseUntil: number): DeliveryJob | null {
    const now = this.#deps.clock.now();
    const over = now + (this.#deps.sendMs ?? 0) - leaseUntil;
    if (over <= 0) return job;
    this.#failed('claim', new Error(`claim answered too late to send within its lease (${over} ms over)`), 1, { deliveryId: job.delivery.id });
    // Given back (under this claim's token: one that lost a race changes nothing), due again as
    // long from now as the answer was late: a store that slow is not asked for the same claim
    // at every sweep, and the delivery need not wait for the whole lease either. A lease at most:
    // a wall clock stepping forward during the call reads as lateness too (an hour's step had
    // put the delivery off an hour more).
    void this.release(job, now + Math.min(over, this.#deps.leaseMs));
    return null;
  }

  /** Gives the lease of `job` back, due at `at`; failing that, the lease runs out and the sweeper finds it then. */
  async release(job: DeliveryJob, at: number): Promise<void> {
    const sentAt = this.#deps.clock.now();
    try {
      await this.#deps.store.deliveries.release(claimRef(job), at);
    } catch (err) {
      this.#failed('release', err, 1, { deliveryId: job.delivery.id });
      this.#holdIfOverloaded(job.tenant, err, sentAt);
    }
  }

  /**
   * Writes the attempt and its outcome under `job`'s lease. @returns what the store did, or
   * null when it could not be written: the lease runs out and the delivery is sent again (its
   * attempt may be on record already: MongoDB writes it first). A MongoDB write a majority has not
   * confirmed in time is null too: it stands on the primary, and the delivery is sent again only if
   * a failover rolls it back.
   */
  async complete(job: DeliveryJob, outcome: AttemptOutcome): Promise<CompletedAttempt | null> {
    const sentAt = this.#deps.clock.now();
    try {
      const completed = await this.#deps.store.deliveries.complete(claimRef(job), outcome);
      // A written attempt is what ends an outage (claims and releases alone do not), and its tenant's holds.
      this.#outage.succeeded();
      this.#deps.holds?.completed(job.tenant);
      return completed;
    } catch (err) {
      this.#failed('complete', err, 1, { deliveryId: job.delivery.id });
      this.#holdIfOverloaded(job.tenant, err, sentAt);
      return null;
    }
  }

  /**
   * `tenant`'s call, sent at `sentAt`, failed: when for overload, its new work is held (TenantHolds),
   * and a sweep asked for at the hold's end. (A claim's tenant is known when whoever asked named it:
   * the sweep's and intake's wake-ups, a lane's next, a parked delivery's turn.)
   */
  #holdIfOverloaded(tenant: Tenant, err: unknown, sentAt: number): void {
    if (!(err instanceof UnavailableError && err.overloaded) || this.#deps.holds === undefined) return;
    const until = this.#deps.holds.overloaded(tenant, sentAt);
    if (until === null) return;
    this.#deps.metrics.tenantHolds.inc();
    this.#deps.wakeAt?.(until);
  }

  #failed(operation: 'claim' | 'release' | 'complete', err: unknown, count: number, fields: Record<string, unknown>): void {
    this.#deps.metrics.storeErrors.inc({ operation }, count);
    this.#outage.failed(err, count, { operation, ...fields });
  }
}
