import type { EndpointId, Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import type { AttemptOutcome, ClaimRef, CompletedAttempt } from '../message-ports.ts';
import type { MongoConnection } from './connection.ts';
import type { AttemptDoc } from './documents.ts';
import { failAllOpenDeliveries, failOpenDeliveries, refreshMessageStatuses } from './message-status.ts';
import { OPEN_STATUSES, scope } from './query.ts';

/**
 * DeliveryRepo.complete: the attempt, the delivery's new state, its message's status and
 * the endpoint's failure streak, in one transaction. The state is written only while the
 * claim is current (its lease token) and the delivery open; otherwise only the attempt (it
 * happened) and the delivery's attempt count. A re-send asked for during the send
 * (`resend`) keeps the delivery due now, manual.
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
    const updated = await conn.deliveries.findOneAndUpdate(
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
      { session, returnDocument: 'after', projection: { messageId: 1 } },
    );
    if (updated === null) {
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
    await refreshMessageStatuses(conn, session, t, [updated.messageId]);
    return { applied: true, endpointDisabled: await updateEndpoint(conn, session, t, endpointId, attempt.at, outcome.endpoint) };
  });
  // The disabling failed the first batch of the endpoint's open deliveries with it; the rest now.
  if (completed.endpointDisabled) await failAllOpenDeliveries(conn, t, endpointId);
  return completed;
}

/** Moves the endpoint's failure streak; disables it when the streak is old enough. @returns whether it was disabled now. */
async function updateEndpoint(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  endpointId: EndpointId,
  at: number,
  outcome: AttemptOutcome['endpoint'],
): Promise<boolean> {
  const filter = { ...scope(t), _id: endpointId };
  if (outcome.succeeded === null) return false; // our fault (the relay): the endpoint's record is left as it is
  if (outcome.succeeded) {
    await conn.endpoints.updateOne(filter, { $set: { failingSince: null } }, { session });
    return false;
  }
  const endpoint = await conn.endpoints.findOneAndUpdate(
    filter,
    [{ $set: { failingSince: { $ifNull: ['$failingSince', { $literal: at }] } } }],
    { session, returnDocument: 'after', projection: { failingSince: 1, status: 1 } },
  );
  // No endpoint: it was deleted while the attempt ran.
  if (endpoint === null || outcome.disableIfFailingSince === undefined) return false;
  const { failingSince, status } = endpoint;
  if (status !== 'active' || failingSince === null || failingSince > outcome.disableIfFailingSince) return false;
  // Two racing completions both write the status here; the second conflicts, is run again
  // and finds the endpoint disabled, so the disabling is reported once.
  await conn.endpoints.updateOne(
    { ...filter, status: 'active' },
    { $set: { status: 'disabled', disabledReason: outcome.disabledReason ?? null } },
    { session },
  );
  await failOpenDeliveries(conn, session, t, endpointId);
  return true;
}
