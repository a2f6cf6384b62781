import { ENDPOINT_WALK_BATCH, type DeliveryId, type EndpointId, type Tenant } from '@wirehook/core';
import { recordWalk, walkBatch } from './endpoint-walk.ts';
import type { AttemptOutcome, ClaimRef, CompletedAttempt } from '../ports/delivery-port.ts';
import type { SqliteConnection } from './connection.ts';
import { addToRollups } from './endpoint-stats-repo.ts';
import { OPEN, refreshMessageStatuses } from './message-status.ts';
import { laneHead } from './ordered-lanes.ts';
import { intOrNull, text, textOrNull } from './row.ts';

/**
 * DeliveryRepo.complete: the attempt (and its endpoint's rollups), the delivery's new state,
 * its message's status and the endpoint's failure streak, in one transaction (a group commit, in its own savepoint).
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
                               duration_ms, error, via, source_ip, url)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(a.id, t.orgId, t.env, deliveryId, a.endpointId, a.at, a.responseStatus, a.responseHead, a.durationMs, a.error, a.via, a.sourceIp, a.url);
    // Every attempt counts in the endpoint's health, whether or not its outcome applies.
    addToRollups(conn, t, a);
    // A re-send asked for during this send (`resend`) keeps the delivery due now, manual.
    const updated = conn
      .statement(
        `UPDATE deliveries
         SET status = CASE WHEN resend = 1 THEN 'retrying' ELSE ? END,
             next_attempt_at = CASE WHEN resend = 1 THEN ? ELSE ? END,
             manual = resend, resend = 0,
             attempt_count = attempt_count + 1,
             policy_attempts = policy_attempts + ?, lease_until = NULL,
             held = NOT EXISTS (SELECT 1 FROM endpoints e WHERE e.id = deliveries.endpoint_id AND e.status = 'active')
         WHERE org_id = ? AND env = ? AND id = ? AND lease_token = ? AND ${OPEN} RETURNING message_id, status, ordering_key`,
      )
      .get(outcome.status, a.at, outcome.nextAttemptAt, outcome.countsTowardPolicy ? 1 : 0, t.orgId, t.env, deliveryId, leaseToken);
    if (updated === undefined) {
      // Claimed again since (this send outlived its lease), or failed with its endpoint:
      // the newer state stands. The attempt is on record and counted.
      const { changes } = conn
        .statement('UPDATE deliveries SET attempt_count = attempt_count + 1 WHERE org_id = ? AND env = ? AND id = ?')
        .run(t.orgId, t.env, deliveryId);
      if (changes === 0) throw new Error(`delivery ${deliveryId} vanished while it was being completed`);
      return { applied: false, endpointDisabled: false };
    }
    refreshMessageStatuses(conn, [text(updated, 'message_id')]);
    const endpointDisabled = updateEndpoint(conn, t, endpointId, a.at, outcome.endpoint, a);
    // The outbox of notices: what this attempt did that an organization may be told of.
    if (outcome.status === 'failed' && text(updated, 'status') === 'failed') addAlertEvent(conn, t, 'exhausted', endpointId, a);
    if (endpointDisabled) addAlertEvent(conn, t, 'disabled', endpointId, a);
    // Its end moved its lane on (trigger deliveries_lane_end): name the new head to wake it.
    const key = textOrNull(updated, 'ordering_key');
    const next = key === null || text(updated, 'status') === 'retrying' ? null : laneHead(conn, endpointId, key);
    return { applied: true, endpointDisabled, ...(next !== null && next !== deliveryId ? { laneNext: next as DeliveryId } : {}) };
  });
}

/** Moves the endpoint's failure streak; disables it when the streak is old enough. @returns whether it was disabled now. */
function updateEndpoint(
  conn: SqliteConnection,
  t: Tenant,
  endpointId: EndpointId,
  at: number,
  outcome: AttemptOutcome['endpoint'],
  attempt: AttemptOutcome['attempt'],
): boolean {
  const tenantId = 'org_id = ? AND env = ? AND id = ?';
  if (outcome.succeeded === null) return false; // our fault (the relay): the endpoint's record is left as it is
  if (outcome.succeeded) {
    // Most successes follow successes: no streak to clear, no row to write.
    conn.statement(`UPDATE endpoints SET failing_since = NULL WHERE ${tenantId} AND failing_since IS NOT NULL`).run(t.orgId, t.env, endpointId);
    return false;
  }
  // Most failures follow failures: the streak is running, so only read it (no row to write).
  const started = conn.statement(`UPDATE endpoints SET failing_since = ? WHERE ${tenantId} AND failing_since IS NULL`).run(at, t.orgId, t.env, endpointId);
  if (Number(started.changes) > 0) addAlertEvent(conn, t, 'failing', endpointId, attempt);
  const row = conn.statement(`SELECT failing_since, status FROM endpoints WHERE ${tenantId}`).get(t.orgId, t.env, endpointId);
  // No row: the endpoint was deleted while the attempt ran.
  if (row === undefined || outcome.disableIfFailingSince === undefined) return false;
  const failingSince = intOrNull(row, 'failing_since');
  if (text(row, 'status') !== 'active' || failingSince === null || failingSince > outcome.disableIfFailingSince) return false;
  conn
    .statement(`UPDATE endpoints SET status = 'disabled', disabled_reason = ? WHERE ${tenantId}`)
    .run(outcome.disabledReason ?? null, t.orgId, t.env, endpointId);
  // Its open deliveries fail: the first batch here, the rest by the walk. No bound in time:
  // a delivery made while this attempt ran is the endpoint's too (none is made while it is
  // disabled); leaving `disabled` bounds the walk at that moment (endFailAt).
  recordWalk(conn, t, endpointId, 'fail');
  walkBatch(conn, endpointId, at, ENDPOINT_WALK_BATCH);
  return true;
}

function addAlertEvent(
  conn: SqliteConnection,
  t: Tenant,
  kind: 'failing' | 'exhausted' | 'disabled',
  endpointId: EndpointId,
  a: AttemptOutcome['attempt'],
): void {
  conn
    // One queued event per endpoint and kind: a repeat while it waits (a flood) is collapsed into it.
    .statement(
      `INSERT INTO alert_events (org_id, env, kind, endpoint_id, at, error, response_status, delivery_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (endpoint_id, kind) DO NOTHING`,
    )
    .run(t.orgId, t.env, kind, endpointId, a.at, a.error, a.responseStatus, a.deliveryId);
}
