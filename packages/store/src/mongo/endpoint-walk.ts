import type { EndpointId, Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import type { EndpointWalkMode } from '../ports/delivery-port.ts';
import type { MongoConnection, MonthBucket } from './connection.ts';
import type { EndpointWalkDoc } from './documents.ts';
import type { DueNote } from './due-queue.ts';
import { READ_PER_PUT_OFF, releasePutOff } from './endpoint-put-off.ts';
import { refreshMessageStatuses } from './message-status.ts';
import { type Month, monthStartOf } from './months.ts';
import { handOver, releaseLanes, type EndedDelivery } from './ordered-lanes.ts';
import { ENDPOINTS_PLANS as P } from './plans/endpoints.ts';
import { scope } from './query.ts';
import { holdEndFields, holdEndsOf, leaveToWalk, touchWalk } from './walk-rest.ts';
import { type HoldEnds, nextHoldEnds } from '../hold-ends.ts';

// An endpoint's walk, as in the SQLite adapter (sqlite/endpoint-walk.ts, which says why): the
// bookkeeping a pause, resume, disable or delete leaves on the endpoint's open deliveries,
// at most `batch` deliveries a transaction. A claim takes only deliveries of an active
// endpoint whatever their `held` says, so sending never waits for it. Each batch reads a
// partial index its own change takes the deliveries out of (deliveries_endpoint_due_queue for a
// hold, deliveries_endpoint_held for a release, deliveries_endpoint_open_created for a fail), so
// every batch reads at most `batch` entries from the front of its range. A walk goes month by
// month, oldest first (months.ts): a batch reads a month's range for what it has left of `batch`,
// then the next month's, so it reads ≤ `batch` deliveries in all and one range seek a month listed
// (an empty month costs that seek only; the list holds the retained months and the next); it stops
// in the first month that filled it, recorded as the walk's `month`. A fail skips the months from
// its bound on. (One month a batch, as the first version went, left a walk pending for a round a
// month even when little was left: the made-ahead next month is always listed.) The rests
// of ended Retry-After holds (`putOffUntil`, `putOffMore`) are the exception: each batch reads
// newest month first across all months, about what it moves (5 × batch at most over all its
// ends), as endHold does, and seeks each month once an end (≤ HOLD_ENDS_KEPT ends).
// A release makes deliveries due: walkBatch returns them as `due`, which its caller passes to
// noteDue (due-queue.ts) AFTER the transaction has committed, never inside it.
// A hold leaves a delivery waiting in its ordered lane as it is: it is not claimable
// anyway, and a completion's hand-over while the endpoint is paused makes the next one held.
// A fail hands each lane whose head it ended to the next (ordered-lanes.ts: no triggers here).

/**
 * How many deliveries a request's own first batch of a walk changes (a pause, resume, delete,
 * an automatic disabling, the end of a Retry-After hold, an ordering dropped), where SQLite's does ENDPOINT_WALK_BATCH
 * (1,000; PUT_OFF_BATCH, the same, for a hold's end):
 * a MongoDB transaction on a request's path stays small. A fail's batch recounts a message per
 * delivery, and a batch's writes conflict with the endpoint's sends and completions committing
 * meanwhile (each conflict runs the whole transaction again, for up to the driver's 120 s), so
 * 1,000 there could hold a request for seconds. The walk job's batches (walkEndpoints) keep
 * ENDPOINT_WALK_BATCH: no one waits on them, and they do the rest.
 */
export const REQUEST_WALK_BATCH = 100;

/**
 * An endpoint that stops ordering lets go of its lanes, in the caller's transaction: `batch` of
 * them here (releaseLanes), the rest by its walk (`unlane`), as a pause's first batch and its walk;
 * `held` (the endpoint not active) lets them go held, for a resume to judge, as the walk does.
 * @returns the due notes to pass to noteDue after the commit.
 */
export async function letGoOfLanes(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  endpointId: EndpointId,
  batch: number,
  held: boolean,
): Promise<DueNote[]> {
  await touchWalk(conn, session, endpointId);
  const lanes = await releaseLanes(conn, session, endpointId, batch, { held });
  if (lanes.more) await leaveToWalk(conn, session, t, endpointId, { unlane: true });
  return lanes.due;
}

/**
 * Records an operation's walk in the caller's transaction (see the SQLite recordWalk). The walk
 * starts again at the oldest month: what this operation holds, releases or fails may be in
 * months it had passed (each month it walks again costs one seek when empty).
 */
export async function recordWalk(
  conn: MongoConnection,
  session: ClientSession | undefined,
  t: Tenant,
  endpointId: EndpointId,
  mode: EndpointWalkMode,
  bound: number | null = null,
): Promise<void> {
  const insert = { ...scope(t), hold: null, heldSince: null, failBefore: null };
  if (mode === 'fail') {
    const failBefore = bound ?? Number.MAX_SAFE_INTEGER;
    const { hold: _h, heldSince: _s, failBefore: _f, ...base } = insert;
    const q = P.walk(endpointId);
    await conn.endpointWalks.updateOne(
      q.filter,
      { $max: { failBefore }, $set: { month: null }, $setOnInsert: { ...base, hold: null, heldSince: null } },
      { ...q.options, session, upsert: true },
    );
  } else {
    const { hold: _h, heldSince: _s, ...base } = insert;
    const q = P.walk(endpointId);
    await conn.endpointWalks.updateOne(
      q.filter,
      { $set: { hold: mode, heldSince: bound, month: null }, $setOnInsert: base },
      { ...q.options, session, upsert: true },
    );
  }
}

/** A fail walk (a disabling's) fails nothing created at or after `at` (the endpoint left `disabled` then). */
export async function endFailAt(conn: MongoConnection, session: ClientSession | undefined, endpointId: EndpointId, at: number): Promise<void> {
  const q = P.walkFailing(endpointId);
  await conn.endpointWalks.updateOne(q.filter, { $min: { failBefore: at } }, { ...q.options, session });
}

/** Forgets a hold the endpoint no longer needs (it is active again). */
export async function dropHold(conn: MongoConnection, session: ClientSession | undefined, endpointId: EndpointId): Promise<void> {
  const holding = P.walkHolding(endpointId);
  await conn.endpointWalks.updateOne(holding.filter, { $set: { hold: null, heldSince: null } }, { ...holding.options, session });
  const done = P.walkDone(endpointId);
  await conn.endpointWalks.deleteOne(done.filter, { ...done.options, session });
}

/**
 * An endpoint that orders again keeps its lanes: its walk's `unlane` part ends in the PATCH's
 * transaction. That is a write to the walk document, so an unlane batch running meanwhile (it
 * read the endpoint unordered, and wrote the document first) conflicts with the PATCH and one of
 * them runs again on the other's result, instead of the batch committing up to
 * REQUEST_WALK_BATCH releases just after the endpoint ordered again. A walk with no unlane part
 * is not written (its other parts' batches are not made to run again).
 */
export async function keepLanes(conn: MongoConnection, session: ClientSession, endpointId: EndpointId): Promise<void> {
  const unlaning = P.walkUnlaning(endpointId);
  const { modifiedCount } = await conn.endpointWalks.updateOne(unlaning.filter, { $set: { unlane: null } }, { ...unlaning.options, session });
  if (modifiedCount === 0) return;
  const done = P.walkDone(endpointId);
  await conn.endpointWalks.deleteOne(done.filter, { ...done.options, session });
}

/** What one batch did (see the SQLite WalkBatch). */
export interface WalkBatch {
  released: number;
  failed: number;
  held: number;
  /** Deliveries this batch made due (a release): the caller passes them to noteDue after its transaction commits. */
  due: DueNote[];
}

/**
 * One batch of the endpoint's walk in the caller's transaction: its fail first, then its hold
 * or release, from the month the walk has reached on (oldest first, acrossMonths). The month
 * that filled the batch is recorded in its document; past the newest, that part is done.
 * Reads ≤ `batch` deliveries in all, and one range seek a month listed; an ended hold's rest
 * ≤ READ_PER_PUT_OFF × `batch` over all the walk's ends, one seek an end a month.
 * @returns what it did, with the DueNotes to pass to noteDue after the commit.
 */
export async function walkBatch(conn: MongoConnection, session: ClientSession, endpointId: EndpointId, now: number, batch: number): Promise<WalkBatch> {
  const result: WalkBatch = { released: 0, failed: 0, held: 0, due: [] };
  // A batch of nothing reads nothing (MongoDB's limit(0) is no limit at all).
  if (batch <= 0) return result;
  // A write first: a resume's dropHold or another dispatcher's batch on this walk now conflicts
  // with this transaction (one of them runs again on the other's result) instead of both
  // committing on a stale view (e.g. holding deliveries of an endpoint resumed meanwhile).
  const own = P.walk(endpointId);
  const walk = await conn.endpointWalks.findOneAndUpdate(own.filter, { $inc: { version: 1 } }, { ...own.options, session, returnDocument: 'after' });
  if (walk === null) return result;
  const t: Tenant = { orgId: walk.orgId, env: walk.env } as Tenant;
  let months = await conn.months();
  if (walk.month != null && !months.includes(walk.month)) {
    // A month this process's list (kept a minute) does not have: dropped since (retention drops
    // the oldest: the walk goes on from the next listed), or made since by another process, which
    // recorded it: the list is read again rather than the part taken for done.
    months = await conn.refreshMonths();
    // Still missing and newer than any listed (a read that missed it): left for a later batch.
    if (!months.includes(walk.month) && walk.month > (months.at(-1) ?? '')) return result;
  }
  // The month this part stopped in with more to do there (undefined: done, or nothing of it applies now).
  let stoppedIn: Month | undefined;
  let finished: Partial<EndpointWalkDoc> = {};
  if (walk.failBefore !== null) {
    const failBefore = walk.failBefore;
    // A month that starts at or after the bound holds nothing it fails.
    const before = months.filter((m) => m === conn.legacyMonth || monthStartOf(m) < failBefore);
    stoppedIn = await acrossMonths(before, walk.month, batch, (m, limit) => failMonth(conn, session, t, endpointId, conn.bucket(m), failBefore, limit, result));
    finished = { failBefore: null };
  } else if (walk.hold !== null) {
    const ep = P.byId(t, endpointId);
    const endpoint = await conn.endpoints.findOne(ep.filter, { ...ep.options, session, projection: { status: 1 } });
    const active = endpoint?.status === 'active';
    if (walk.hold === 'hold' && endpoint !== null && !active) {
      stoppedIn = await acrossMonths(months, walk.month, batch, (m, limit) => holdMonth(session, endpointId, conn.bucket(m), limit, result));
    } else if (walk.hold === 'release' && active) {
      const heldSince = walk.heldSince ?? 0;
      stoppedIn = await acrossMonths(months, walk.month, batch, (m, limit) =>
        releaseMonth(conn, session, t, endpointId, conn.bucket(m), heldSince, now, limit, result),
      );
    }
    finished = { hold: null, heldSince: null };
  } else if (holdEndsOf(walk).putOffUntil !== null) {
    // The rest of what ended Retry-After holds put off, each hold's in turn (hold-ends.ts), newest
    // month first, as the SQLite walk: due now, or at a new hold's end while one is in force
    // (sooner or later than the old end: there its own end, early or not, finds them; left at the
    // old end, each would be claimed then and put back). An end is done when its rest is all moved,
    // or due by now anyway. One read budget for the batch (READ_PER_PUT_OFF × batch), whatever
    // the number of ends; each end seeks each month listed once (≤ HOLD_ENDS_KEPT × months).
    if (now === 0) return result; // a call that releases nothing (a pause's first batch): left for the walk's next
    const ep = P.byId(t, endpointId);
    const endpoint = await conn.endpoints.findOne(ep.filter, { ...ep.options, session, projection: { heldUntil: 1 } });
    const dueAt = Math.max(endpoint?.heldUntil ?? 0, now);
    const kept = holdEndsOf(walk);
    let ends = kept;
    let read = READ_PER_PUT_OFF * batch;
    while (ends.putOffUntil !== null) {
      const end = ends.putOffUntil;
      if (end > now && end !== dueAt) {
        const made = await releasePutOff(conn, session, t, endpointId, end, now, batch - result.released, dueAt, read);
        result.released += made.count;
        result.due.push(...made.due);
        read = made.readLeft;
        if (made.more) break;
      }
      ends = nextHoldEnds(ends, now);
    }
    if (ends.putOffUntil !== null) {
      // An end with more left: the next batch goes on from it (the ends before it are done; each
      // nextHoldEnds drops at least the end it passed, so `ends` is another object once any was).
      // Also written when the document's shape is not the one holdEndFields writes (an older
      // replica's `putOffUntil` cleared with `putOffMore` left): such a replica, taking the walk
      // for done, would delete it with ends still to do.
      if (ends !== kept || !storedAs(walk, ends)) await conn.endpointWalks.updateOne(own.filter, { $set: holdEndFields(ends) }, { ...own.options, session });
      return result;
    }
    finished = { putOffUntil: null, putOffMore: null };
  } else if (walk.unlane) {
    // The rest of the lanes of an endpoint that stopped ordering, while it still does not: one
    // that orders again keeps its lanes (and what waits in them) as they are. Their waiting
    // deliveries only, REQUEST_WALK_BATCH at a time: a completion hands its lane over by writing
    // the next waiting one, so a smaller batch conflicts with fewer of the endpoint's sends; a
    // head still being sent lets go of its lane when it ends (handOver: nothing waits behind it).
    if (now === 0) return result; // a call that releases nothing (a pause's first batch): left for the walk's next
    const ep = P.byId(t, endpointId);
    const endpoint = await conn.endpoints.findOne(ep.filter, { ...ep.options, session, projection: { ordering: 1, status: 1 } });
    if (endpoint !== null && (endpoint.ordering ?? 'none') === 'none') {
      // Held when the endpoint is not active: a resume's release walk then judges them as any held delivery.
      const held = endpoint.status !== 'active';
      // Nothing of a held endpoint is being sent, so nothing conflicts: the job's whole batch then.
      const size = held ? batch : Math.min(batch, REQUEST_WALK_BATCH);
      const lanes = await releaseLanes(conn, session, endpointId, size, { heads: false, held });
      result.released += lanes.released;
      result.due.push(...lanes.due);
      if (lanes.more) return result;
    }
    finished = { unlane: null };
  } else if (walk.putOffMore != null || walk.putOffUntil != null) {
    // Ends of which none is a time (a hand's edit): cleared, so the walk can go.
    finished = { putOffUntil: null, putOffMore: null };
  }
  if (stoppedIn !== undefined) {
    // More in that month: the next batch starts there (the months before it hold nothing of this part).
    if (stoppedIn !== walk.month) await conn.endpointWalks.updateOne(own.filter, { $set: { month: stoppedIn } }, { ...own.options, session });
    return result;
  }
  // This part done: the next (a hold or release after a fail) starts again at the oldest month.
  await conn.endpointWalks.updateOne(own.filter, { $set: { ...finished, month: null } }, { ...own.options, session });
  // Nothing left of it: gone.
  const done = P.walkDone(endpointId);
  await conn.endpointWalks.deleteOne(done.filter, { ...done.options, session });
  return result;
}

/** Whether the walk document keeps `ends` as holdEndFields writes them. */
function storedAs(walk: Pick<EndpointWalkDoc, 'putOffUntil' | 'putOffMore'>, ends: HoldEnds): boolean {
  const fields = holdEndFields(ends);
  return (walk.putOffUntil ?? null) === fields.putOffUntil && JSON.stringify(walk.putOffMore ?? null) === JSON.stringify(fields.putOffMore);
}

/**
 * A walk's part over `months` (oldest first) from the month it has reached: `step` reads a month
 * for at most what the batch has left and says how many it read. @returns the month that filled
 * the batch (it may hold more: the next batch starts there), or undefined when every month had
 * fewer than was left (the part is done).
 */
export async function acrossMonths(
  months: readonly Month[],
  reached: Month | null | undefined,
  batch: number,
  step: (month: Month, limit: number) => Promise<number>,
): Promise<Month | undefined> {
  let left = batch;
  for (const month of months) {
    if (reached !== null && reached !== undefined && month < reached) continue;
    const read = await step(month, left);
    if (read >= left) return month;
    left -= read;
  }
  return undefined;
}

/** A fail's batch in one month: its open deliveries created before the bound. @returns how many it read (≤ `batch`). */
async function failMonth(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  endpointId: EndpointId,
  bucket: MonthBucket,
  failBefore: number,
  batch: number,
  result: WalkBatch,
): Promise<number> {
  const q = P.failBatch(t, endpointId, failBefore);
  const rows = await bucket.deliveries
    .find(q.filter, { ...q.options, session, projection: LANE_FIELDS })
    .limit(batch)
    .toArray();
  // A next made head is left unheld: failed in turn by this walk, or found by due as stranded
  // (stranded.ts), or sent when the endpoint was enabled again meanwhile.
  await failDeliveries(conn, session, t, bucket, rows, result);
  return rows.length;
}

/** A hold's batch in one month: its deliveries in the due index. @returns how many it read (≤ `batch`). */
async function holdMonth(session: ClientSession, endpointId: EndpointId, bucket: MonthBucket, batch: number, result: WalkBatch): Promise<number> {
  const q = P.holdBatch(endpointId);
  const rows = await bucket.deliveries
    .find(q.filter, { ...q.options, session, projection: { _id: 1 } })
    .limit(batch)
    .toArray();
  if (rows.length > 0) {
    const ids = P.deliveriesByIds(rows.map((d) => d._id));
    await bucket.deliveries.updateMany(ids.filter, { $set: { held: true } }, { ...ids.options, session });
  }
  result.held += rows.length;
  return rows.length;
}

/**
 * A release's batch in one month: its held deliveries, due now if created at or after
 * `heldSince`, failed if before. @returns how many it read (≤ `batch`).
 */
async function releaseMonth(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  endpointId: EndpointId,
  bucket: MonthBucket,
  heldSince: number,
  now: number,
  batch: number,
  result: WalkBatch,
): Promise<number> {
  const q = P.releaseBatch(endpointId);
  const rows = await bucket.deliveries
    .find(q.filter, { ...q.options, session, projection: { ...LANE_FIELDS, createdAt: 1 } })
    .limit(batch)
    .toArray();
  const release = rows.filter((d) => d.createdAt >= heldSince);
  if (release.length > 0) {
    const ids = P.deliveriesByIds(release.map((d) => d._id));
    // Due now, in the due index again: dueAt with nextAttemptAt, except one still leased
    // (a send in flight when it was held), whose dueAt stays the lease's end (claimable once).
    await bucket.deliveries.updateMany(
      ids.filter,
      [{ $set: { held: false, nextAttemptAt: { $literal: now }, dueAt: { $cond: [{ $gt: ['$leaseUntil', now] }, '$leaseUntil', { $literal: now }] } } }],
      { ...ids.options, session },
    );
    // One waiting in its lane is not due (its hand-over notes it); `now` is a bound low enough for a leased one.
    if (release.some((d) => d.laneWait !== true)) result.due.push({ orgId: t.orgId, env: t.env, endpointId, month: bucket.month, dueAt: now });
  }
  result.released += release.length;
  await failDeliveries(
    conn,
    session,
    t,
    bucket,
    rows.filter((d) => d.createdAt < heldSince),
    result,
  );
  return rows.length;
}

/** Fails open deliveries a batch read in `bucket`, hands over the lanes they headed and refreshes their messages. */
async function failDeliveries(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  bucket: MonthBucket,
  rows: readonly (EndedDelivery & { messageId: string; laneWait?: boolean })[],
  result: WalkBatch,
): Promise<void> {
  if (rows.length === 0) return;
  const ids = P.deliveriesByIds(rows.map((d) => d._id));
  await bucket.deliveries.updateMany(ids.filter, { $set: { status: 'failed', nextAttemptAt: null } }, { ...ids.options, session });
  result.due.push(...(await endLanes(conn, session, rows, false)));
  await refreshMessageStatuses(
    conn,
    session,
    t,
    rows.map((d) => d.messageId),
  );
  result.failed += rows.length;
}

/** What a fail reads of each delivery: its message, and its lane for the hand-over. */
const LANE_FIELDS = { messageId: 1, endpointId: 1, orderingKey: 1, laneWait: 1 } as const;

/** Hands over the lanes whose heads `ended` were (a waiting delivery is no head: skipped). */
async function endLanes(
  conn: MongoConnection,
  session: ClientSession,
  ended: readonly (EndedDelivery & { laneWait?: boolean })[],
  held: boolean,
): Promise<DueNote[]> {
  const due: DueNote[] = [];
  for (const d of ended) {
    if (typeof d.orderingKey !== 'string' || d.laneWait === true) continue;
    const next = await handOver(conn, session, d, held);
    if (next?.due) due.push(next.due);
  }
  return due;
}

/** Endpoints with a walk left after `after` in id order, at most `limit`. */
export async function pendingWalksAfter(conn: MongoConnection, after: string, limit: number): Promise<EndpointId[]> {
  if (limit <= 0) return []; // limit(0) would read them all
  const q = P.walksAfter(after);
  const docs = await conn.endpointWalks
    .find(q.filter, { ...q.options, projection: { _id: 1 } })
    .limit(limit)
    .toArray();
  return docs.map((d) => d._id as EndpointId);
}

/**
 * Pending walks a process's first round reads past its cursor, to start at random among. Every
 * dispatcher runs the walk job from a cursor of its own, taking the next walk after it: all
 * starting at the first id, dispatchers started together would take the same walk in the same
 * order, each batch conflicting with the others' (walkBatch's first write) and run again on
 * their result. So does a process's first round that finds walks, and its first after they ran
 * out (its cursor then sits where every other's does: at the last walk they all took). Started
 * apart they tend to stay apart, but nothing keeps them so: one that catches up with another
 * shares its walks (a rerun does that walk's next batch, not the same one), no faster than one.
 * Later rounds go in turn, so no walk waits longer than a turn of the ring.
 */
export const WALK_SPREAD = 8;

/**
 * This round's walks from those read past the cursor (and from the start, wrapped): `endpoints`
 * in a row, from the first, or from a random place among the first WALK_SPREAD when `spread`
 * (Math.random's [0, 1)) is given.
 */
export function pickWalks(read: readonly EndpointId[], endpoints: number, spread?: number): EndpointId[] {
  const places = spread === undefined ? 1 : Math.min(WALK_SPREAD, Math.max(1, read.length - endpoints + 1));
  const from = Math.min(places - 1, Math.floor((spread ?? 0) * places));
  return read.slice(from, from + endpoints);
}
