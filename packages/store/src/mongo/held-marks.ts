import { randomInt } from 'node:crypto';
import type { ClientSession } from 'mongodb';
import type { MongoConnection } from './connection.ts';
import { OPERATIONS_PLANS as OP } from './plans/operations.ts';

// A send (or completion, or lane hand-over) that holds a delivery because its endpoint is
// paused races a resume: committed after the resume's release walk went past, the delivery
// would stay held on an active endpoint for good. Both write a shared document, so one
// conflicts and runs again on the other's result (stranded.ts tells the other way round).

/** An endpoint's held-write markers: a send spreads over these instead of queuing on one document. */
export const HELD_MARKS = 8;
/** A marker unwritten this long is removed by usage_counters' TTL index (the next write makes it again). */
const HELD_MARK_KEPT_MS = 7 * 86_400_000;

/** The `_id` in usage_counters of one of an endpoint's held-write markers. */
export function heldMarkId(endpointId: string, k: number): string {
  return `held-writes:${endpointId}:${k}`;
}

/**
 * Marks, in the caller's transaction, that it holds a delivery because `endpointId` is paused:
 * a write to one of the endpoint's HELD_MARKS markers, at random. A status change or delete
 * of the endpoint writes all of them (markAllHeldWrites), so it and the caller conflict and
 * one of them runs again on the other's result. It used to write the endpoint itself: every
 * send to a paused endpoint then queued on that one document (write conflicts, each send's
 * transaction run again whole) and rewrote it, up to its 32 KB transformation, at each send.
 */
export async function markHeldWrite(conn: MongoConnection, session: ClientSession, endpointId: string): Promise<void> {
  await bumpHeldMarks(conn, session, [heldMarkId(endpointId, randomInt(HELD_MARKS))]);
}

/** Writes all of the endpoint's held-write markers in the caller's transaction (a status change, a delete): one round trip. */
export async function markAllHeldWrites(conn: MongoConnection, session: ClientSession, endpointId: string): Promise<void> {
  await bumpHeldMarks(
    conn,
    session,
    Array.from({ length: HELD_MARKS }, (_, k) => heldMarkId(endpointId, k)),
  );
}

async function bumpHeldMarks(conn: MongoConnection, session: ClientSession, ids: readonly string[]): Promise<void> {
  const expiresAt = new Date(Date.now() + HELD_MARK_KEPT_MS);
  await conn.counters.bulkWrite(
    ids.map((id) => {
      const q = OP.heldMark(id);
      return { updateOne: { filter: q.filter, update: { $inc: { value: 1 }, $set: { expiresAt } }, upsert: true, hint: q.options.hint } };
    }),
    { session, ordered: true, comment: OP.heldMark.planName },
  );
}
