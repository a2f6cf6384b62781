import type { Delivery, Endpoint } from './model.ts';

/** Why an open delivery is not being sent now; see docs/semantics.md › Delivery and message status. */
export type WaitingOn = { reason: 'lane'; sequence: number } | { reason: 'hold' } | { reason: 'rate_limit' } | { reason: 'paused' } | { reason: 'concurrency' };

/**
 * What an open delivery waits on, told from what the store already has — its lane_wait and
 * held flags and next_attempt_at, its endpoint's status, held_until and rate_limit — so the
 * send path writes nothing more. In order:
 * - `lane`: behind an earlier open delivery of its ordering key (`sequence`: its own place);
 * - `paused`: its endpoint is paused or disabled (held);
 * - `hold`: the receiver's Retry-After holds the endpoint until `held_until`, still ahead;
 * - due (`next_attempt_at` now or past) yet not sent: `rate_limit` when the endpoint has one,
 *   else `concurrency` (its connection slots, or a concurrency cut, are taken);
 * - a first attempt put off past its creation on an endpoint with a rate_limit: `rate_limit`
 *   (the limiter spaces what it refuses a second / rate_limit apart).
 * Otherwise null: done, or waiting for the scheduled time next_attempt_at names (a retry).
 * `endpoint` undefined: deleted (its deliveries end failed); null.
 */
export function waitingOn(d: Delivery, endpoint: Endpoint | undefined, now: number): WaitingOn | null {
  if ((d.status !== 'pending' && d.status !== 'retrying') || endpoint === undefined) return null;
  if (d.laneWait && d.sequence != null) return { reason: 'lane', sequence: d.sequence };
  if (d.held || endpoint.status !== 'active') return { reason: 'paused' };
  if (endpoint.heldUntil != null && endpoint.heldUntil > now) return { reason: 'hold' };
  if (d.nextAttemptAt === null) return null;
  const limited = endpoint.rateLimit != null;
  if (d.nextAttemptAt <= now) return limited ? { reason: 'rate_limit' } : { reason: 'concurrency' };
  if (limited && d.attemptCount === 0 && !d.manual && d.nextAttemptAt > d.createdAt) return { reason: 'rate_limit' };
  return null;
}
