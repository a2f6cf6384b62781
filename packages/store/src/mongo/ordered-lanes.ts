import { type DeliveryId, firstIdAt, type Tenant } from '@wirehook/core';
import type { ClientSession, Document, WithId } from 'mongodb';
import type { MongoConnection } from './connection.ts';
import type { DeliveryDoc } from './documents.ts';
import type { DueNote } from './due-queue.ts';
import { type Month, monthOf, monthStartOf, nextMonth, previousMonth } from './months.ts';
import { LANE_STATS_LIMIT, LANES_PLANS as P } from './plans/lanes.ts';
import { OPEN_STATUSES, readDeadline, scope } from './query.ts';

// Ordered delivery per key, MongoDB's side of the SQLite adapter's ordered-lanes.ts and
// its migration 19 (which say why the store is the arbiter). A lane is a `delivery_lanes`
// document per (endpoint, key): the last sequence handed out and the head, the one delivery
// of the lane that may be claimed; the others wait with `laneWait: true`, out of the due
// indexes. MongoDB has no triggers, so every write that ends an open delivery calls
// handOver in its own transaction: completion, the walks' fail; retention hands over the lanes
// whose head is in a month before it drops that month (handOverLanesOfMonth). Every change of
// a lane's head writes its lane document (a real change, never a no-op $set), so two
// transactions that would both move one lane conflict and the driver runs one again on the
// other's result: snapshot isolation cannot leave a lane with two heads or none.
// Lanes are one collection; their deliveries are in monthly ones (months.ts): a delivery by id
// is read in its id's month, and a lane's next waiting delivery is sought in every month
// (promoteNext says why).
//
// A delivery a lane lets go of (laneWait false, not held) enters the due index: the functions
// that do it return its DueNote, and whoever awaits the enclosing transaction passes it to
// noteDue (due-queue.ts) AFTER the commit, never inside it (due-queue.ts's header says why).

/** Where a new delivery stands in its lane: its sequence, and whether it waits behind the head. */
export interface LanePlace {
  sequence: number;
  wait: boolean;
  /** A waiting delivery the join made the head (a lane whose head was gone): note it after the commit. */
  due: DueNote | null;
}

/** A delivery an operation has just ended (or deleted) while it was open, as handOver needs it. */
export interface EndedDelivery {
  _id: string;
  endpointId: string;
  orderingKey?: string | null;
}

/** The delivery a hand-over made its lane's head. */
export interface HandedOver {
  /** The new head, claimable now unless held. */
  id: DeliveryId;
  /** Its dueAt (its next attempt's time). */
  dueAt: number;
  /** What noteDue must be told after the commit; null when the new head is held (not in the due index). */
  due: DueNote | null;
}

/** The lane document's id: endpoint ids hold no ':', so the first one splits it. */
export function laneId(endpointId: string, key: string): string {
  return `${endpointId}:${key}`;
}

/**
 * Puts `deliveryId` (about to be inserted) at the end of its lane, in the message's
 * transaction: the lane's next sequence, and the head when the lane has no open head. A head
 * no longer open whose lane still has waiting deliveries (released by hand, or in a month
 * retention dropped) gives the lane to the first of them instead (`held`: the endpoint is not
 * active; `due` names it for noteDue). The lane is used at `at` (its message's creation; a
 * clock that stepped back keeps the later time), for pruneLanes.
 */
export async function joinLane(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  endpointId: string,
  key: string,
  deliveryId: string,
  held: boolean,
  at: number,
): Promise<LanePlace> {
  // The $inc makes every join a write of the lane: racing joins and hand-overs conflict.
  const q = P.lane(endpointId, key);
  const lane = await conn.deliveryLanes.findOneAndUpdate(
    q.filter,
    { $inc: { lastSequence: 1 }, $max: { lastUsedAt: at }, $setOnInsert: { ...scope(t), endpointId, orderingKey: key, headId: null } },
    { ...q.options, session, upsert: true, returnDocument: 'after' },
  );
  if (lane === null) throw new Error('an upsert returned no lane');
  let head = lane.headId !== null && (await isOpen(conn, session, lane.headId)) ? lane.headId : null;
  let due: DueNote | null = null;
  if (head === null) {
    const promoted = await promoteNext(conn, session, endpointId, key, held);
    head = promoted?.id ?? null;
    due = promoted?.due ?? null;
  }
  // No open head (a new lane, or one handed over empty): the joining delivery is the head, and
  // recorded as such — else the next join would find none either, and go at once beside it.
  const recorded = head ?? deliveryId;
  if (recorded !== lane.headId) await setHead(conn, session, endpointId, key, recorded);
  return { sequence: lane.lastSequence, wait: head !== null, due };
}

/**
 * `ended` left the open statuses (or was deleted) in the caller's transaction: when it was its
 * lane's head, the lane's next by sequence becomes the head and claimable (`held` as given:
 * whether its endpoint is not active). One point read of the lane, and for a head one seek
 * of deliveries_lane_wait. @returns the new head and its DueNote (pass it to noteDue after the
 * transaction commits), or null (not a head, or nothing waits).
 */
export async function handOver(conn: MongoConnection, session: ClientSession, ended: EndedDelivery, held: boolean): Promise<HandedOver | null> {
  const key = ended.orderingKey;
  if (key === undefined || key === null) return null;
  const q = P.laneWithHead(ended.endpointId, key, ended._id);
  const lane = await conn.deliveryLanes.findOne(q.filter, { ...q.options, session, projection: { _id: 1 } });
  if (lane === null) return null;
  const next = await promoteNext(conn, session, ended.endpointId, key, held);
  await setHead(conn, session, ended.endpointId, key, next?.id ?? null);
  return next;
}

/**
 * A recovery re-opens `deliveryId` (ordered, just made `retrying`, in the caller's
 * transaction): it goes now when its lane has no other open head, else it waits and follows
 * in sequence order as heads end, so a recovery re-sends each lane one at a time, in order.
 * @returns whether it waits (else it is in the due index: the caller notes it after the commit).
 */
export async function rejoinLane(conn: MongoConnection, session: ClientSession, endpointId: string, key: string, deliveryId: string): Promise<boolean> {
  const q = P.lane(endpointId, key);
  const lane = await conn.deliveryLanes.findOne(q.filter, { ...q.options, session, projection: { headId: 1 } });
  const head = lane?.headId ?? null;
  if (head !== null && head !== deliveryId && (await isOpen(conn, session, head))) {
    const d = P.delivery(deliveryId);
    await conn.bucketOf(deliveryId).deliveries.updateOne(d.filter, { $set: { laneWait: true } }, { ...d.options, session });
    // Written although the head stays: a hand-over racing this one now conflicts with it.
    await conn.deliveryLanes.updateOne(q.filter, { $inc: { rejoins: 1 } }, { ...q.options, session });
    return true;
  }
  if (head !== deliveryId) await setHead(conn, session, endpointId, key, deliveryId);
  return false;
}

/** What releaseLanes did. */
export interface ReleasedLanes {
  /** Waiting deliveries made claimable (`batch` at most). */
  released: number;
  /** Those of them in the due index now (not held): pass to noteDue after the transaction commits. */
  due: DueNote[];
  /** Whether more waiting deliveries may be left (the batch filled with them): the walk's to let go of. */
  more: boolean;
}

/**
 * The endpoint no longer orders (`ordering: none`), in the caller's transaction: up to `batch`
 * of its waiting deliveries become claimable, month by month from the oldest, and when that was
 * all of them up to `batch` of its lanes forget their heads (delivery_lanes_endpoint_head: a
 * lane let go of leaves it). Waiting deliveries beyond `batch` are the endpoint's walk's
 * (`unlane`, letGoOfLanes; meanwhile each is made its lane's head in turn); a lane beyond it
 * still naming a head lets go of it when that head ends (handOver: nothing waits behind it).
 * Examines ≤ 2 × batch, and a seek of each month read. `heads: false` (the walk's batches) lets
 * go of waiting deliveries only: a lane's head is usually being sent, and its completion writes
 * the lane's document, so the walk leaves that to handOver rather than conflict with every one.
 * `held: true` (an endpoint not active) releases them held, as promoteNext makes a lane's next
 * one, for a resume's release walk to judge (its `releaseHeldSince` rule), not into the due index.
 * @returns how many were released, their DueNotes, and whether more may be left.
 */
export async function releaseLanes(
  conn: MongoConnection,
  session: ClientSession,
  endpointId: string,
  batch: number,
  { heads = true, held = false }: { heads?: boolean; held?: boolean } = {},
): Promise<ReleasedLanes> {
  const w = P.waitingOfEndpoint(endpointId);
  const result: ReleasedLanes = { released: 0, due: [], more: false };
  for (const month of await conn.months()) {
    if (result.released >= batch) break;
    const { deliveries } = conn.bucket(month);
    const waiting = await deliveries
      .find(w.filter, { ...w.options, session, projection: { _id: 1, orgId: 1, env: 1, endpointId: 1, dueAt: 1, nextAttemptAt: 1, held: 1 } })
      .limit(batch - result.released)
      .toArray();
    if (waiting.length === 0) continue;
    const ids = P.deliveries(waiting.map((d) => d._id));
    await deliveries.updateMany(ids.filter, { $set: held ? { laneWait: false, held: true } : { laneWait: false } }, { ...ids.options, session });
    result.released += waiting.length;
    if (!held) result.due.push(...waiting.filter((d) => d.held !== true).map((d) => dueNote(d, month)));
  }
  if (result.released < batch && heads) {
    const h = P.headedOfEndpoint(endpointId);
    const lanes = await conn.deliveryLanes
      .find(h.filter, { ...h.options, session, projection: { _id: 1 } })
      .limit(batch)
      .toArray();
    if (lanes.length > 0) {
      const ids = P.headedByIds(lanes.map((l) => l._id));
      await conn.deliveryLanes.updateMany(ids.filter, { $set: { headId: null } }, { ...ids.options, session });
    }
  }
  result.more = result.released >= batch;
  return result;
}

/**
 * The most laneStats' two reads may take on the server together (readDeadline): under a scrape's wait
 * (SCRAPE_WAIT_MS, 6 s). A read that fails leaves the gauges at their last values.
 */
export const LANE_STATS_MS = 5_000;

/**
 * Lanes of the whole store for the metrics: open (a head), blocked (head retrying), the oldest
 * open head's creation. Bounded: the first LANE_STATS_LIMIT lanes with a head by head id (from
 * delivery_lanes_open, each lane's document fetched: plans/lanes.ts `headed`), then their heads by
 * id, one `$in` per month they are in, all within LANE_STATS_MS.
 * Delivery ids are stamped with their message's creation, so those are the oldest heads:
 * oldestHeadAt is exact, and `open` and `blocked` are exact below LANE_STATS_LIMIT lanes with a
 * head and saturate there (a gauge at the limit says "at least"). ≤ 2 × LANE_STATS_LIMIT keys
 * and 2 × LANE_STATS_LIMIT documents a read, whatever the number of lanes; a dispatcher sharing
 * its store reads it at most once per BACKLOG_REUSE_MS however often scraped (each replica reads
 * on its own: N replicas, N reads a scrape).
 */
export async function laneStats(conn: MongoConnection): Promise<{ open: number; blocked: number; oldestHeadAt: number | null }> {
  const left = readDeadline('the lane stats read', LANE_STATS_MS);
  const q = P.headed();
  const lanes = await conn.deliveryLanes
    .find(q.filter, { ...q.options, projection: { _id: 0, headId: 1 }, maxTimeMS: left() })
    .limit(LANE_STATS_LIMIT)
    .toArray();
  const ids = lanes.flatMap((l) => (typeof l.headId === 'string' ? [l.headId] : []));
  if (ids.length === 0) return { open: 0, blocked: 0, oldestHeadAt: null };
  const heads = await openOf(conn, ids, { status: 1, createdAt: 1 }, left());
  // One head per lane: a delivery heads at most one lane (its own).
  let blocked = 0;
  let oldest: number | null = null;
  for (const d of heads) {
    if (d.status === 'retrying') blocked += 1;
    if (oldest === null || d.createdAt < oldest) oldest = d.createdAt;
  }
  return { open: heads.length, blocked, oldestHeadAt: oldest };
}

/**
 * Removes up to `batch` lanes last used before `before`, oldest first (delivery_lanes_idle),
 * leaving any with an open head or a waiting delivery. The delete checks `lastUsedAt` again, so
 * a message that joined meanwhile keeps its lane; one that joins after starts a new lane at
 * sequence 1. @returns how many went.
 */
export async function pruneLanes(conn: MongoConnection, before: number, batch: number): Promise<number> {
  const q = P.idle(before);
  const idle = await conn.deliveryLanes
    .find(q.filter, { ...q.options, limit: batch, projection: { endpointId: 1, orderingKey: 1, headId: 1, lastUsedAt: 1 } })
    .toArray();
  if (idle.length === 0) return 0;
  const heads = idle.flatMap((l) => (l.headId === null ? [] : [l.headId]));
  const openHeads = new Set((await openOf(conn, heads, { _id: 1 })).map((d) => d._id));
  // A waiting delivery of each lane (deliveries_lane_wait, a seek a month, ≤ batch × months):
  // normally none, as their months are dropped by then. A lane's deliveries were created at
  // or before its lastUsedAt (its joins' $max; a rejoin or a retry by hand is of an older
  // one), so the months after it are not read.
  const months = await conn.months();
  const held = new Set<string>();
  await Promise.all(
    idle.map(async (l) => {
      const last = monthOf(l.lastUsedAt ?? before);
      for (const month of months) {
        if (month > last) break;
        const w = P.nextWaiting(l.endpointId, l.orderingKey);
        if ((await conn.bucket(month).deliveries.findOne(w.filter, { ...w.options, projection: { _id: 1 } })) !== null) {
          held.add(l._id);
          break;
        }
      }
    }),
  );
  const gone = idle.filter((l) => !(l.headId !== null && openHeads.has(l.headId)) && !held.has(l._id)).map((l) => l._id);
  if (gone.length === 0) return 0;
  const d = P.idleByIds(gone, before);
  const { deletedCount } = await conn.deliveryLanes.deleteMany(d.filter, d.options);
  return deletedCount;
}

/**
 * The lanes whose head is a delivery of `month`, which retention is about to drop, each handed
 * to its next waiting delivery in a LATER month (those waiting in `month` go with it), or to
 * none: up to `batch` lanes, each in a transaction of its own (held as handOver's: its endpoint
 * not active). The old head is failed in the same transaction, so it is not sent beside the new
 * one meanwhile (a claim of it conflicts, or then finds it ended). Reads the month's range of
 * delivery_lanes_open (delivery ids are time-ordered: the month's are one range of headId; the
 * legacy month's, every id before its end); each lane read leaves it. Call it until it returns
 * `handed` < `batch`, then drop the month.
 * @returns `handed`: the lanes read from the range; `due`: the new heads to pass to noteDue
 * (their transactions committed).
 * @throws the transaction's error (the lanes before it are handed over).
 */
export async function handOverLanesOfMonth(conn: MongoConnection, month: Month, batch: number): Promise<{ handed: number; due: DueNote[] }> {
  const from = month === conn.legacyMonth ? firstIdAt('delivery', 0) : firstIdAt('delivery', monthStartOf(month));
  return handOverRange(conn, { from, to: firstIdAt('delivery', monthStartOf(nextMonth(month))) }, month, batch);
}

/**
 * The lanes whose head is older than every month kept (`oldestKept`): a hand-over pointed one
 * back into a month while its drop was under way (a process's month list is up to a minute
 * old). Handed over as handOverLanesOfMonth does, to a delivery of a kept month or none.
 */
export async function handOverLanesBefore(conn: MongoConnection, oldestKept: Month, batch: number): Promise<{ handed: number; due: DueNote[] }> {
  // Every id before the legacy month's end is in its bucket, kept.
  if (oldestKept === conn.legacyMonth) return { handed: 0, due: [] };
  return handOverRange(conn, { from: firstIdAt('delivery', 0), to: firstIdAt('delivery', monthStartOf(oldestKept)) }, previousMonth(oldestKept), batch);
}

async function handOverRange(
  conn: MongoConnection,
  range: { from: string; to: string },
  last: Month,
  batch: number,
): Promise<{ handed: number; due: DueNote[] }> {
  if (batch <= 0) return { handed: 0, due: [] };
  const q = P.headedBetween(range.from, range.to);
  const lanes = await conn.deliveryLanes
    .find(q.filter, { ...q.options, projection: { _id: 0, orgId: 1, env: 1, endpointId: 1, orderingKey: 1 } })
    .limit(batch)
    .toArray();
  const due: DueNote[] = [];
  for (const lane of lanes) {
    const next = await conn.transaction((session) => handOverOutOf(conn, session, lane, last, range));
    if (next?.due) due.push(next.due);
  }
  return { handed: lanes.length, due };
}

/**
 * One lane of handOverRange, in its transaction: read again, so a head moved meanwhile is left
 * as it is; the old head (if its collection is still there) failed; the next from a month after
 * `last`.
 */
async function handOverOutOf(
  conn: MongoConnection,
  session: ClientSession,
  lane: { orgId: string; env: Tenant['env']; endpointId: string; orderingKey: string },
  last: Month,
  range: { from: string; to: string },
): Promise<HandedOver | null> {
  const q = P.lane(lane.endpointId, lane.orderingKey);
  const current = await conn.deliveryLanes.findOne(q.filter, { ...q.options, session, projection: { headId: 1 } });
  const head = current?.headId;
  if (typeof head !== 'string' || head < range.from || head >= range.to) return null;
  const h = P.openDelivery(head);
  await conn.bucketOf(head).deliveries.updateOne(h.filter, { $set: { status: 'failed', nextAttemptAt: null, leaseUntil: null } }, { ...h.options, session });
  const e = P.endpoint({ orgId: lane.orgId, env: lane.env }, lane.endpointId);
  const endpoint = await conn.endpoints.findOne(e.filter, { ...e.options, session, projection: { status: 1 } });
  // Held on a paused endpoint (after a resume's walk passed: released when it runs again, held-recheck.ts).
  const next = await promoteNext(conn, session, lane.endpointId, lane.orderingKey, endpoint?.status !== 'active', last);
  await setHead(conn, session, lane.endpointId, lane.orderingKey, next?.id ?? null);
  return next;
}

/**
 * Makes the lane's first waiting delivery (by sequence) the one that may be claimed, and held
 * when its endpoint is not active (`held`); on an active endpoint its `held` is left to a
 * resume's walk, which releases or fails it as the resume said. Only months after `after` are
 * looked at when given (retention's hand-over: `after` is being dropped). A seek per month,
 * then one update. @returns it with its DueNote (null when held), or null when none waits.
 */
async function promoteNext(
  conn: MongoConnection,
  session: ClientSession,
  endpointId: string,
  key: string,
  held: boolean,
  after: Month | null = null,
): Promise<HandedOver | null> {
  const q = P.nextWaiting(endpointId, key);
  // Every month's first by sequence, the smallest of them: sequences mostly follow creation,
  // but a recovery rejoins old deliveries and a pruned lane starts again at 1, so the next
  // may be in any month. In turn, not at once: the operations of a transaction are sequential.
  let first: { month: Month; sequence: number } | null = null;
  for (const month of await conn.months()) {
    if (after !== null && month <= after) continue;
    const d = await conn.bucket(month).deliveries.findOne(q.filter, { ...q.options, session, projection: { _id: 0, sequence: 1 } });
    const sequence = d?.sequence ?? null;
    if (sequence !== null && (first === null || sequence < first.sequence)) first = { month, sequence };
  }
  if (first === null) return null;
  // The same filter and sort in the transaction's snapshot: the delivery the seek found. A
  // change to it committed since is a write conflict, and the driver runs the whole transaction
  // again; so nothing here is retried, and a null (nothing matched) is "none waits".
  const { deliveries } = conn.bucket(first.month);
  const next = await deliveries.findOneAndUpdate(
    q.filter,
    { $set: held ? { laneWait: false, held: true } : { laneWait: false } },
    { ...q.options, session, projection: { _id: 1, orgId: 1, env: 1, endpointId: 1, dueAt: 1, nextAttemptAt: 1, held: 1 }, returnDocument: 'after' },
  );
  if (next === null) return null;
  const due = dueNote(next, first.month);
  return { id: next._id as DeliveryId, dueAt: due.dueAt, due: next.held === true ? null : due };
}

/** The note of a delivery just made due: at its dueAt (its next attempt's time while free), in its id's month. */
function dueNote(d: { orgId: string; env: Tenant['env']; endpointId: string; dueAt?: number | null; nextAttemptAt?: number | null }, month: Month): DueNote {
  return { orgId: d.orgId, env: d.env, endpointId: d.endpointId, month, dueAt: d.dueAt ?? d.nextAttemptAt ?? 0 };
}

/** The open ones of deliveries `ids` (any months), read by id: one `$in` per month, at once (no session). */
async function openOf(conn: MongoConnection, ids: readonly string[], projection: Document, maxTimeMS?: number): Promise<WithId<DeliveryDoc>[]> {
  const found = await Promise.all(
    [...conn.idsByBucket(ids)].map(([month, monthIds]) => {
      const q = P.openDeliveries(monthIds);
      const { deliveries } = conn.bucket(month);
      return deliveries.find(q.filter, { ...q.options, projection, ...(maxTimeMS === undefined ? {} : { maxTimeMS }) }).toArray();
    }),
  );
  return found.flat();
}

async function setHead(conn: MongoConnection, session: ClientSession, endpointId: string, key: string, headId: string | null): Promise<void> {
  const q = P.lane(endpointId, key);
  await conn.deliveryLanes.updateOne(q.filter, { $set: { headId } }, { ...q.options, session });
}

async function isOpen(conn: MongoConnection, session: ClientSession, id: string): Promise<boolean> {
  const q = P.delivery(id);
  const doc = await conn.bucketOf(id).deliveries.findOne(q.filter, { ...q.options, session, projection: { status: 1 } });
  return doc !== null && OPEN_STATUSES.includes(doc.status);
}

/** A manual retry puts the delivery at its lane's head (see the SQLite takeLaneHead). */
export async function takeLaneHead(conn: MongoConnection, session: ClientSession, endpointId: string, key: string, deliveryId: string): Promise<void> {
  const q = P.lane(endpointId, key);
  const lane = await conn.deliveryLanes.findOne(q.filter, { ...q.options, session, projection: { headId: 1 } });
  if (lane === null) return;
  if (lane.headId !== null && lane.headId !== deliveryId) {
    // The displaced head waits (it leaves the due index: nothing to note).
    const h = P.openDelivery(lane.headId);
    await conn.bucketOf(lane.headId).deliveries.updateOne(h.filter, { $set: { laneWait: true } }, { ...h.options, session });
  }
  await setHead(conn, session, endpointId, key, deliveryId);
}
