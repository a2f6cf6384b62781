import type { EndpointId, Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import type { MongoConnection } from './connection.ts';
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
// Instead, the resume (or delete) leaves a recheck: HELD_RECHECK_MS later, when every
// transaction that could have read the endpoint paused has ended, its walk runs once more and
// releases (or fails) what such a write left. (The other way round — a delivery left due on an
// endpoint that is no longer active — is stranded.ts's.)

/**
 * How long after a resume or delete its walk runs again. MongoDB aborts a transaction that
 * has lived transactionLifetimeLimitSeconds (60 s by default), found by a reaper that runs every
 * half of that: none that read the endpoint before the resume commits more than 90 s after it.
 * The rest covers the processes' clocks (a minute apart at most, START_SKEW_MS) and a margin. A
 * deployment that raises the limit past 60 s raises this bound with it (docs/operations.md).
 */
export const HELD_RECHECK_MS = 3 * 60_000;
/** Rechecks one read starts at most (walkEndpoints reads again a second later). */
export const RECHECKS_PAGE = 100;

/** What the walk does again: a resume's release (with its bound), or a delete's fail. */
export type Recheck = { heldSince: number } | { fail: true };

/**
 * Asks, in the caller's transaction, for the endpoint's walk to run again HELD_RECHECK_MS after
 * `now`. A later ask moves it on (the later resume's window is the one left); a delete's makes
 * it a fail.
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
 * Starts the rechecks whose time has come (at most RECHECKS_PAGE): each is removed and its
 * walk recorded in one transaction, a release only while the endpoint is active (paused again,
 * its next resume asks for its own). @returns how many walks it recorded.
 */
export async function startDueRechecks(conn: MongoConnection, now: number): Promise<number> {
  const q = P.rechecksDue(now);
  const due = await conn.endpointRechecks.find(q.filter, q.options).limit(RECHECKS_PAGE).toArray();
  let started = 0;
  for (const recheck of due) {
    const endpointId = recheck._id as EndpointId;
    const t = { orgId: recheck.orgId, env: recheck.env } as Tenant;
    started += await conn.transaction(async (session) => {
      const read = P.recheckAsRead(endpointId, recheck.at);
      // Moved on by a later resume since the page read it: left for its new time.
      if ((await conn.endpointRechecks.deleteOne(read.filter, { ...read.options, session })).deletedCount === 0) return 0;
      if (recheck.fail) {
        await recordWalk(conn, session, t, endpointId, 'fail');
        return 1;
      }
      const ep = P.byId(t, endpointId);
      const endpoint = await conn.endpoints.findOne(ep.filter, { ...ep.options, session, projection: { status: 1 } });
      if (endpoint?.status !== 'active') return 0;
      await recordWalk(conn, session, t, endpointId, 'release', recheck.heldSince ?? 0);
      return 1;
    });
  }
  return started;
}
