import { PUT_OFF_BATCH } from '../ports/endpoint-port.ts';
import { START_SKEW_MS } from '../ports/recovery-port.ts';
import type { Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import type { MongoConnection } from './connection.ts';
import type { DueNote } from './due-queue.ts';
import { type Month, monthStartOf } from './months.ts';
import { DELIVERIES_PLANS as P } from './plans/deliveries.ts';
import type { Sent } from './plans/plan.ts';
import { holdEndFields, leaveToWalk, touchWalk } from './walk-rest.ts';
import { keepHoldEnd } from '../hold-ends.ts';

// What a receiver's Retry-After hold and a rate limit put off, made due again when the
// reason goes: as the SQLite adapter's endpoint-put-off.ts. A put-off delivery went back
// unleased, open, not held by a pause and not waiting in a lane, due later — at the hold's end
// (`dueAt` equal to the endpoint's `heldUntil`), or, still `pending`, at its place in a rate
// limit's spacing. A `retrying` delivery due later waits for its retry policy and keeps its time.

/**
 * Makes what the endpoint's Retry-After hold put off (due at exactly `heldUntil`) due at `now`,
 * in the caller's transaction; nothing without a hold. Each month's equality range of the
 * endpoint's due index, newest month first, up to `limit` in all (a request's: REQUEST_WALK_BATCH,
 * 100, where SQLite's is PUT_OFF_BATCH; endpoint-walk.ts says why); beyond that, the endpoint's
 * walk makes the rest due, ENDPOINT_WALK_BATCH at a time (`releasePutOff`).
 * @returns the due notes to pass to noteDue after the commit.
 */
export async function endHold(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  endpointId: string,
  now: number,
  heldUntil: number | null,
  limit: number,
): Promise<DueNote[]> {
  // A hold already over put nothing off that is not due by now (a backlog being drained would
  // only be rewritten, and the walk left to rewrite the rest).
  if (heldUntil === null || heldUntil <= now) return [];
  const kept = await touchWalk(conn, session, endpointId);
  const { due, more } = await releasePutOff(conn, session, t, endpointId, heldUntil, now, limit);
  // After the rests of holds ended earlier that the walk still has (hold-ends.ts keeps a few).
  const ends = more ? keepHoldEnd(kept, heldUntil, now) : null;
  if (ends !== null) await leaveToWalk(conn, session, t, endpointId, holdEndFields(ends));
  return due;
}

/**
 * Makes up to `limit` of what a hold ending at `heldUntil` put off due at `dueAt` (default `now`), as endHold,
 * reading at most `read` entries (default READ_PER_PUT_OFF × `limit`; a walk's batch shares one budget over its ends).
 * @returns the due notes to pass to noteDue after the commit, how many became due, whether more may be left, and the reads left.
 */
export function releasePutOff(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  endpointId: string,
  heldUntil: number,
  now: number,
  limit: number,
  dueAt = now,
  read = READ_PER_PUT_OFF * limit,
): Promise<PutOffBatch> {
  // A month that starts after the hold's end holds nothing it put off (each delivery was created
  // before it was put off, before the end; the margin covers the replicas' clocks disagreeing):
  // usually the month made ahead, one seek an end saved.
  const before = (m: Month) => m === conn.legacyMonth || monthStartOf(m) <= heldUntil + START_SKEW_MS;
  return makeDue(conn, session, t, endpointId, now, P.putOffByHold(endpointId, heldUntil), limit, dueAt, read, before);
}

/**
 * Makes the endpoint's pending deliveries a rate limit spaced out (due after `now`) due at
 * `now`, in the caller's transaction, for the new limit to space again. Up to PUT_OFF_BATCH,
 * not REQUEST_WALK_BATCH as a hold's end: what it writes is not due and not leased, so no claim,
 * send or completion writes it meanwhile and the PATCH's transaction has little to conflict
 * with. No walk does the rest: a later batch could not tell what the old limit spaced from what
 * the new one has spaced since, so the rest keep their old places (at most the old spacing).
 * @returns the due notes to pass to noteDue after the commit.
 */
export async function respace(conn: MongoConnection, session: ClientSession, t: Tenant, endpointId: string, now: number): Promise<DueNote[]> {
  return (await makeDue(conn, session, t, endpointId, now, P.putOffPending(endpointId, now), PUT_OFF_BATCH)).due;
}

/** What one call made due: the notes for noteDue after the commit, how many, whether more may be left, and its reads left. */
export interface PutOffBatch {
  due: DueNote[];
  count: number;
  more: boolean;
  readLeft: number;
}

/** Entries one call reads at most per delivery it may make due, leased ones included (as SQLite's RESPACE_READ). */
export const READ_PER_PUT_OFF = 5;

async function makeDue(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  endpointId: string,
  now: number,
  q: Sent,
  limit: number,
  dueAt = now,
  budget = READ_PER_PUT_OFF * limit,
  mayHold: (month: Month) => boolean = () => true,
): Promise<PutOffBatch> {
  const due: DueNote[] = [];
  let left = limit;
  let read = budget;
  // Newest month first: what was put off is recent.
  for (const month of [...(await conn.months(now))].filter(mayHold).reverse()) {
    if (left <= 0 || read <= 0) break;
    const { deliveries } = conn.bucket(month);
    // Read as a cursor and stopped once `left` are found: the server fetches about what is
    // made due, READ_PER_PUT_OFF × limit only when leased entries come first.
    const cursor = deliveries
      .find(q.filter, { ...q.options, session, projection: { leaseUntil: 1 } })
      .limit(read)
      .batchSize(Math.min(read, left + 16));
    const ids: string[] = [];
    // A leased one's dueAt is its lease's end: being sent, not put off. Only what is made due
    // counts against the batch (a busy endpoint's sends in flight, due at their leases' ends,
    // come first in the range and must not use it up).
    for await (const d of cursor) {
      read--;
      if ((d.leaseUntil ?? 0) <= now) ids.push(d._id);
      if (ids.length >= left) break; // leaving the loop closes the cursor (the driver's iterator does)
    }
    left -= ids.length;
    if (ids.length === 0) continue;
    const byIds = P.deliveriesById(ids);
    await deliveries.updateMany(byIds.filter, { $set: { nextAttemptAt: dueAt, dueAt } }, { ...byIds.options, session });
    due.push({ orgId: t.orgId, env: t.env, endpointId, month, dueAt });
  }
  // More may be left when the batch filled, or when the read ran out on leased entries first.
  return { due, count: limit - left, more: left === 0 || read <= 0, readLeft: read };
}
