import type { DeliveryId, EndpointId, EndpointStatus, Tenant } from '@wirehook/core';
import { ENDPOINT_WALK_BATCH } from '@wirehook/core/without-schemas';
import { attemptEffects, type AttemptAlert, type AttemptEffects, type EndpointAtCompletion } from '../attempt-effects.ts';
import { recordWalk, walkBatch } from './endpoint-walk.ts';
import type { AttemptOutcome, ClaimRef, CompletedAttempt } from '../ports/delivery-port.ts';
import type { SqliteConnection } from './connection.ts';
import { addToRollups } from './endpoint-stats-repo.ts';
import { OPEN, refreshAtBatchEnd } from './message-status.ts';
import { laneHead } from './ordered-lanes.ts';
import { keepRecentAttempt } from './recent-attempts.ts';
import { intOrNull, text, textOrNull } from './row.ts';

/**
 * The outcome on a delivery still open under this claim; a re-send asked for during this send
 * (`resend`) keeps it due now, manual. Built once (SqliteConnection.statement says why).
 */
const APPLY_OUTCOME = `UPDATE deliveries
  SET status = CASE WHEN resend = 1 THEN 'retrying' ELSE ? END,
      next_attempt_at = CASE WHEN resend = 1 THEN ? ELSE ? END,
      manual = resend, resend = 0,
      attempt_count = attempt_count + 1,
      policy_attempts = policy_attempts + ?, lease_until = NULL,
      held = ?
  WHERE org_id = ? AND env = ? AND id = ? AND lease_token = ? AND ${OPEN} RETURNING message_id, status, ordering_key, manual`;

/**
 * DeliveryRepo.complete: the attempt (and its endpoint's rollups), the delivery's new state,
 * its message's status and the endpoint's failure streak, in one transaction (a group commit, undone alone if it throws;
 * the rollups and the message's status written once for the whole batch at its end).
 * The state is written only while the claim is current and the delivery open; otherwise
 * only the attempt (it happened) and the delivery's attempt count.
 */
export function completeDelivery(conn: SqliteConnection, claim: ClaimRef, outcome: AttemptOutcome): Promise<CompletedAttempt> {
  return conn.batched(() => {
    const { tenant: t, deliveryId, endpointId, leaseToken } = claim;
    const a = outcome.attempt;
    conn
      .statement(
        `INSERT INTO attempts (id, org_id, env, delivery_id, endpoint_id, at, response_status, response_head,
                               duration_ms, error, via, via_listen, source_ip, url)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      // `via` keeps its original CHECK: a listener's attempt is 'direct' with via_listen (schema step 29 says why).
      .run(
        a.id,
        t.orgId,
        t.env,
        deliveryId,
        a.endpointId,
        a.at,
        a.responseStatus,
        a.responseHead,
        a.durationMs,
        a.error,
        a.via === 'listen' ? 'direct' : a.via,
        a.via === 'listen' ? 1 : 0,
        a.sourceIp,
        a.url,
      );
    // Every attempt counts in the endpoint's health, whether or not its outcome applies.
    addToRollups(conn, t, a);
    const endpointRow = conn.statement('SELECT status, failing_since FROM endpoints WHERE org_id = ? AND env = ? AND id = ?').get(t.orgId, t.env, endpointId);
    const endpoint: EndpointAtCompletion | null =
      endpointRow === undefined ? null : { status: text(endpointRow, 'status') as EndpointStatus, failingSince: intOrNull(endpointRow, 'failing_since') };
    // Among its endpoint's newest until newer ones push it out; a deleted endpoint's (a send
    // that outlived the delete) would only make its row again, which nothing reads.
    if (endpoint !== null) keepRecentAttempt(conn, a.endpointId, a.at, a.id);
    const updated = conn
      .statement(APPLY_OUTCOME)
      .get(
        outcome.status,
        a.at,
        outcome.nextAttemptAt,
        outcome.countsTowardPolicy ? 1 : 0,
        endpoint?.status === 'active' ? 0 : 1,
        t.orgId,
        t.env,
        deliveryId,
        leaseToken,
      );
    if (updated === undefined) {
      // Claimed again since (this send outlived its lease), or failed with its endpoint:
      // the newer state stands. The attempt is on record and counted.
      const { changes } = conn
        .statement('UPDATE deliveries SET attempt_count = attempt_count + 1 WHERE org_id = ? AND env = ? AND id = ?')
        .run(t.orgId, t.env, deliveryId);
      if (changes === 0) throw new Error(`delivery ${deliveryId} vanished while it was being completed`);
      return { applied: false, endpointDisabled: false };
    }
    // `manual` after the update is the re-send asked for during the send (`resend`).
    const effects = attemptEffects(outcome, Number(updated['manual']) === 1, endpoint);
    carryOut(conn, t, endpointId, a, effects, outcome.endpoint.disabledReason ?? null);
    refreshAtBatchEnd(conn, text(updated, 'message_id'));
    // Its end moved its lane on (trigger deliveries_lane_end): name the new head to wake it.
    const key = textOrNull(updated, 'ordering_key');
    const next = key === null || !effects.handOver ? null : laneHead(conn, endpointId, key);
    return { applied: true, endpointDisabled: effects.disable, ...(next !== null && next !== deliveryId ? { laneNext: next as DeliveryId } : {}) };
  });
}

/**
 * Writes what attemptEffects decided: the endpoint's streak, its disabling (its open deliveries
 * fail: the first batch here, this one included, the rest by the walk — no bound in time: a
 * delivery made while this attempt ran is the endpoint's too, none is made while it is
 * disabled; leaving `disabled` bounds the walk at that moment, endFailAt), and the alert events.
 */
function carryOut(
  conn: SqliteConnection,
  t: Tenant,
  endpointId: EndpointId,
  a: AttemptOutcome['attempt'],
  effects: AttemptEffects,
  reason: string | null,
): void {
  if (effects.streak === 'clear')
    conn.statement('UPDATE endpoints SET failing_since = NULL WHERE org_id = ? AND env = ? AND id = ?').run(t.orgId, t.env, endpointId);
  if (effects.streak === 'start')
    conn
      .statement('UPDATE endpoints SET failing_since = ? WHERE org_id = ? AND env = ? AND id = ? AND failing_since IS NULL')
      .run(a.at, t.orgId, t.env, endpointId);
  if (effects.disable) {
    conn
      .statement("UPDATE endpoints SET status = 'disabled', disabled_reason = ? WHERE org_id = ? AND env = ? AND id = ?")
      .run(reason, t.orgId, t.env, endpointId);
    recordWalk(conn, t, endpointId, 'fail');
    walkBatch(conn, endpointId, a.at, ENDPOINT_WALK_BATCH);
  }
  // The outbox of notices: what this attempt did that an organization may be told of.
  for (const kind of effects.alerts) addAlertEvent(conn, t, kind, endpointId, a);
}

function addAlertEvent(conn: SqliteConnection, t: Tenant, kind: AttemptAlert, endpointId: EndpointId, a: AttemptOutcome['attempt']): void {
  conn
    // One queued event per endpoint and kind: a repeat while it waits (a flood) is collapsed into it.
    .statement(
      `INSERT INTO alert_events (org_id, env, kind, endpoint_id, at, error, response_status, delivery_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (endpoint_id, kind) DO NOTHING`,
    )
    .run(t.orgId, t.env, kind, endpointId, a.at, a.error, a.responseStatus, a.deliveryId);
}
