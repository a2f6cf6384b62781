import type { DeliveryId, EndpointId, Recovery, RecoveryId, Tenant } from '@wirehook/core';

/**
 * A recovery's targets are read up to its start plus this: a delivery made after it was not failed at the
 * start (without the bound, deliveries failing faster than the pace would fill every batch and
 * the recovery would never end); the margin covers intake's and the starter's clocks
 * disagreeing. One made inside it and failed is skipped by rule 4 (attempted after the start).
 */
export const START_SKEW_MS = 60_000;

/** A recovery to start: the store counts its targets as it writes it (they are read as it goes). */
export interface NewRecovery {
  id: RecoveryId;
  endpointId: EndpointId;
  since: number;
  createdAt: number;
}

/** A running recovery taken by one worker until `leaseUntil`, fenced by `leaseToken`. */
export interface RecoveryLease {
  tenant: Tenant;
  recovery: Recovery;
  leaseToken: number;
  /** When its last batch was queued (null: none yet): the pace is counted from it. */
  lastBatchAt: number | null;
}

/** What the next step of a recovery did. */
export interface RecoveryStep {
  recovery: Recovery;
  /** Deliveries made due now by this step: wake the dispatchers for them. */
  queuedIds: DeliveryId[];
  /** False when the lease was no longer this worker's (another took the recovery): nothing was written. */
  applied: boolean;
}

/**
 * Recoveries (spec: Start a recovery). Progress lives here, so a recovery survives any
 * process: one worker at a time drives it under a lease, and each step is one transaction
 * fenced by the lease token, so two workers can never queue the same batch twice.
 */
export interface RecoveryRepo {
  /**
   * In one transaction: checks the endpoint is `active` and has no running recovery, and
   * counts its `failed` deliveries of messages created at or after `since`: the targets, read
   * batch by batch by `step` (those attempted after the start skipped: spec, recover rule 4).
   * @throws NotFoundError when the tenant has no such endpoint; ConflictError when it is not
   * active or a recovery already runs on it.
   */
  start(t: Tenant, input: NewRecovery): Promise<Recovery>;
  get(t: Tenant, endpointId: EndpointId, id: RecoveryId): Promise<Recovery | null>;
  /** The endpoint's most recent recovery, or null. */
  latest(t: Tenant, endpointId: EndpointId): Promise<Recovery | null>;
  /** Takes the lease of one running recovery whose lease is free or expired at `now`. @returns null when none. */
  claim(now: number, leaseUntil: number): Promise<RecoveryLease | null>;
  /**
   * The next step of a leased recovery, while its lease is current: when its endpoint is no
   * longer active it ends `stopped`; when the endpoint has `maxOutstanding` or more
   * deliveries due or being sent, nothing is queued (it waits for free slots); else the next
   * `batch` failed targets after its cursor are met: each not attempted since the start
   * becomes due now (`retrying`, its retry policy counted afresh), the others are skipped;
   * `queued` grows by those met; when fewer than `batch` are left it ends `done` with
   * `queued` = `total`. The lease is extended to `leaseUntil`.
   */
  step(lease: RecoveryLease, now: number, batch: number, maxOutstanding: number, leaseUntil: number): Promise<RecoveryStep>;
  /** Gives the lease back (a worker stopping). */
  release(lease: RecoveryLease): Promise<void>;
  /** Ends the endpoint's running recovery as `stopped` (paused or deleted). @returns whether one was running. */
  stop(t: Tenant, endpointId: EndpointId, now: number): Promise<boolean>;
  /** Frees every lease (embedded mode at start). */
  releaseAll(): Promise<number>;
}
