import type { MongoConnection } from './connection.ts';
import { isDuplicateKey } from './errors.ts';
import { DELIVERIES_PLANS as P } from './plans/deliveries.ts';

// Where the healer's two walks (delivery-claim.ts: healDueQueue over the endpoints with open work,
// healTenantBounds over the due entries) go on, kept in `meta` rather than in each dispatcher's
// memory. In memory, N replicas each walked the same stretch from the start, and a restart began
// again at the oldest month: with deploys more often than a pass takes (10⁶ endpoints over 4
// months at HEAL_STEPS a healing), the newest month was never reached. Shared, a restart goes on
// where the last healing of any replica ended, and replicas whose healings do not overlap walk one
// pass between them (each the next stretch). Two healings that read the same position walk the same
// stretch; the first to move the position on wins, the other's move is dropped (its `$min`s stand:
// written twice is once) — replicas in step walk at one's pace, never slower than apart. A healing
// that read '' (a pass's start) and ends after a later pass has come back to '' moves it on past
// a stretch it walked long before: that stretch waits a pass more (a backstop's delay, no loss).
// Costs a healing one point read of two documents and a write by _id a walk.

/** The healer's walks, by the `meta` document that keeps each one's position. */
export const HEAL_WALKS = { due: 'heal:due', tenants: 'heal:tenants' } as const;
export type HealWalk = keyof typeof HEAL_WALKS;

/** Each walk's position as the last healing left it ('' when none has yet: from the start). */
export async function readHealCursors(conn: MongoConnection): Promise<Record<HealWalk, string>> {
  const q = P.healCursors(Object.values(HEAL_WALKS));
  const docs = await conn.meta.find(q.filter, { ...q.options, projection: { cursor: 1 } }).toArray();
  const at = (id: string) => docs.find((d) => d._id === id)?.cursor ?? '';
  return { due: at(HEAL_WALKS.due), tenants: at(HEAL_WALKS.tenants) };
}

/**
 * Moves `walk`'s position from `from` (what this healing read) to `to`, unless another healing
 * moved it first. @returns whether it moved.
 */
export async function moveHealCursor(conn: MongoConnection, walk: HealWalk, from: string, to: string): Promise<boolean> {
  const q = P.healCursorMove(HEAL_WALKS[walk], from);
  try {
    // An upsert: the first healing ever finds no document, and makes it. Found with another
    // position, the upsert's insert collides on _id: moved by another healing.
    await conn.meta.updateOne(q.filter, { $set: { cursor: to } }, { ...q.options, upsert: true });
    return true;
  } catch (err) {
    if (isDuplicateKey(err, '_id_')) return false;
    throw err;
  }
}
