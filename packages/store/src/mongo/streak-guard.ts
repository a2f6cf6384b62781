import { attemptStatsKind, type EndpointId, isCancelledAttempt, type Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import type { MongoConnection } from './connection.ts';
import { newestFirst } from './mappers.ts';
import { DELIVERIES_PLANS as P } from './plans/deliveries.ts';
import { POINT_OP_MS } from './query.ts';
import { STREAK_CHECKED_ATTEMPTS } from './streak-window.ts';

/**
 * Before a completion disables its endpoint for a 5-day failure streak (attempt-effects.ts): whether
 * the endpoint succeeded since that streak began. On MongoDB a streak's end and start are written
 * apart from their deliveries (delivery-complete.ts), and either can miss: a success's clear
 * refused while the database sheds load (its delivery is sent again only after its lease), or a
 * failure's start written behind a success that read no streak — each leaves `failingSince` older
 * than the endpoint's last success, and the next failure read it as 5 days of failing and stopped
 * an endpoint that had just worked. So the disabling transaction reads the endpoint's newest
 * attempts since the streak began (the STREAK_CHECKED_ATTEMPTS newest, read as as many of each month kept and merged,
 * attempts_endpoint; any
 * made after this one's start too: a success begun during a slow failure, or on a dispatcher
 * whose clock is ahead): a success among them moves the streak's start to the oldest attempt
 * after it that is the endpoint's failure (not the egress relay's), or ends it when none is,
 * which the transaction writes instead (streakRestart). Only a disabling pays for it: once an
 * endpoint a 5-day streak. A success older than the endpoint's 64 newest attempts goes unseen:
 * that many failures after a success whose clear was lost, before the check — told in the docs
 * (the hourly rollups' successes would see further: not read). The months are read one after
 * another (a transaction's operations are sequential), each within POINT_OP_MS: the transaction
 * holds its delivery's write meanwhile, and one read over it fails the completion (sent again).
 *
 * @returns null when no success is among them; else where the streak begins again (`since`),
 *   null there when no failure of the endpoint's came after the newest success.
 */
export async function streakAfterNewestSuccess(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  endpointId: EndpointId,
  failingSince: number,
): Promise<{ since: number | null } | null> {
  const q = P.attemptsInStreak(t, endpointId, failingSince);
  const options = { ...q.options, session, projection: { at: 1, responseStatus: 1, error: 1 }, maxTimeMS: POINT_OP_MS };
  const read: AttemptSeen[] = [];
  for (const month of await conn.months()) {
    read.push(...(await conn.bucket(month).attempts.find<AttemptSeen>(q.filter, options).limit(STREAK_CHECKED_ATTEMPTS).toArray()));
  }
  // Newest first across the months, as attempts_endpoint orders each.
  const newest = read.sort(newestFirst).slice(0, STREAK_CHECKED_ATTEMPTS);
  const success = newest.findIndex((a) => attemptStatsKind(a) === 'succeeded');
  if (success === -1) return null;
  // Not the relay's faults (ours), nor cancels (nothing sent): neither moves a streak. A receiver's 429 or 503 with a
  // Retry-After moves none either, but reads here as the failure it looks like (the attempt keeps no verdict).
  const failedAfter = newest.slice(0, success).filter((a) => attemptStatsKind(a) !== 'relay' && !isCancelledAttempt(a));
  return { since: failedAfter.at(-1)?.at ?? null };
}

type AttemptSeen = { _id: string; at: number; responseStatus: number | null; error: string | null };
