import type { Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import type { MongoConnection } from './connection.ts';
import type { DueNote } from './due-queue.ts';
import { DELIVERIES_PLANS as P } from './plans/deliveries.ts';

// What a receiver's Retry-After hold and a rate limit put off (#32), made due again when the
// reason goes (#40): as the SQLite adapter's endpoint-put-off.ts. A put-off delivery went back
// unleased, open, not held by a pause and not waiting in a lane, due later — at the hold's end
// (`dueAt` equal to the endpoint's `heldUntil`), or, still `pending`, at its place in a rate
// limit's spacing. A `retrying` delivery due later waits for its retry policy and keeps its time.

/**
 * Deliveries one hold's end or limit change makes due at most, over all months: bounded, as
 * every walk's batch is. The rest keep their later time (a hold lasts an hour at most).
 */
export const PUT_OFF_BATCH = 1_000;

/**
 * Makes the endpoint's put-off deliveries due at `now`, in the caller's transaction: those at
 * `heldUntil` (the hold's end; null for a limit change) and the pending ones due later. Reads
 * each month's range of the endpoint's due index after `now`, soonest first, up to
 * PUT_OFF_BATCH in all; a leased delivery (its dueAt is its lease's end) is left.
 * @returns the due notes to pass to noteDue after the commit.
 */
export async function makePutOffDue(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  endpointId: string,
  now: number,
  heldUntil: number | null,
): Promise<DueNote[]> {
  const q = P.putOff(endpointId, now);
  const due: DueNote[] = [];
  let left = PUT_OFF_BATCH;
  // Newest month first: what a hold put off is recent.
  for (const month of [...(await conn.months(now))].reverse()) {
    if (left <= 0) break;
    const { deliveries } = conn.bucket(month);
    const later = await deliveries
      .find(q.filter, { ...q.options, session, projection: { status: 1, dueAt: 1, leaseUntil: 1 } })
      .limit(left)
      .toArray();
    left -= later.length;
    const ids = later.filter((d) => (d.leaseUntil ?? 0) <= now && (d.status === 'pending' || (heldUntil !== null && d.dueAt === heldUntil))).map((d) => d._id);
    if (ids.length === 0) continue;
    const byIds = P.deliveriesById(ids);
    await deliveries.updateMany(byIds.filter, { $set: { nextAttemptAt: now, dueAt: now } }, { ...byIds.options, session });
    due.push({ orgId: t.orgId, env: t.env, endpointId, month, dueAt: now });
  }
  return due;
}
