import type { EndpointId, Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import type { AttemptOutcome, ClaimRef, CompletedAttempt } from '../ports/delivery-port.ts';
import type { MongoConnection } from './connection.ts';
import type { AttemptDoc } from './documents.ts';
import { addToRollups } from './endpoint-stats-repo.ts';
import { moveMessageCount } from './message-status.ts';
import { noteDue, type DueNote } from './due-queue.ts';
import { DELIVERIES_PLANS as P } from './plans/deliveries.ts';
import { recordWalk, walkBatch } from './endpoint-walk.ts';
import { handOver } from './ordered-lanes.ts';
import { scope } from './query.ts';

/**
 * DeliveryRepo.complete: the attempt, the delivery's new state, its message's status and
 * the endpoint's failure streak, in one transaction of point writes by _id (the lane's hand-over
 * and an alert event add one or two); the message's counts move by one (no
 * read of its other deliveries). The state is written only while the
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
  const completed = await conn.transaction(async (session) => {
    await conn.attempts.insertOne(attempt, { session });
    // A retry is never held here, even when the endpoint was paused during the send: holding it
    // would write the endpoint document (markHeldWrite, so a racing resume conflicts) in every
    // completion while it is paused. Unheld, it is due at its time; a sweep then finds its
    // endpoint not active and holds it with its stranded peers, one endpoint write a batch
    // (stranded.ts), and a resume in between simply lets it go.
    const before = await conn.deliveries.findOneAndUpdate(
      own.filter,
      [
        {
          $set: {
            status: { $cond: [{ $eq: ['$resend', true] }, 'retrying', { $literal: outcome.status }] },
            nextAttemptAt: { $cond: [{ $eq: ['$resend', true] }, { $literal: attempt.at }, { $literal: outcome.nextAttemptAt }] },
            manual: { $eq: ['$resend', true] },
            resend: false,
            leaseUntil: null,
            // The due queue's time: the retry's (or now, for a re-send asked for meanwhile).
            dueAt: { $cond: [{ $eq: ['$resend', true] }, { $literal: attempt.at }, { $literal: outcome.nextAttemptAt }] },
            attemptCount: { $add: ['$attemptCount', 1] },
            policyAttempts: { $add: ['$policyAttempts', counts] },
            lastAttemptAt: { $max: ['$lastAttemptAt', { $literal: attempt.at }] },
          },
        },
      ],
      // Before: the status it leaves (the message's counts move from it) and whether a re-send was asked for.
      { ...own.options, session, returnDocument: 'before', projection: { messageId: 1, status: 1, resend: 1, endpointId: 1, orderingKey: 1 } },
    );
    if (before === null) {
      // Claimed again since (this send outlived its lease), or failed with its endpoint:
      // the newer state stands. The attempt is on record and counted.
      // Retention deleted it meanwhile (its message left the window): the attempt stays on
      // record until retention's next pass takes it too.
      const any = P.byId(t, deliveryId);
      await conn.deliveries.updateOne(any.filter, { $inc: { attemptCount: 1 }, $max: { lastAttemptAt: attempt.at } }, { ...any.options, session });
      return { applied: false, endpointDisabled: false, due: [] as DueNote[] };
    }
    const status = before.resend === true ? 'retrying' : outcome.status;
    await moveMessageCount(conn, session, t, before.messageId, before.status, status);
    // Its end moves its ordered lane on (#31): the next is named to be woken at once.
    const next = status === 'retrying' ? null : await handOver(conn, session, before, false);
    const endpointDisabled = await updateEndpoint(conn, session, t, endpointId, attempt, outcome.endpoint);
    // The outbox of notices: what this attempt did that an organization may be told of.
    if (status === 'failed') await addAlertEvent(conn, session, t, 'exhausted', endpointId, attempt);
    if (endpointDisabled) await addAlertEvent(conn, session, t, 'disabled', endpointId, attempt);
    const due: DueNote[] = [];
    if (status === 'retrying') due.push({ ...t, endpointId, dueAt: before.resend === true ? attempt.at : (outcome.nextAttemptAt ?? attempt.at) });
    if (next?.due) due.push(next.due);
    return { applied: true, endpointDisabled, ...(next !== null ? { laneNext: next.id } : {}), due };
  });
  const { due, ...result } = completed;
  // After the commit (due-queue.ts says why): the retry and the lane's next in the due queue.
  await noteDue(conn, due);
  // A disabling's first batch of failed deliveries, in a transaction of its own rather than in
  // the completion's: the rest go by the walk (walkEndpoints), as for a delete.
  if (result.endpointDisabled) {
    const failed = await conn.transaction((session) => walkBatch(conn, session, endpointId, attempt.at, DISABLE_FIRST_BATCH));
    await noteDue(conn, failed.due);
  }
  // After the transaction, not in it: see addToRollups. Every attempt counts, applied or not.
  await addToRollups(conn, t, outcome.attempt);
  return result;
}

/** Deliveries a disabling fails at once, after its completion commits (the walk fails the rest). */
const DISABLE_FIRST_BATCH = 100;

/** Moves the endpoint's failure streak; disables it when the streak is old enough. @returns whether it was disabled now. */
async function updateEndpoint(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  endpointId: EndpointId,
  attempt: AttemptDoc,
  outcome: AttemptOutcome['endpoint'],
): Promise<boolean> {
  const at = attempt.at;
  const q = P.byId(t, endpointId);
  if (outcome.succeeded === null) return false; // our fault (the relay): the endpoint's record is left as it is
  // Both writes below change the endpoint only when its streak starts or ends: an update that
  // leaves a document as it was writes nothing, so a healthy (or long failing) endpoint's
  // document is not written by its every completion.
  if (outcome.succeeded) {
    await conn.endpoints.updateOne(q.filter, { $set: { failingSince: null } }, { ...q.options, session });
    return false;
  }
  const endpoint = await conn.endpoints.findOneAndUpdate(
    q.filter,
    [{ $set: { failingSince: { $ifNull: ['$failingSince', { $literal: at }] } } }],
    // Before: a null failingSince then means this attempt began the streak.
    { ...q.options, session, returnDocument: 'before', projection: { failingSince: 1, status: 1 } },
  );
  if (endpoint !== null && endpoint.failingSince === null) await addAlertEvent(conn, session, t, 'failing', endpointId, attempt);
  // No endpoint: it was deleted while the attempt ran.
  if (endpoint === null || outcome.disableIfFailingSince === undefined) return false;
  const status = endpoint.status;
  const failingSince = endpoint.failingSince ?? at;
  if (status !== 'active' || failingSince === null || failingSince > outcome.disableIfFailingSince) return false;
  // Two racing completions both write the status here; the second conflicts, is run again
  // and finds the endpoint disabled, so the disabling is reported once.
  const active = P.activeEndpoint(t, endpointId);
  await conn.endpoints.updateOne(
    active.filter,
    { $set: { status: 'disabled', disabledReason: outcome.disabledReason ?? null } },
    { ...active.options, session },
  );
  // Its open deliveries fail: a first batch after the commit, the rest by the walk (no bound in
  // time; see the SQLite adapter: leaving `disabled` bounds it).
  await recordWalk(conn, session, t, endpointId, 'fail');
  return true;
}

/**
 * An outbox event for the alerting engine, numbered from its organization's own counter in the
 * same transaction: a counter shared by all tenants would make every tenant's completions that
 * emit an event conflict with each other.
 */
async function addAlertEvent(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  kind: 'failing' | 'exhausted' | 'disabled',
  endpointId: EndpointId,
  a: AttemptDoc,
): Promise<void> {
  // One queued event per endpoint and kind: a repeat while it waits (a flood) is collapsed into it.
  const queued = P.queuedAlertEvent(endpointId, kind);
  if ((await conn.alertEvents.findOne(queued.filter, { ...queued.options, session, projection: { _id: 1 } })) !== null) return;
  const counter = P.alertEventCounter(t.orgId);
  const numbered = await conn.counters.findOneAndUpdate(
    counter.filter,
    { $inc: { value: 1 }, $setOnInsert: { expiresAt: new Date(8.64e15) } },
    { ...counter.options, session, upsert: true, returnDocument: 'after' },
  );
  const seq = numbered!.value;
  await conn.alertEvents.insertOne(
    { _id: `${t.orgId}:${seq}`, seq, ...scope(t), kind, endpointId, at: a.at, error: a.error, responseStatus: a.responseStatus, deliveryId: a.deliveryId },
    { session },
  );
}
