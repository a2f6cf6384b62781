// Completing: what an attempt did, decided (retry, fail, success), written under the lease,
// counted and logged.
import { newId, type Clock, type DeliveryId, type Tenant } from '@wirehook/core';
import type { Logger } from '@wirehook/platform';
import type { DeliveryJob } from '@wirehook/store';
import type { DeliveryLeases } from './delivery-leases.ts';
import { outcomeLabel, type DispatcherMetrics } from './metrics.ts';
import { decideOutcome, withHold, type SendResult } from './outcome.ts';
import { retryAfterUntil } from './retry-after.ts';

export interface AttemptRecorderDeps {
  leases: DeliveryLeases;
  clock: Clock;
  logger: Logger;
  metrics: DispatcherMetrics;
  /**
   * Wakes a delivery at once: the next of an ordered lane whose head this completion
   * ended, so a lane moves at the pace of its sends, not of the sweep. Optional (tests).
   */
  wake?: (id: DeliveryId, tenant: Tenant) => void;
  /** Holds the job's endpoint until `until` (a receiver's Retry-After), for every dispatcher. Optional (tests). */
  hold?: (job: DeliveryJob, until: number) => Promise<void>;
}

/**
 * The end of an attempt: its outcome decided (retry, fail or success, by `decideOutcome`),
 * written with the attempt under the delivery's lease (the attempt first, or with it), then counted and logged.
 * A write that fails leaves the delivery to its lease (see DeliveryLeases); one that finds the
 * lease gone (claimed again, or closed) keeps the attempt and leaves the newer state standing.
 */
export class AttemptRecorder {
  readonly #deps: AttemptRecorderDeps;

  constructor(deps: AttemptRecorderDeps) {
    this.#deps = deps;
  }

  /**
   * Records what the send of `job`, started at `at`, did. `held` is called once a Retry-After's
   * hold is written (at once without one), before the attempt is: the caller may then hand the
   * endpoint's turn on, and the send that takes it sees the hold.
   */
  async record(job: DeliveryJob, result: SendResult, at: number, held?: () => void): Promise<void> {
    const { leases, clock, logger, metrics } = this.#deps;
    const via = job.endpoint.type === 'listen' ? 'listen' : job.endpoint.fixedIp ? 'relay' : 'direct';
    const decided = decideOutcome(job, result, { id: newId('attempt', clock), at, via });
    // A 429 or 503 with Retry-After: every send to the endpoint waits until then (held first,
    // so sends claimed meanwhile see it), this delivery's next attempt too.
    const holdUntil = retryAfterUntil(result.status, result.retryAfter, clock.now());
    if (holdUntil !== null) await this.#hold(job, holdUntil);
    held?.();
    const outcome = holdUntil === null ? decided : withHold(decided, holdUntil);
    metrics.attempts.inc({ outcome: outcomeLabel(result), via });
    const completed = await leases.complete(job, outcome);
    if (completed === null) return; // not written: the lease runs out and the delivery is sent again (at least once)
    if (completed.laneNext !== undefined) this.#deps.wake?.(completed.laneNext, job.tenant);
    if (!completed.applied) {
      metrics.staleCompletions.inc();
      logger.warn(
        { deliveryId: job.delivery.id, leaseToken: job.leaseToken },
        'attempt recorded, but the delivery was claimed again or closed meanwhile; its newer state stands',
      );
    }
    metrics.attemptDuration.observe(result.durationMs / 1000);
    if (result.ok) metrics.deliveryLatency.observe(Math.max(0, clock.now() - job.message.createdAt) / 1000);
    // Failures at info (an operator follows a customer's outage), successes at debug (the bulk).
    const fields = {
      deliveryId: job.delivery.id,
      messageId: job.message.id,
      endpointId: job.endpoint.id,
      orgId: job.tenant.orgId,
      status: outcome.status,
      responseStatus: result.status,
      error: result.error,
      durationMs: result.durationMs,
      nextAttemptAt: outcome.nextAttemptAt,
      endpointDisabled: completed.endpointDisabled,
    };
    if (result.ok) logger.debug(fields, 'delivered');
    else if (outcome.status === 'success') logger.debug(fields, "cancelled by the endpoint's transformation; nothing sent");
    else logger.info(fields, outcome.status === 'failed' ? 'delivery failed; no attempt left' : 'attempt failed; retrying');
  }

  /** A hold that cannot be written is logged; the delivery's own next attempt still waits (withHold). */
  async #hold(job: DeliveryJob, until: number): Promise<void> {
    try {
      await this.#deps.hold?.(job, until);
    } catch (err) {
      this.#deps.logger.error({ err, endpointId: job.endpoint.id }, "could not hold the endpoint for its receiver's Retry-After");
    }
  }
}
