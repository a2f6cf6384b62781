import type { EndpointId, Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import type { AttemptOutcome, CompletedAttempt, DeliveryJob } from '../message-ports.ts';
import type { MongoConnection } from './connection.ts';
import type { AttemptDoc } from './documents.ts';
import { failOpenDeliveries, refreshMessageStatuses } from './message-status.ts';
import { scope } from './query.ts';

/**
 * DeliveryRepo.complete: the attempt, the delivery's new state, its message's status and
 * the endpoint's failure streak, in one transaction.
 */
export async function completeDelivery(conn: MongoConnection, job: DeliveryJob, outcome: AttemptOutcome): Promise<CompletedAttempt> {
  const { tenant: t, delivery } = job;
  const { id: _id, ...fields } = outcome.attempt;
  const attempt: AttemptDoc = { _id, ...scope(t), ...fields };
  return conn.transaction(async (session) => {
    await conn.attempts.insertOne(attempt, { session });
    const updated = await conn.deliveries.findOneAndUpdate(
      { ...scope(t), _id: delivery.id },
      {
        $set: { status: outcome.status, nextAttemptAt: outcome.nextAttemptAt, manual: false, leaseUntil: null },
        $inc: { attemptCount: 1, policyAttempts: outcome.countsTowardPolicy ? 1 : 0 },
        $max: { lastAttemptAt: attempt.at },
      },
      { session, returnDocument: 'after', projection: { messageId: 1 } },
    );
    if (updated === null) throw new Error(`delivery ${delivery.id} vanished while it was being completed`);
    await refreshMessageStatuses(conn, session, t, [updated.messageId]);
    return { endpointDisabled: await updateEndpoint(conn, session, t, delivery.endpointId, attempt.at, outcome.endpoint) };
  });
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
