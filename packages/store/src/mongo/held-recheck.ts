import type { EndpointId, Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import type { MongoConnection } from './connection.ts';
import type { EndpointRecheckDoc } from './documents.ts';
import { recordWalk } from './endpoint-walk.ts';
import { ENDPOINTS_PLANS as P } from './plans/endpoints.ts';
import { scope } from './query.ts';

// A send (or a completion, or a lane's hand-over) that holds a delivery because its endpoint is
// paused races a resume: its transaction read the endpoint paused before the resume committed
// (snapshot isolation), and commits after the resume's release walk went past — the delivery
// would stay held on an active endpoint for good (on a deleted one, open for good). Nothing such
// a write touches is shared with the resume: eight markers, one written by every held send and
// all by a resume, made the two conflict, but under heavy sends to a paused endpoint every run
// of the resume met one in flight, and it failed once the driver's 120 s of retries were spent.
// Instead, the resume (or a paused endpoint's delete) leaves a recheck: HELD_RECHECK_MS later,
// when every transaction that could have read the endpoint paused has ended, its walk runs once
// more and releases what such a write held, or fails it when the endpoint has gone or was
// stopped for its failures meanwhile. (The other way round — a delivery left due on an endpoint
// that is no longer active — is stranded.ts's.)

/**
 * How long after a resume or delete its walk runs again. MongoDB aborts a transaction that has
 * lived transactionLifetimeLimitSeconds (60 s by default), found by a reaper that runs every half
 * of that: none lives past 90 s on a replica set. The resume's own transaction may commit up to
 * 90 s after it read the clock here, and a send that read the endpoint before that commit may
 * commit up to 90 s after it (a send holds a delivery only on a read in its transaction: one
 * before it is taken only when every endpoint was active, message-create.ts); the dispatcher that
 * starts the recheck may read a clock a minute ahead (START_SKEW_MS): 4 minutes in all, and one
 * more of margin. warnLongTransactions tells at
 * start of a server whose limit is longer.
 */
export const HELD_RECHECK_MS = 5 * 60_000;
/** The transaction lifetime HELD_RECHECK_MS is reckoned for (MongoDB's default), in seconds. */
export const RECKONED_TRANSACTION_LIFETIME_S = 60;
/** Rechecks one read starts at most (walkEndpoints reads again a second later). */
export const RECHECKS_PAGE = 100;
/** How long a recheck that failed to start waits before it is tried again (behind those due meanwhile). */
export const FAILED_RECHECK_WAIT_MS = 60_000;
/**
 * How long one read goes on starting the rechecks it found: the walk job waits for them, and a
 * recheck's transaction may retry on write conflicts with the walks for up to the driver's 120 s,
 * so no recheck is started past this and the rest are started by the next read, a second later.
 * A soft bound: the one started last may still run its retries out.
 */
export const RECHECKS_TIME_BOX_MS = 5_000;

/** What the walk does again: a resume's release (with its bound), or a delete's fail. */
export type Recheck = { heldSince: number } | { fail: true };

/**
 * Asks, in the caller's transaction, for the endpoint's walk to run again HELD_RECHECK_MS after
 * `now` (the real clock's: what it bounds is the server's transactions). A later ask moves it
 * on (the later resume's window is the one left); a delete's makes it a fail.
 */
export async function scheduleRecheck(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  endpointId: EndpointId,
  recheck: Recheck,
  now: number,
): Promise<void> {
  const q = P.recheck(endpointId);
  const what = 'fail' in recheck ? { fail: true } : { heldSince: recheck.heldSince };
  await conn.endpointRechecks.updateOne(
    q.filter,
    { $set: what, $max: { at: now + HELD_RECHECK_MS }, $setOnInsert: { ...scope(t), ...('fail' in recheck ? { heldSince: null } : { fail: false }) } },
    { ...q.options, session, upsert: true },
  );
}

/**
 * Starts the rechecks whose time has come by the real clock, as scheduleRecheck set it (at most RECHECKS_PAGE, in a random order, so that
 * dispatchers reading one page at once mostly take different ones): each is removed and its
 * walk recorded in one transaction, for at most RECHECKS_TIME_BOX_MS (those not reached are left
 * due). One that fails is left for the next read, the others go on; the first error is thrown once
 * all were tried.
 * @returns how many walks it recorded.
 */
export async function startDueRechecks(conn: MongoConnection, now: number): Promise<number> {
  const q = P.rechecksDue(now);
  const due = shuffled(await conn.endpointRechecks.find(q.filter, q.options).limit(RECHECKS_PAGE).toArray());
  let started = 0;
  let failure: unknown;
  const until = Date.now() + RECHECKS_TIME_BOX_MS;
  for (const recheck of due) {
    if (Date.now() >= until) break; // the rest are still due: the next read starts them
    try {
      started += await conn.transaction((session) => startRecheck(conn, session, recheck));
    } catch (err) {
      failure ??= err;
      // To the back of the line for a minute: rechecks that keep failing never fill every page.
      const read = P.recheckAsRead(recheck._id, recheck.at);
      await conn.endpointRechecks.updateOne(read.filter, { $set: { at: now + FAILED_RECHECK_WAIT_MS } }, read.options).catch(() => undefined);
    }
  }
  if (failure !== undefined) throw failure;
  return started;
}

/**
 * One recheck, as the endpoint stands now: active, its release again; gone, or stopped for its
 * failures (a disabled endpoint with a reason: its open deliveries fail), a fail; paused, or
 * disabled by hand, nothing (its held deliveries wait for its next resume, which asks its own).
 * @returns 1 when it recorded a walk.
 */
async function startRecheck(conn: MongoConnection, session: ClientSession, recheck: EndpointRecheckDoc): Promise<number> {
  const endpointId = recheck._id as EndpointId;
  const t = { orgId: recheck.orgId, env: recheck.env } as Tenant;
  const read = P.recheckAsRead(endpointId, recheck.at);
  // Moved on by a later resume since the page read it (or started by another dispatcher): left.
  // The document as removed, not as the page read it: a resume since may have changed its bound.
  const taken = await conn.endpointRechecks.findOneAndDelete(read.filter, { ...read.options, session });
  if (taken === null) return 0;
  const ep = P.byId(t, endpointId);
  const endpoint = await conn.endpoints.findOne(ep.filter, { ...ep.options, session, projection: { status: 1, disabledReason: 1 } });
  if (taken.fail || endpoint === null || (endpoint.status === 'disabled' && endpoint.disabledReason != null)) {
    await recordWalk(conn, session, t, endpointId, 'fail');
    return 1;
  }
  if (endpoint.status !== 'active') return 0;
  await recordWalk(conn, session, t, endpointId, 'release', taken.heldSince ?? 0);
  return 1;
}

/** Reads the server's transactionLifetimeLimitSeconds at start and tells when it is longer than HELD_RECHECK_MS is reckoned for. */
export async function warnLongTransactions(conn: MongoConnection, log: (line: string) => void): Promise<void> {
  let limit: unknown;
  try {
    limit = (await conn.db.admin().command({ getParameter: 1, transactionLifetimeLimitSeconds: 1 }))['transactionLifetimeLimitSeconds'];
  } catch {
    return; // not allowed to read it (a managed service's restricted user): nothing to tell
  }
  if (typeof limit !== 'number' || limit <= RECKONED_TRANSACTION_LIFETIME_S) return;
  log(
    `MongoDB's transactionLifetimeLimitSeconds is ${limit} (Wirehook reckons with ${RECKONED_TRANSACTION_LIFETIME_S}, the default): ` +
      'a delivery held in the instant of a resume may stay held past its recheck five minutes on; ' +
      'pausing and resuming the endpoint again releases it (docs/operations.md)',
  );
}

function shuffled<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
