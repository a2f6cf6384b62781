import type { DeliveryStatus, EndpointId, Tenant } from '@wirehook/core';
import type { ClientSession, Document } from 'mongodb';
import { attemptEffects, type AttemptAlert, type AttemptEffects, type EndpointAtCompletion } from '../attempt-effects.ts';
import type { AttemptOutcome, ClaimRef, CompletedAttempt } from '../ports/delivery-port.ts';
import type { MongoConnection, MonthBucket } from './connection.ts';
import type { AttemptDoc } from './documents.ts';
import { addToRollups } from './endpoint-stats-repo.ts';
import { settleMessageStatus } from './message-status.ts';
import { noteDue, type DueNote } from './due-queue.ts';
import { DELIVERIES_PLANS as P } from './plans/deliveries.ts';
import { COMPLETED_BY_MAJORITY } from './plans/plan.ts';
import { isUnconfirmedWrite, unavailableKind } from './errors.ts';
import { FailureStreak } from './failure-streak.ts';
import { type Month, monthOf } from './months.ts';
import { ENDPOINTS_PLANS as EP } from './plans/endpoints.ts';
import { recordWalk, REQUEST_WALK_BATCH, walkBatch } from './endpoint-walk.ts';
import { handOver } from './ordered-lanes.ts';
import { StreakClears } from './streak-clears.ts';
import { streakAfterNewestSuccess } from './streak-guard.ts';
import type { StreakRestart } from './streak-window.ts';
import { POINT_OP_MS, scope } from './query.ts';

/**
 * DeliveryRepo.complete: the attempt, the delivery's new state and the endpoint's failure
 * streak. A delivery of the month the attempt was made in has its attempt inserted first, on its
 * own (it happened, whatever its claim's state), beside the endpoint's read; then a plain
 * completion — the endpoint active, no disabling, no alert but a streak's `failing`, an unordered
 * delivery (plainCompletion): every success, and every retry but an automatic stop's — is one
 * update of the delivery by `_id`, its fence in the filter, with no transaction — a streak's end
 * before it (clearStreak), a start after it (startStreak). Anything else is one transaction of point writes
 * (the delivery, the lane's hand-over, the streak, an alert event) — a disabling's streak guard reads before it
 * (guardBeforeTransaction), so it holds the delivery's write only for its writes — which inserts the attempt once its delivery is found when it was not
 * inserted first (an earlier month's delivery: retention may have dropped its month), or writes
 * it again when its first insert was not confirmed by a majority. A process that dies between the
 * attempt and the delivery's write leaves the attempt on record and the delivery leased: it is sent
 * again when the lease ends, as after a death during the send. Its message's status follows the
 * write, by one update of the message (settleMessageStatus), so a fan-out's sibling completions do
 * not conflict. The state is written only while the claim is current (its lease token) and the
 * delivery open; otherwise only the attempt (it happened) and the delivery's attempt count. A
 * re-send asked for during the send (`resend`) keeps the delivery due now, manual. The endpoint's
 * rollups follow (addToRollups says why not with the rest).
 */
export async function completeDelivery(conn: MongoConnection, claim: ClaimRef, outcome: AttemptOutcome): Promise<CompletedAttempt> {
  const { tenant: t, deliveryId, endpointId } = claim;
  const { id: _id, ...fields } = outcome.attempt;
  const attempt: AttemptDoc = { _id, ...scope(t), ...fields };
  const bucket = conn.bucketOf(deliveryId);
  // The month the attempt was made in is never being dropped (retention drops months wholly past, an hour's margin after
  // their end: month-buckets.ts); an earlier month's may be, and a transaction makes no collection where an insert would
  // make a dropped one again — so an earlier month's delivery (a retry across a month's turn, a recovery) has its attempt
  // inserted in the transaction, once its delivery is found, as every completion did.
  // An ordered delivery's completion is the transaction's (its lane's hand-over): its attempt goes in it, not by a
  // majority's write of its own before it.
  const first = claim.ordered !== true && bucket.month >= monthOf(outcome.attempt.at);
  const [read, recorded] = await Promise.all([
    // Read only where a plain completion may follow (its attempt written first): otherwise the transaction reads it, and
    // writes the attempt — an overload here must not fail a completion whose attempt is on record nowhere.
    // Not read in a failover: no plain completion then — the transaction reads it in its snapshot (told once a streak).
    // Not read for another cause (an overload, a refusal): the completion fails once the attempt's insert has settled —
    // the transaction would be more work for the same primary — and the delivery is sent again after its lease.
    first
      ? endpointAtCompletion(conn, t, endpointId).then(
          (endpoint) => {
            endpointReads.succeeded(conn);
            return { endpoint };
          },
          (err: unknown) => {
            if (unavailableKind(err) !== 'failover') return { unread: err };
            endpointReads.failed(conn, err);
            return { endpoint: null };
          },
        )
      : { endpoint: null },
    first ? recordAttempt(conn, t, bucket, attempt, outcome) : ('in the transaction' as const),
  ]);
  if ('unread' in read) throw read.unread;
  const { endpoint } = read;
  const plain = recorded === 'confirmed' && claim.ordered !== true && plainCompletion(outcome, endpoint);
  // A plain completion's streak is written apart from its delivery: its end before it (clearStreak: one a majority did
  // not confirm sends the completion to the transaction, which clears again under its commit), its start after it.
  const streak = plain ? attemptEffects(outcome, false, endpoint).streak : 'keep';
  const clearAgain = streak === 'clear' && (await clearStreak(conn, t, endpointId, attempt)) === 'unconfirmed';
  const alone = plain && !clearAgain ? await completeAlone(conn, claim, outcome, endpoint) : null;
  // Read once, outside the transaction and any rerun of it: unlessSucceededSince uses it where its snapshot shows the same streak.
  const guard = alone === null ? await guardBeforeTransaction(conn, claim, outcome, endpoint) : null;
  // Its first run only: a rerun may come long after (a failover's), when a success written since — its clear lost in that
  // failover — is in the rerun's snapshot and not in the read; the rerun reads again in its snapshot.
  let runs = 0;
  const completed =
    alone ??
    (await conn.transaction((session) => completeInTransaction(conn, session, claim, outcome, attempt, recorded, clearAgain, runs++ === 0 ? guard : null)));
  const { due, settle, unconfirmed, ...result } = completed;
  const tell = (err: unknown) => process.emitWarning(`wirehook: after completing delivery ${deliveryId}: ${err instanceof Error ? err.message : String(err)}`);
  // Written: what follows is bookkeeping that must not turn a completed attempt into an
  // error (the caller would lose `endpointDisabled`, sent once, and the lane's next). Its
  // failures are told as a process warning; the healer (delivery-claim.ts: the due queue and
  // the messages' statuses) and the walk (walkEndpoints) finish what they left.
  try {
    // After the write (due-queue.ts says why): the retry and the lane's next in the due queue,
    // first: the message's status below must not delay (or, failing, skip) a wake-up. After a write a majority did not
    // confirm, not waited for: a majority that lagged 10 s would hold the completion's place as long again.
    const noted = noteDue(conn, due, { tenantsSoon: true });
    if (unconfirmed === undefined) await noted;
    else noted.catch(tell);
    // A disabling's first batch of the endpoint's other open deliveries, in a transaction of
    // its own rather than in the completion's: the rest go by the walk, as for a delete.
    if (result.endpointDisabled) {
      const failed = await conn.transaction((session) => walkBatch(conn, session, endpointId, attempt.at, REQUEST_WALK_BATCH));
      await noteDue(conn, failed.due);
    }
  } catch (err) {
    tell(err);
  }
  // After a plain write that applied (confirmed or not: it stands on the primary), and only then — one of a send that
  // outlived its lease (matched nothing, even in an unconfirmed reply: helper 286) began a streak dated before the
  // success that beat it (helper 278). Apart from the due note's:
  // lost, the endpoint's next failure begins it.
  if (alone?.applied === true && streak === 'start') {
    await startStreak(conn, t, endpointId, attempt).catch((err: unknown) =>
      process.emitWarning(`wirehook: beginning the failure streak of endpoint ${endpointId}: ${err instanceof Error ? err.message : String(err)}`),
    );
  }
  // Its message's status (the flag left on the delivery if this fails: the healer's repair).
  if (settle !== null) {
    await settleMessageStatus(conn, t, settle).catch((err: unknown) =>
      process.emitWarning(`wirehook: telling the message of delivery ${deliveryId} its result: ${err instanceof Error ? err.message : String(err)}`),
    );
  }
  // Summed in this process and flushed every few seconds (endpoint-stats-repo.ts). Every attempt counts, applied or not
  // (one recorded first counted as it was recorded, whatever failed after).
  if (recorded === 'in the transaction') await addToRollups(conn, t, outcome.attempt);
  if (unconfirmed !== undefined) throw unconfirmed;
  return result;
}

/** A completion's endpoint read before its plain write failing: every completion goes through the transaction meanwhile. */
const endpointReads = new FailureStreak("a completion's endpoint read failed (completed in a transaction instead)");

/** What a completion's write leaves to do once it is made: its due notes, and its message's result. */
interface Written extends CompletedAttempt {
  due: DueNote[];
  settle: { _id: string; messageId: string; status: DeliveryStatus; attemptCount: number } | null;
  /** A plain write the primary applied and a majority did not confirm: thrown once what follows the write is done. */
  unconfirmed?: unknown;
}

/** The fields a completion reads of the delivery as it was (findOneAndUpdate's `before`). */
const BEFORE = { messageId: 1, status: 1, resend: 1, endpointId: 1, orderingKey: 1, attemptCount: 1, held: 1 } as const;

/**
 * The delivery's new state, as one pipeline update: the attempt's status and next time, or — a
 * re-send asked for during the send (`resend`) — retrying and due now, manual. `held` is the
 * endpoint's (not active: a retry waits, out of the due index), or, on the plain path, the
 * delivery's own (`'$held'`: a pause's walk that held it during the send keeps it held).
 */
function newState(outcome: AttemptOutcome, at: number, held: boolean | '$held'): Document[] {
  const resend = { $eq: ['$resend', true] };
  return [
    {
      $set: {
        status: { $cond: [resend, 'retrying', { $literal: outcome.status }] },
        nextAttemptAt: { $cond: [resend, { $literal: at }, { $literal: outcome.nextAttemptAt }] },
        manual: resend,
        resend: false,
        leaseUntil: null,
        // Always a boolean (the due index's filter is `held: false`): a missing field reads as not held.
        held: held === '$held' ? { $eq: ['$held', true] } : { $literal: held },
        // The due queue's time: the retry's (or now, for a re-send asked for meanwhile).
        dueAt: { $cond: [resend, { $literal: at }, { $literal: outcome.nextAttemptAt }] },
        attemptCount: { $add: ['$attemptCount', 1] },
        policyAttempts: { $add: ['$policyAttempts', outcome.countsTowardPolicy ? 1 : 0] },
        lastAttemptAt: { $max: ['$lastAttemptAt', { $literal: at }] },
        // Until its message has the result (settleMessageStatus, after the write).
        messageStale: true,
      },
    },
  ];
}

/**
 * The endpoint's status and streak, on the primary, its newest (a secondary's, or a majority's,
 * would lag a streak just begun: a success taken for plain would leave it, and a failure days on
 * would disable the endpoint at once); null when deleted. A read a failover rolls back can only
 * turn a plain completion into one through the transaction, which reads again in its snapshot:
 * the plain write takes nothing from the endpoint.
 */
async function endpointAtCompletion(conn: MongoConnection, t: Tenant, endpointId: EndpointId): Promise<EndpointAtCompletion | null> {
  const e = P.endpointAtCompletion(t, endpointId);
  return toEndpointState(await conn.endpoints.findOne(e.filter, { ...e.options, projection: { status: 1, failingSince: 1 } }));
}

/** The endpoint's status and streak as a completion decides on them; null when deleted. */
function toEndpointState(found: { status: EndpointAtCompletion['status']; failingSince?: number | null } | null): EndpointAtCompletion | null {
  return found === null ? null : { status: found.status, failingSince: found.failingSince ?? null };
}

/** How a completion's attempt was written before its delivery: confirmed by a majority, standing on the primary alone, or not yet. */
type AttemptWritten = 'confirmed' | 'unconfirmed' | 'in the transaction';

/**
 * The attempt, before anything else: it happened (and it counts, once its insert is answered,
 * whatever fails after). One a majority has not confirmed in 10 s stands on the primary: the
 * completion then goes through the transaction, which writes it again (a no-op where it stood)
 * under the commit's majority — a failover between it and a plain write could roll it back under a
 * state the new primary kept, and failing the completion instead would send its delivery again at
 * every lease while a majority lags.
 */
async function recordAttempt(conn: MongoConnection, t: Tenant, bucket: MonthBucket, attempt: AttemptDoc, outcome: AttemptOutcome): Promise<AttemptWritten> {
  let written: AttemptWritten = 'confirmed';
  try {
    await bucket.attempts.insertOne(attempt, { writeConcern: COMPLETED_BY_MAJORITY, comment: 'attempts.record' });
  } catch (err) {
    if (!isUnconfirmedWrite(err)) throw err;
    written = 'unconfirmed';
  }
  await addToRollups(conn, t, outcome.attempt);
  return written;
}

/**
 * Whether this attempt's completion is plain whatever its delivery holds: the endpoint active, no
 * disabling, no alert but a streak's `failing` (a streak's end or start is written apart from the
 * delivery: clearStreak, startStreak). Its write then touches the delivery alone — unless
 * the delivery is ordered (a lane to hand over), which completeAlone's filter leaves to the
 * transaction. Decided without a re-send (`resend`): one asked for meanwhile changes only the
 * status (retrying), and takes an alert away (exhausted), never adds one.
 */
export function plainCompletion(outcome: AttemptOutcome, endpoint: EndpointAtCompletion | null): endpoint is EndpointAtCompletion {
  if (endpoint === null || endpoint.status !== 'active') return false;
  const e = attemptEffects(outcome, false, endpoint);
  // A streak's end (before the delivery's write: clearStreak) or start (with its `failing` event, after it: startStreak)
  // is written apart from the delivery: in the transaction, a flaky endpoint's every other completion wrote its
  // document, and those finishing together conflicted on it and ran again (helper 276).
  return !e.disable && e.alerts.every((a) => a === 'failing');
}

/**
 * A plain completion: one update of the delivery by `_id`, fenced by its lease token, its being
 * open and unordered, in no transaction (the attempt is on record already). @returns null when the
 * fence does not hold — claimed again, no longer open, or ordered: the transaction decides then.
 */
async function completeAlone(conn: MongoConnection, claim: ClaimRef, outcome: AttemptOutcome, endpoint: EndpointAtCompletion): Promise<Written | null> {
  const { tenant: t, deliveryId, leaseToken } = claim;
  const bucket = conn.bucketOf(deliveryId);
  const own = P.currentUnordered(t, deliveryId, leaseToken);
  const at = outcome.attempt.at;
  let unconfirmed: unknown;
  let before: Document | null;
  try {
    before = await bucket.deliveries.findOneAndUpdate(own.filter, newState(outcome, at, '$held'), {
      ...own.options,
      returnDocument: 'before',
      projection: BEFORE,
    });
  } catch (err) {
    // A majority not confirming it in 10 s: its reply carries the delivery as it was when it applied on the primary.
    // The completion fails all the same (the dispatcher's null: sent again only if a failover rolls the write back),
    // but its retry's due note goes first — without it the retry waited for its lease's end (a `$min` a rollback
    // leaves harmless). Not its message's result: written from a write a failover may roll back, on the message's own
    // shard or a new primary, it would outrank the resend's (equal attempt counts); the flag left on the delivery is
    // the healer's (helper 277). A reply with no delivery matched nothing (claimed again, or closed): not applied, the
    // attempt left uncounted (on record, as after a death between the two writes) — the transaction that would count
    // it waits for the same lagging majority, up to its 120 s, holding the completion's place (helper 282).
    const reply = isUnconfirmedWrite(err) ? unconfirmedBefore(err) : undefined;
    if (reply === undefined) throw err;
    if (reply === null) return { applied: false, endpointDisabled: false, due: [], settle: null };
    before = reply;
    unconfirmed = err;
  }
  if (before === null) return null;
  const effects = attemptEffects(outcome, before['resend'] === true, endpoint);
  const written = afterWrite(claim, bucket.month, outcome, before as BeforeDoc, effects, before['held'] === true);
  if (unconfirmed === undefined) return { applied: true, endpointDisabled: false, ...written };
  return { applied: true, endpointDisabled: false, due: written.due, settle: null, unconfirmed };
}

/**
 * A plain completion's success ends its endpoint's failure streak, before its delivery's write (a
 * death or a failure between the two leaves the delivery leased and sent again; after it, a lost
 * clear outlived its success, and a transient failure days later read the old streak and stopped
 * a working endpoint: helper 277): `failingSince` cleared where it is at or before the attempt (one
 * conditional write by `_id`), so a success that outlived its lease ends no streak begun after it.
 * Of two successes racing, one writes, where in the completion's transaction every one of a flaky
 * endpoint's completions finishing together conflicted on its document; of a drain's many, those
 * that finish while one clear is in flight share the next (streak-clears.ts). @returns
 * 'unconfirmed' when a majority did not confirm it in 10 s: a failover, or the endpoint's shard
 * apart from the delivery's, could lose it behind a delivery confirmed after it (helper 279), so
 * the transaction clears again.
 */
async function clearStreak(conn: MongoConnection, t: Tenant, endpointId: EndpointId, attempt: AttemptDoc): Promise<'confirmed' | 'unconfirmed'> {
  let clears = streakClears.get(conn);
  // Unconfirmed: those waiting go to their transactions at once, which clear again under their commits. A write not
  // answered within its time limit, a majority's wait and a margin (a connection that died without closing) is taken
  // for unconfirmed, and the next success of the endpoint writes again.
  if (clears === undefined) {
    clears = new StreakClears<'confirmed' | 'unconfirmed'>((result) => result === 'unconfirmed', {
      afterMs: STREAK_CLEAR_STALLED_MS,
      result: 'unconfirmed',
    });
    streakClears.set(conn, clears);
  }
  return clears.clear(`${t.orgId}/${t.env}/${endpointId}`, attempt.at, (at) => writeStreakEnd(conn, t, endpointId, at));
}

/** A streak clear's time limit on the server: a point write's, and a majority's wait (which maxTimeMS counts too). */
const STREAK_CLEAR_MAX_MS = POINT_OP_MS + COMPLETED_BY_MAJORITY.wtimeoutMS;
/** A streak's clear not answered this long (its time limit and a margin: a connection dead) is taken for unconfirmed. */
export const STREAK_CLEAR_STALLED_MS = STREAK_CLEAR_MAX_MS + 5_000;

/** Each connection's streak clears in flight, one an endpoint (streak-clears.ts). */
const streakClears = new WeakMap<MongoConnection, StreakClears<'confirmed' | 'unconfirmed'>>();

/** clearStreak's write: `failingSince` cleared where it began at or before `at`, confirmed by a majority. */
async function writeStreakEnd(conn: MongoConnection, t: Tenant, endpointId: EndpointId, at: number): Promise<'confirmed' | 'unconfirmed'> {
  try {
    // The plan is the transaction's too, where a write concern of its own is refused: given here.
    // A time limit too (every success of the endpoint in this process that comes meanwhile waits on this write): the
    // server counts a majority's wait in it, so it holds the write's own and the majority's 10 s.
    await endStreak(conn, t, endpointId, at, { writeConcern: COMPLETED_BY_MAJORITY, maxTimeMS: STREAK_CLEAR_MAX_MS });
    return 'confirmed';
  } catch (err) {
    // Not confirmed (a majority's wait run out), or not made through an election: the transaction, which retries through
    // one, clears again under its commit. Not an overload's (a server refusing work, mongos's time limit — 262 during a
    // shard's step-down too): the transaction would be a second round of work on a primary that refused the first; the
    // completion fails, and the delivery is sent again after its lease (at least once).
    if (unavailableKind(err) === 'failover') return 'unconfirmed';
    throw err;
  }
}

/**
 * A plain completion's failure begins its endpoint's failure streak, after its delivery's write:
 * `failingSince` set where none is and, only when that set it, the `failing` event queued — in a
 * transaction of those two documents (never a streak without its notice, nor a second notice from
 * a first failure that lost the race: its rerun finds the streak begun and writes nothing).
 */
async function startStreak(conn: MongoConnection, t: Tenant, endpointId: EndpointId, attempt: AttemptDoc): Promise<void> {
  await conn.transaction(async (session) => {
    if (await beginStreak(conn, session, t, endpointId, attempt.at)) await addAlertEvent(conn, session, t, 'failing', endpointId, attempt);
  });
}

/** `failingSince` cleared where the streak began at or before `at` (streakEnd): in a transaction's session, or with a write concern outside one. */
async function endStreak(
  conn: MongoConnection,
  t: Tenant,
  endpointId: EndpointId,
  at: number,
  options: { session: ClientSession } | { writeConcern: typeof COMPLETED_BY_MAJORITY; maxTimeMS: number },
): Promise<void> {
  const q = P.streakEnd(t, endpointId, at);
  await conn.endpoints.updateOne(q.filter, { $set: { failingSince: null } }, { ...q.options, ...options });
}

/** `failingSince` set to `at` where no streak is set (streakStart), in a transaction. @returns whether this set it. */
async function beginStreak(conn: MongoConnection, session: ClientSession, t: Tenant, endpointId: EndpointId, at: number): Promise<boolean> {
  const q = P.streakStart(t, endpointId);
  return (await conn.endpoints.updateOne(q.filter, { $set: { failingSince: at } }, { ...q.options, session })).modifiedCount === 1;
}

/** The fields BEFORE reads, as a completion uses them. */
type BeforeDoc = { messageId: string; resend?: boolean; attemptCount: number };

/**
 * The delivery as it was before a write the primary applied (a findAndModify's reply in a
 * write-concern error); null when the reply says it matched nothing; undefined when it says neither.
 */
function unconfirmedBefore(err: unknown): Document | null | undefined {
  const value = (err as { result?: { value?: unknown } }).result?.value;
  if (value === null) return null;
  return typeof value === 'object' ? (value as Document) : undefined;
}

/**
 * What an applied completion leaves for after its write: its delivery's due note when it retries
 * out of any hold (at the retry's time, or now for a re-send asked for meanwhile), and its message's result.
 */
function afterWrite(
  claim: ClaimRef,
  month: Month,
  outcome: AttemptOutcome,
  before: BeforeDoc,
  effects: AttemptEffects,
  held: boolean,
): Pick<Written, 'due' | 'settle'> {
  const { tenant: t, deliveryId, endpointId } = claim;
  const at = outcome.attempt.at;
  const due: DueNote[] =
    effects.status === 'retrying' && !held ? [{ ...t, endpointId, month, dueAt: before.resend === true ? at : (outcome.nextAttemptAt ?? at) }] : [];
  return { due, settle: { _id: deliveryId, messageId: before.messageId, status: effects.status, attemptCount: before.attemptCount + 1 } };
}

/**
 * Any other completion, in one transaction: the endpoint read again in its snapshot, the
 * delivery (fenced), its disabling's status, the lane's hand-over, the streak and the alert events.
 */
async function completeInTransaction(
  conn: MongoConnection,
  session: ClientSession,
  claim: ClaimRef,
  outcome: AttemptOutcome,
  attempt: AttemptDoc,
  /** Whether recordAttempt wrote it; if not, or not confirmed, it is written here once its delivery is found. */
  recorded: AttemptWritten,
  /** A plain success's streak clear a majority did not confirm: cleared again here, under the commit. */
  clearAgain = false,
  /** The streak guard's read before the transaction, if one was made (guardBeforeTransaction). */
  guard: GuardRead | null,
): Promise<Written> {
  const { tenant: t, deliveryId, endpointId, leaseToken } = claim;
  const bucket = conn.bucketOf(deliveryId);
  const at = outcome.attempt.at;
  const own = P.current(t, deliveryId, leaseToken);
  const e = EP.byId(t, endpointId);
  const endpoint = toEndpointState(await conn.endpoints.findOne(e.filter, { ...e.options, session, projection: { status: 1, failingSince: 1 } }));
  // Paused during the send: a retry waits, held, out of the due index (one held after a
  // resume's walk passed is released when that walk runs again: held-recheck.ts).
  const held = endpoint?.status !== 'active';
  // Before: the status it leaves (the message's counts move from it) and whether a re-send was asked for.
  const before = await bucket.deliveries.findOneAndUpdate(own.filter, newState(outcome, at, held), {
    ...own.options,
    session,
    returnDocument: 'before',
    projection: BEFORE,
  });
  if (before === null) {
    // A plain success's clear a majority did not confirm, cleared again under this commit. With its delivery written,
    // the streak's own clear below does it when the snapshot still shows the streak; when the snapshot already shows
    // the clear, it stands before this commit in the oplog, and the commit's majority confirms it.
    if (clearAgain) await endStreak(conn, t, endpointId, at, { session });
    // Claimed again since (this send outlived its lease), or failed with its endpoint: the
    // newer state stands. The attempt is on record (recordAttempt) and counted.
    const any = P.byId(t, deliveryId);
    const { matchedCount } = await bucket.deliveries.updateOne(
      any.filter,
      { $inc: { attemptCount: 1 }, $max: { lastAttemptAt: at } },
      { ...any.options, session },
    );
    // Gone: its month was dropped by retention during the send. No attempt either: an insert
    // would make the dropped collection again (without its indexes), outside any month kept.
    if (matchedCount > 0) await writeAttempt(bucket, session, attempt, recorded);
    return { applied: false, endpointDisabled: false, due: [], settle: null };
  }
  await writeAttempt(bucket, session, attempt, recorded);
  const effects = await unlessSucceededSince(conn, session, claim, outcome, before.resend === true, endpoint, guard);
  // Disabled by this attempt: it fails with its endpoint's other open deliveries (attempt-effects.ts).
  const written = before.resend === true ? 'retrying' : outcome.status;
  if (effects.status !== written) {
    await bucket.deliveries.updateOne(own.filter, { $set: { status: 'failed', nextAttemptAt: null } }, { ...own.options, session });
  }
  // Its end moves its ordered lane on: the next is named to be woken at once.
  const next = effects.handOver ? await handOver(conn, session, before, held) : null;
  await carryOut(conn, session, t, endpointId, attempt, effects, outcome.endpoint.disabledReason ?? null);
  // Its message learns the result after the commit (settleMessageStatus says why).
  const { due, settle } = afterWrite(claim, bucket.month, outcome, before, effects, held);
  if (next?.due) due.push(next.due);
  return { applied: true, endpointDisabled: effects.disable, ...(next !== null ? { laneNext: next.id } : {}), due, settle };
}

/** The attempt in the completion's transaction: inserted when not written before, upserted when its insert was not confirmed. */
async function writeAttempt(bucket: MonthBucket, session: ClientSession, attempt: AttemptDoc, recorded: AttemptWritten): Promise<void> {
  if (recorded === 'in the transaction') await bucket.attempts.insertOne(attempt, { session });
  if (recorded === 'unconfirmed') {
    // The upsert takes its `_id` from the filter.
    const { _id, ...fields } = attempt;
    const q = P.attemptById(_id);
    await bucket.attempts.updateOne(q.filter, { $setOnInsert: fields }, { ...q.options, upsert: true, session });
  }
}

/** The streak guard's answer (streak-guard.ts), and the streak it was read for. */
interface GuardRead {
  failingSince: number;
  restart: StreakRestart | null;
}

/**
 * The streak guard's read before a disabling's transaction, which would otherwise hold the delivery's write during it:
 * only when the endpoint read before (endpointAtCompletion) says this completion disables it — never on a plain one,
 * nor where no endpoint was read (an ordered delivery's, an earlier month's: the transaction reads then, as before).
 * @returns null when not read; the guard's answer else.
 * @throws the read's error but a failover's (the transaction, which retries through one, reads in its snapshot): an
 *   overload's fails the completion before a transaction that would load the same primary again.
 */
async function guardBeforeTransaction(
  conn: MongoConnection,
  claim: ClaimRef,
  outcome: AttemptOutcome,
  endpoint: EndpointAtCompletion | null,
): Promise<GuardRead | null> {
  if (endpoint === null || endpoint.failingSince === null || !attemptEffects(outcome, false, endpoint).disable) return null;
  const { failingSince } = endpoint;
  try {
    return { failingSince, restart: await streakAfterNewestSuccess(conn, claim.tenant, claim.endpointId, failingSince, outcome.attempt.at) };
  } catch (err) {
    if (unavailableKind(err) === 'failover') return null;
    throw err;
  }
}

/**
 * attemptEffects in the completion's transaction, with a disabling checked first against the
 * endpoint's newest attempts and rollups (streak-guard.ts): one that succeeded since its streak began keeps
 * the endpoint, the streak begun again after that success — written here, where it is still the
 * streak read. The guard's read before the transaction stands only for the streak this snapshot shows (a rerun's
 * included); for another (moved meanwhile: a race, often what made the transaction run again) it is read again here.
 */
async function unlessSucceededSince(
  conn: MongoConnection,
  session: ClientSession,
  claim: ClaimRef,
  outcome: AttemptOutcome,
  resend: boolean,
  endpoint: EndpointAtCompletion | null,
  guard: GuardRead | null,
): Promise<AttemptEffects> {
  const effects = attemptEffects(outcome, resend, endpoint);
  if (!effects.disable || endpoint === null || endpoint.failingSince === null) return effects;
  const { tenant: t, endpointId } = claim;
  const { failingSince } = endpoint;
  const found =
    guard?.failingSince === failingSince ? guard.restart : await streakAfterNewestSuccess(conn, t, endpointId, failingSince, outcome.attempt.at, session);
  if (found === null) return effects;
  // A compare-and-set on the streak the guard read for: the snapshot's, so a write since makes this transaction conflict.
  const q = P.streakRestart(t, endpointId, failingSince);
  await conn.endpoints.updateOne(q.filter, { $set: { failingSince: found.since } }, { ...q.options, session });
  // No failure of the endpoint's read after its newest success (this one began before it, or was not read): the streak
  // ended, and this attempt begins none — decided as for a streak begun now (no disabling, no alert); the next failure does.
  return attemptEffects(outcome, resend, { ...endpoint, failingSince: found.since ?? outcome.attempt.at });
}

/**
 * Writes what attemptEffects decided, in the completion's transaction: the endpoint's streak
 * (written only when it starts or ends), its disabling and walk, and the alert events.
 */
async function carryOut(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  endpointId: EndpointId,
  attempt: AttemptDoc,
  effects: AttemptEffects,
  reason: string | null,
): Promise<void> {
  // Two racing first failures both write the start; the second conflicts, runs again and keeps the streak.
  if (effects.streak === 'start') await beginStreak(conn, session, t, endpointId, attempt.at);
  // As a plain success's (clearStreak): a streak begun after this attempt is not its to end.
  if (effects.streak === 'clear') await endStreak(conn, t, endpointId, attempt.at, { session });
  if (effects.disable) {
    // Two racing completions both write the status here; the second conflicts, is run again
    // and finds the endpoint disabled, so the disabling is reported once.
    const active = P.activeEndpoint(t, endpointId);
    await conn.endpoints.updateOne(active.filter, { $set: { status: 'disabled', disabledReason: reason } }, { ...active.options, session });
    // Its open deliveries fail: a first batch after the commit, the rest by the walk (no bound
    // in time; see the SQLite adapter: leaving `disabled` bounds it).
    await recordWalk(conn, session, t, endpointId, 'fail');
  }
  // The outbox of notices: what this attempt did that an organization may be told of.
  for (const kind of effects.alerts) await addAlertEvent(conn, session, t, kind, endpointId, attempt);
}

/**
 * An outbox event for the alerting engine, `_id` `<orgId>:<endpointId>:<kind>`: one queued per
 * endpoint and kind, so two completions racing to queue it write one document (one conflicts,
 * runs again and finds it queued), and those of different endpoints share none. Ordered in its
 * organization's queue by the attempt's time (`seq`). It used to be numbered from the
 * organization's counter document: every completion that queued an event wrote that one, so an
 * organization's many failing endpoints queued their completions on it.
 */
export async function addAlertEvent(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  kind: AttemptAlert,
  endpointId: EndpointId,
  a: AttemptDoc,
): Promise<void> {
  // One queued event per endpoint and kind: a repeat while it waits (a flood) is collapsed into it.
  const queued = P.queuedAlertEvent(endpointId, kind);
  if ((await conn.alertEvents.findOne(queued.filter, { ...queued.options, session, projection: { _id: 1 } })) !== null) return;
  await conn.alertEvents.insertOne(
    {
      _id: `${t.orgId}:${endpointId}:${kind}`,
      seq: a.at,
      ...scope(t),
      kind,
      endpointId,
      at: a.at,
      error: a.error,
      responseStatus: a.responseStatus,
      deliveryId: a.deliveryId,
    },
    { session },
  );
}
