import type { EndpointId, Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import { attemptEffects, type AttemptAlert, type AttemptEffects, type EndpointAtCompletion } from '../attempt-effects.ts';
import type { AttemptOutcome, ClaimRef, CompletedAttempt } from '../ports/delivery-port.ts';
import type { MongoConnection } from './connection.ts';
import type { AttemptDoc } from './documents.ts';
import { addToRollups } from './endpoint-stats-repo.ts';
import { settleMessageStatus } from './message-status.ts';
import { noteDue, type DueNote } from './due-queue.ts';
import { DELIVERIES_PLANS as P } from './plans/deliveries.ts';
import { ENDPOINTS_PLANS as EP } from './plans/endpoints.ts';
import { recordWalk, REQUEST_WALK_BATCH, walkBatch } from './endpoint-walk.ts';
import { handOver } from './ordered-lanes.ts';
import { scope } from './query.ts';

/**
 * DeliveryRepo.complete: the attempt, the delivery's new state and the endpoint's failure
 * streak, in one transaction of point writes by _id (the attempt and the delivery in the
 * delivery's month: connection.ts, bucketOf; the lane's hand-over and an alert event add one or
 * two); its message's status after the commit, by one update of the message
 * (settleMessageStatus), so a fan-out's sibling completions do not conflict. The state is written only while the
 * claim is current (its lease token) and the delivery open; otherwise only the attempt (it
 * happened) and the delivery's attempt count. A re-send asked for during the send
 * (`resend`) keeps the delivery due now, manual. The endpoint's rollups follow the
 * transaction (addToRollups says why not in it).
 */
export async function completeDelivery(conn: MongoConnection, claim: ClaimRef, outcome: AttemptOutcome): Promise<CompletedAttempt> {
  const { tenant: t, deliveryId, endpointId, leaseToken } = claim;
  const { id: _id, ...fields } = outcome.attempt;
  const attempt: AttemptDoc = { _id, ...scope(t), ...fields };
  const counts = outcome.countsTowardPolicy ? 1 : 0;
  const own = P.current(t, deliveryId, leaseToken);
  const bucket = conn.bucketOf(deliveryId);
  const completed = await conn.transaction(async (session) => {
    const e = EP.byId(t, endpointId);
    const found = await conn.endpoints.findOne(e.filter, { ...e.options, session, projection: { status: 1, failingSince: 1 } });
    const endpoint: EndpointAtCompletion | null = found === null ? null : { status: found.status, failingSince: found.failingSince ?? null };
    // Paused during the send: a retry waits, held, out of the due index (one held after a
    // resume's walk passed is released when that walk runs again: held-recheck.ts).
    const held = endpoint?.status !== 'active';
    const before = await bucket.deliveries.findOneAndUpdate(
      own.filter,
      [
        {
          $set: {
            status: { $cond: [{ $eq: ['$resend', true] }, 'retrying', { $literal: outcome.status }] },
            nextAttemptAt: { $cond: [{ $eq: ['$resend', true] }, { $literal: attempt.at }, { $literal: outcome.nextAttemptAt }] },
            manual: { $eq: ['$resend', true] },
            resend: false,
            leaseUntil: null,
            held: { $literal: held },
            // The due queue's time: the retry's (or now, for a re-send asked for meanwhile).
            dueAt: { $cond: [{ $eq: ['$resend', true] }, { $literal: attempt.at }, { $literal: outcome.nextAttemptAt }] },
            attemptCount: { $add: ['$attemptCount', 1] },
            policyAttempts: { $add: ['$policyAttempts', counts] },
            lastAttemptAt: { $max: ['$lastAttemptAt', { $literal: attempt.at }] },
            // Until its message has the result (settleMessageStatus, after the commit).
            messageStale: true,
          },
        },
      ],
      // Before: the status it leaves (the message's counts move from it) and whether a re-send was asked for.
      { ...own.options, session, returnDocument: 'before', projection: { messageId: 1, status: 1, resend: 1, endpointId: 1, orderingKey: 1, attemptCount: 1 } },
    );
    if (before === null) {
      // Claimed again since (this send outlived its lease), or failed with its endpoint: the
      // newer state stands. The attempt is on record and counted.
      const any = P.byId(t, deliveryId);
      const { matchedCount } = await bucket.deliveries.updateOne(
        any.filter,
        { $inc: { attemptCount: 1 }, $max: { lastAttemptAt: attempt.at } },
        { ...any.options, session },
      );
      // Gone: its month was dropped by retention during the send. No attempt either: an insert
      // would make the dropped collection again (without its indexes), outside any month kept.
      if (matchedCount > 0) await bucket.attempts.insertOne(attempt, { session });
      return { applied: false, endpointDisabled: false, due: [] as DueNote[], settle: null };
    }
    await bucket.attempts.insertOne(attempt, { session });
    const effects = attemptEffects(outcome, before.resend === true, endpoint);
    // Disabled by this attempt: it fails with its endpoint's other open deliveries (attempt-effects.ts).
    const written = before.resend === true ? 'retrying' : outcome.status;
    if (effects.status !== written) {
      await bucket.deliveries.updateOne(own.filter, { $set: { status: 'failed', nextAttemptAt: null } }, { ...own.options, session });
    }
    // Its end moves its ordered lane on: the next is named to be woken at once.
    const next = effects.handOver ? await handOver(conn, session, before, held) : null;
    await carryOut(conn, session, t, endpointId, attempt, effects, outcome.endpoint.disabledReason ?? null);
    const due: DueNote[] = [];
    if (effects.status === 'retrying' && !held)
      due.push({ ...t, endpointId, month: bucket.month, dueAt: before.resend === true ? attempt.at : (outcome.nextAttemptAt ?? attempt.at) });
    if (next?.due) due.push(next.due);
    // Its message learns the result after the commit (settleMessageStatus says why).
    const settle = { _id: deliveryId, messageId: before.messageId, status: effects.status, attemptCount: before.attemptCount + 1 };
    return { applied: true, endpointDisabled: effects.disable, ...(next !== null ? { laneNext: next.id } : {}), due, settle };
  });
  const { due, settle, ...result } = completed;
  // Committed: what follows is bookkeeping that must not turn a completed attempt into an
  // error (the caller would lose `endpointDisabled`, sent once, and the lane's next). Its
  // failures are told as a process warning; the healer (delivery-claim.ts: the due queue and
  // the messages' statuses) and the walk (walkEndpoints) finish what they left.
  try {
    // After the commit (due-queue.ts says why): the retry and the lane's next in the due queue,
    // first: the message's status below must not delay (or, failing, skip) a wake-up.
    await noteDue(conn, due, { tenantsSoon: true });
    // A disabling's first batch of the endpoint's other open deliveries, in a transaction of
    // its own rather than in the completion's: the rest go by the walk, as for a delete.
    if (result.endpointDisabled) {
      const failed = await conn.transaction((session) => walkBatch(conn, session, endpointId, attempt.at, REQUEST_WALK_BATCH));
      await noteDue(conn, failed.due);
    }
  } catch (err) {
    process.emitWarning(`wirehook: after completing delivery ${deliveryId}: ${err instanceof Error ? err.message : String(err)}`);
  }
  // Its message's status (the flag left on the delivery if this fails: the healer's repair).
  if (settle !== null) {
    await settleMessageStatus(conn, t, settle).catch((err: unknown) =>
      process.emitWarning(`wirehook: telling the message of delivery ${deliveryId} its result: ${err instanceof Error ? err.message : String(err)}`),
    );
  }
  // Summed in this process and flushed every few seconds (endpoint-stats-repo.ts). Every attempt counts, applied or not.
  await addToRollups(conn, t, outcome.attempt);
  return result;
}

/**
 * Writes what attemptEffects decided, in the completion's transaction: the endpoint's streak
 * (written only when it starts or ends), its disabling and walk, and the alert events.
 */
async function carryOut(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  endpointId: EndpointId,
  attempt: AttemptDoc,
  effects: AttemptEffects,
  reason: string | null,
): Promise<void> {
  if (effects.streak === 'start') {
    // Two racing first failures both write here; the second conflicts, runs again and keeps the streak.
    const q = P.streakStart(t, endpointId);
    await conn.endpoints.updateOne(q.filter, { $set: { failingSince: attempt.at } }, { ...q.options, session });
  }
  if (effects.streak === 'clear') {
    const q = EP.byId(t, endpointId);
    await conn.endpoints.updateOne(q.filter, { $set: { failingSince: null } }, { ...q.options, session });
  }
  if (effects.disable) {
    // Two racing completions both write the status here; the second conflicts, is run again
    // and finds the endpoint disabled, so the disabling is reported once.
    const active = P.activeEndpoint(t, endpointId);
    await conn.endpoints.updateOne(active.filter, { $set: { status: 'disabled', disabledReason: reason } }, { ...active.options, session });
    // Its open deliveries fail: a first batch after the commit, the rest by the walk (no bound
    // in time; see the SQLite adapter: leaving `disabled` bounds it).
    await recordWalk(conn, session, t, endpointId, 'fail');
  }
  // The outbox of notices: what this attempt did that an organization may be told of.
  for (const kind of effects.alerts) await addAlertEvent(conn, session, t, kind, endpointId, attempt);
}

/**
 * An outbox event for the alerting engine, `_id` `<orgId>:<endpointId>:<kind>`: one queued per
 * endpoint and kind, so two completions racing to queue it write one document (one conflicts,
 * runs again and finds it queued), and those of different endpoints share none. Ordered in its
 * organization's queue by the attempt's time (`seq`). It used to be numbered from the
 * organization's counter document: every completion that queued an event wrote that one, so an
 * organization's many failing endpoints queued their completions on it.
 */
export async function addAlertEvent(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  kind: AttemptAlert,
  endpointId: EndpointId,
  a: AttemptDoc,
): Promise<void> {
  // One queued event per endpoint and kind: a repeat while it waits (a flood) is collapsed into it.
  const queued = P.queuedAlertEvent(endpointId, kind);
  if ((await conn.alertEvents.findOne(queued.filter, { ...queued.options, session, projection: { _id: 1 } })) !== null) return;
  await conn.alertEvents.insertOne(
    {
      _id: `${t.orgId}:${endpointId}:${kind}`,
      seq: a.at,
      ...scope(t),
      kind,
      endpointId,
      at: a.at,
      error: a.error,
      responseStatus: a.responseStatus,
      deliveryId: a.deliveryId,
    },
    { session },
  );
}
