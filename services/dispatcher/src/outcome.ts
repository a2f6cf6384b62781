import { DISABLE_AFTER_MS, isCancelledAttempt, nextAttemptAt, type AttemptId, type AttemptVia } from '@wirehook/core';
import type { SendResult as EgressResult } from '@wirehook/egress';
import type { AttemptOutcome, DeliveryJob } from '@wirehook/store';

export const DISABLED_REASON_FAILING = 'failing_5_days';

/** What one POST did, as the egress client reports it; `url`: where it went, when a transformation moved it from the endpoint's. */
export type SendResult = EgressResult & { url?: string };

/**
 * The pure decision after an attempt: success on 2xx, and on a cancel by the endpoint's
 * transformation (nothing was to be sent; the endpoint's failure streak is left as it is);
 * otherwise the next policy re-send, or `failed` when none is left. A manual re-send does not use up the policy: when it
 * fails, the delivery falls back to where its schedule stood.
 */
export function decideOutcome(job: DeliveryJob, result: SendResult, attempt: { id: AttemptId; at: number; via: AttemptVia }): AttemptOutcome {
  const countsTowardPolicy = !job.delivery.manual;
  const policyAttempts = job.delivery.policyAttempts + (countsTowardPolicy ? 1 : 0);
  const cancelled = isCancelledAttempt(result);
  const done = result.ok || cancelled;
  const next = done ? null : nextAttemptAt(job.endpoint.retry, Math.max(policyAttempts, 1), attempt.at);
  return {
    attempt: {
      id: attempt.id,
      deliveryId: job.delivery.id,
      endpointId: job.endpoint.id,
      at: attempt.at,
      responseStatus: result.status,
      responseHead: result.responseHead,
      durationMs: result.durationMs,
      error: result.error,
      via: attempt.via,
      sourceIp: result.sourceIp,
      url: result.url ?? job.endpoint.url,
    },
    status: done ? 'success' : next === null ? 'failed' : 'retrying',
    nextAttemptAt: next,
    countsTowardPolicy,
    endpoint: result.ok
      ? { succeeded: true }
      : cancelled || isOurFault(result)
        ? { succeeded: null } // a cancel (nothing sent), or our fault (retried as usual): neither moves the endpoint's 5-day stop
        : { succeeded: false, disableIfFailingSince: attempt.at - DISABLE_AFTER_MS, disabledReason: DISABLED_REASON_FAILING },
  };
}

/** A failure on our side of the wire (the egress relay down or without a source address): the customer is not at fault. */
export function isOurFault(result: Pick<SendResult, 'error'>): boolean {
  return result.error?.startsWith('relay:') === true;
}

/**
 * The outcome of an attempt answered 429 or 503 with a Retry-After naming `until`: its
 * next attempt at the later of the policy's time and `until` (a delivery with no attempt left
 * still fails), and the endpoint's failure streak left as it is — the receiver asked to be
 * slowed down, which starts, ends and extends no streak and never disables it.
 */
export function withHold(outcome: AttemptOutcome, until: number): AttemptOutcome {
  const nextAttemptAt = outcome.nextAttemptAt === null ? null : Math.max(outcome.nextAttemptAt, until);
  return { ...outcome, nextAttemptAt, endpoint: { succeeded: null } };
}
