import { ENDPOINT_WALK_BATCH, type EndpointId, type Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import type { AttemptOutcome, ClaimRef, CompletedAttempt } from '../ports/delivery-port.ts';
import type { MongoConnection } from './connection.ts';
import type { AttemptDoc } from './documents.ts';
import { addToRollups } from './endpoint-stats-repo.ts';
import { moveMessageCount } from './message-status.ts';
import { markHeldWrite } from './stranded.ts';
import { recordWalk, walkBatch } from './endpoint-walk.ts';
import { handOver } from './ordered-lanes.ts';
import { OPEN_STATUSES, scope } from './query.ts';

/**
 * DeliveryRepo.complete: the attempt, the delivery's new state, its message's status and
 * the endpoint's failure streak, in one transaction; the message's counts move by one (no
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
  const completed = await conn.transaction(async (session) => {
    await conn.attempts.insertOne(attempt, { session });
    // Paused during the send: a retry waits, held, out of the due index.
    const endpoint = await conn.endpoints.findOne({ ...scope(t), _id: endpointId }, { session, projection: { status: 1 } });
    const held = endpoint?.status !== 'active';
    // A retry held on a paused endpoint: conflict with a resume racing this (stranded.ts).
    if (endpoint !== null && held) await markHeldWrite(conn, session, t, endpointId);
    const before = await conn.deliveries.findOneAndUpdate(
      { ...scope(t), _id: deliveryId, leaseToken, status: { $in: OPEN_STATUSES } },
      [
        {
          $set: {
            status: { $cond: [{ $eq: ['$resend', true] }, 'retrying', { $literal: outcome.status }] },
            nextAttemptAt: { $cond: [{ $eq: ['$resend', true] }, { $literal: attempt.at }, { $literal: outcome.nextAttemptAt }] },
            manual: { $eq: ['$resend', true] },
            resend: false,
            leaseUntil: null,
            held: { $literal: held },
            attemptCount: { $add: ['$attemptCount', 1] },
            policyAttempts: { $add: ['$policyAttempts', counts] },
            lastAttemptAt: { $max: ['$lastAttemptAt', { $literal: attempt.at }] },
          },
        },
      ],
      // Before: the status it leaves (the message's counts move from it) and whether a re-send was asked for.
      { session, returnDocument: 'before', projection: { messageId: 1, status: 1, resend: 1, endpointId: 1, orderingKey: 1 } },
    );
    if (before === null) {
      // Claimed again since (this send outlived its lease), or failed with its endpoint:
      // the newer state stands. The attempt is on record and counted.
      const { matchedCount } = await conn.deliveries.updateOne(
        { ...scope(t), _id: deliveryId },
        { $inc: { attemptCount: 1 }, $max: { lastAttemptAt: attempt.at } },
        { session },
      );
      if (matchedCount === 0) throw new Error(`delivery ${deliveryId} vanished while it was being completed`);
      return { applied: false, endpointDisabled: false };
    }
    const status = before.resend === true ? 'retrying' : outcome.status;
    await moveMessageCount(conn, session, t, before.messageId, before.status, status);
    // Its end moves its ordered lane on (#31): the next is named to be woken at once.
    const laneNext = status === 'retrying' ? null : await handOver(conn, session, before, held);
    const endpointDisabled = await updateEndpoint(conn, session, t, endpointId, attempt, outcome.endpoint);
    // The outbox of notices: what this attempt did that an organization may be told of.
    if (status === 'failed') await addAlertEvent(conn, session, t, 'exhausted', endpointId, attempt);
    if (endpointDisabled) await addAlertEvent(conn, session, t, 'disabled', endpointId, attempt);
    return { applied: true, endpointDisabled, ...(laneNext !== null ? { laneNext } : {}) };
  });
  // After the transaction, not in it: see addToRollups. Every attempt counts, applied or not.
  await addToRollups(conn, t, outcome.attempt);
  return completed;
}

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
  const filter = { ...scope(t), _id: endpointId };
  if (outcome.succeeded === null) return false; // our fault (the relay): the endpoint's record is left as it is
  if (outcome.succeeded) {
    await conn.endpoints.updateOne(filter, { $set: { failingSince: null } }, { session });
    return false;
  }
  const endpoint = await conn.endpoints.findOneAndUpdate(
    filter,
    [{ $set: { failingSince: { $ifNull: ['$failingSince', { $literal: at }] } } }],
    // Before: a null failingSince then means this attempt began the streak.
    { session, returnDocument: 'before', projection: { failingSince: 1, status: 1 } },
  );
  if (endpoint !== null && endpoint.failingSince === null) await addAlertEvent(conn, session, t, 'failing', endpointId, attempt);
  // No endpoint: it was deleted while the attempt ran.
  if (endpoint === null || outcome.disableIfFailingSince === undefined) return false;
  const status = endpoint.status;
  const failingSince = endpoint.failingSince ?? at;
  if (status !== 'active' || failingSince === null || failingSince > outcome.disableIfFailingSince) return false;
  // Two racing completions both write the status here; the second conflicts, is run again
  // and finds the endpoint disabled, so the disabling is reported once.
  await conn.endpoints.updateOne(
    { ...filter, status: 'active' },
    { $set: { status: 'disabled', disabledReason: outcome.disabledReason ?? null } },
    { session },
  );
  // Its open deliveries fail: the first batch here, the rest by the walk (no bound in time; see
  // the SQLite adapter: leaving `disabled` bounds it).
  await recordWalk(conn, session, t, endpointId, 'fail');
  await walkBatch(conn, session, endpointId, at, ENDPOINT_WALK_BATCH);
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
  if ((await conn.alertEvents.findOne({ endpointId, kind }, { session, projection: { _id: 1 } })) !== null) return;
  const counter = await conn.counters.findOneAndUpdate(
    { _id: `alert-events:${t.orgId}` },
    { $inc: { value: 1 }, $setOnInsert: { expiresAt: new Date(8.64e15) } },
    { session, upsert: true, returnDocument: 'after' },
  );
  const seq = counter!.value;
  await conn.alertEvents.insertOne(
    { _id: `${t.orgId}:${seq}`, seq, ...scope(t), kind, endpointId, at: a.at, error: a.error, responseStatus: a.responseStatus, deliveryId: a.deliveryId },
    { session },
  );
}
