import type { EndpointId, Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import type { MongoConnection } from './connection.ts';
import type { Month } from './months.ts';
import { DELIVERIES_PLANS as P } from './plans/deliveries.ts';
import { unwrittenSucceededRollups } from './endpoint-stats-repo.ts';
import { ENDPOINTS_PLANS as EP } from './plans/endpoints.ts';
import { POINT_OP_MS } from './query.ts';
import {
  type AttemptSeen,
  newestOfStreak,
  type RollupRange,
  rollupRangesToRead,
  STREAK_CHECKED_ATTEMPTS,
  type StreakRestart,
  streakRestart,
  type SucceededBucket,
} from './streak-window.ts';

/**
 * Before a completion disables its endpoint for a 5-day failure streak (attempt-effects.ts): whether
 * the endpoint succeeded since that streak began. On MongoDB a streak's end and start are written
 * apart from their deliveries (delivery-complete.ts), and either can miss: a success's clear
 * refused while the database sheds load (its delivery is sent again only after its lease), or a
 * failure's start written behind a success that read no streak — each leaves `failingSince` older
 * than the endpoint's last success, and the next failure read it as 5 days of failing and stopped
 * an endpoint that had just worked.
 *
 * So the disabling reads the endpoint's STREAK_CHECKED_ATTEMPTS newest attempts since the streak began (as many of each
 * month kept, merged: attempts_endpoint; any made after this one's start too — a success begun during a slow failure, or
 * on a dispatcher whose clock is ahead). Those of a busy endpoint span seconds, so when they hold no success and do not
 * reach back to the streak's start, its rollups are read too (endpoint_rollups_endpoint: the newest bucket between the
 * two that counted a success, five-minute where kept, hourly before). A success found moves the streak's start to the
 * oldest failure of the endpoint's read after it (streak-window.ts says why never earlier than the truth), or ends it
 * when none is, which the transaction writes instead of the disabling (streakRestart). Unseen still: a success in the
 * bucket that holds the streak's start (an hour, past a day; it may be the success before the streak) or counted by
 * another process and not yet in the rollups (ROLLUP_FLUSH_MS; lost with a process that died), older than the attempts
 * read; and, read before the transaction, a success written between this read and the first run's snapshot (at most
 * two reads' POINT_OP_MS and a majority's lag) whose clear was lost too. Only a disabling pays for it: once an endpoint a
 * 5-day streak.
 *
 * Without `session`, before the disabling's transaction (delivery-complete.ts): every month at once, then both grains
 * at once, on the primary, with a majority's read concern. With one, in the transaction, one read after another (a
 * transaction's operations are sequential). Either way this process's successes not yet written to the rollups are
 * taken from its memory. Each read is limited to POINT_OP_MS: one over it fails the completion (its delivery sent again).
 *
 * @returns null when no success is seen since `failingSince`; else where the streak begins again (`since`), null there
 *   when no failure of the endpoint's was read after the success.
 */
export async function streakAfterNewestSuccess(
  conn: MongoConnection,
  t: Tenant,
  endpointId: EndpointId,
  failingSince: number,
  /** The disabling attempt's time: which rollups are kept. */
  now: number,
  session?: ClientSession,
): Promise<StreakRestart | null> {
  // Outside the transaction, what a majority has: a subset of the snapshot the transaction then reads in, so a success
  // seen here is not one a failover rolls back. In it, the transaction's snapshot.
  const inSession = session === undefined ? { readConcern: { level: 'majority' as const } } : { session };
  const q = P.attemptsInStreak(t, endpointId, failingSince);
  const options = { ...q.options, ...inSession, projection: { at: 1, responseStatus: 1, error: 1 }, maxTimeMS: POINT_OP_MS };
  const readMonth = (month: Month) => conn.bucket(month).attempts.find<AttemptSeen>(q.filter, options).limit(STREAK_CHECKED_ATTEMPTS).toArray();
  const newest = newestOfStreak(await inTurnOrAtOnce(await conn.months(), readMonth, session), failingSince);
  const ranges = rollupRangesToRead(newest, failingSince, now);
  const readRange = async (r: RollupRange): Promise<SucceededBucket[]> => {
    const b = EP.newestSucceededRollup(t, endpointId, r.grainMs, r.from, r.through);
    const found = await conn.endpointRollups.findOne(b.filter, { ...b.options, ...inSession, projection: { _id: 0, at: 1 }, maxTimeMS: POINT_OP_MS });
    return found === null ? [] : [{ grainMs: r.grainMs, at: found.at }];
  };
  // With this process's own counts not yet written (flushed every ROLLUP_FLUSH_MS): read from memory, not flushed first —
  // a flush has no time limit of its own and waits behind one under way, while this completion holds its lease.
  const unwritten = ranges.length === 0 ? [] : unwrittenSucceededRollups(conn, endpointId);
  const succeeded = [...(await inTurnOrAtOnce(ranges, readRange, session)).flat(), ...unwritten];
  return streakRestart(newest, failingSince, now, succeeded);
}

/** `read` of each of `items`: one after another in a transaction's session, else all at once. */
async function inTurnOrAtOnce<I, R>(items: readonly I[], read: (item: I) => Promise<R>, session: ClientSession | undefined): Promise<R[]> {
  if (session === undefined) return Promise.all(items.map(read));
  const results: R[] = [];
  for (const item of items) results.push(await read(item));
  return results;
}
