import type { DeliveryStatus, EndpointStatus } from '@wirehook/core';
import type { AttemptOutcome } from './ports/delivery-port.ts';

// What an attempt's completion does beyond recording it, decided once for both adapters
// (sqlite/delivery-complete.ts carries it out in its transaction; mongo/delivery-complete.ts in one
// too, or — when it changes nothing but the delivery — in one write of it): the delivery's final status, the endpoint's failure streak, the automatic
// disable (issue: an endpoint failing for 5 days), the alert events an organization may be told
// of, and whether the delivery's ordered lane moves on.

/** An alert event a completion queues (the outbox the alerting engine drains). */
export type AttemptAlert = 'failing' | 'exhausted' | 'disabled';

/** The endpoint as the completion read it (in its transaction, or just before its plain write); null when it was deleted meanwhile. */
export interface EndpointAtCompletion {
  status: EndpointStatus;
  failingSince: number | null;
}

export interface AttemptEffects {
  /** The delivery's status after this attempt. */
  status: DeliveryStatus;
  /** The endpoint's failure streak: begins at this attempt, ends, or stays as it is. */
  streak: 'start' | 'clear' | 'keep';
  /** The endpoint becomes `disabled` now, and all its open deliveries fail (this one included). */
  disable: boolean;
  /** Events to queue, in this order. */
  alerts: AttemptAlert[];
  /** The delivery ended (not retrying): its ordered lane's next becomes the head. */
  handOver: boolean;
}

/**
 * The effects of an applied attempt (its claim current, its delivery open): `resend` when a
 * manual re-send was asked for during the send (the delivery stays due now, retrying, whatever
 * the outcome).
 */
export function attemptEffects(outcome: AttemptOutcome, resend: boolean, endpoint: EndpointAtCompletion | null): AttemptEffects {
  const at = outcome.attempt.at;
  const sent = resend ? 'retrying' : outcome.status;
  const verdict = outcome.endpoint;
  const alerts: AttemptAlert[] = [];
  let streak: AttemptEffects['streak'] = 'keep';
  let disable = false;
  // succeeded null: our fault (the egress relay), the endpoint's record is left as it is.
  if (endpoint !== null && verdict.succeeded === true && endpoint.failingSince !== null) streak = 'clear';
  if (endpoint !== null && verdict.succeeded === false) {
    if (endpoint.failingSince === null) {
      streak = 'start';
      alerts.push('failing');
    }
    const since = endpoint.failingSince ?? at;
    disable = endpoint.status === 'active' && verdict.disableIfFailingSince !== undefined && since <= verdict.disableIfFailingSince;
  }
  if (sent === 'failed' && !resend) alerts.push('exhausted');
  if (disable) alerts.push('disabled');
  // Disabled now: its open deliveries fail, this one too when it would have been retried.
  const status = disable && sent === 'retrying' ? 'failed' : sent;
  return { status, streak, disable, alerts, handOver: status !== 'retrying' };
}
