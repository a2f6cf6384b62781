import { attemptStatsKind, type EndpointId, type Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import type { MongoConnection } from './connection.ts';
import { newestFirst } from './mappers.ts';
import { DELIVERIES_PLANS as P } from './plans/deliveries.ts';

/** The newest attempts of an endpoint read per month before a completion disables it. */
export const STREAK_CHECKED_ATTEMPTS = 64;

/**
 * Before a completion disables its endpoint for a 5-day failure streak (attempt-effects.ts): whether
 * the endpoint succeeded since that streak began. On MongoDB a streak's end and start are written
 * apart from their deliveries (delivery-complete.ts), and either can miss: a success's clear
 * refused while the database sheds load (its delivery is sent again only after its lease), or a
 * failure's start written behind a success that read no streak — each leaves `failingSince` older
 * than the endpoint's last success, and the next failure read it as 5 days of failing and stopped
 * an endpoint that had just worked. So the disabling transaction reads the endpoint's newest
 * attempts in the streak (STREAK_CHECKED_ATTEMPTS a month kept, attempts_endpoint): a success
 * among them moves the streak's start to the oldest attempt after it (the first failure, or a
 * receiver's hold, within moments of it), which the transaction writes instead (streakRestart). Only a disabling pays for it: once an endpoint a 5-day streak.
 * A success older than the 64 newest attempts of every month goes unseen: that many failures
 * after a success whose clear was lost, before the disabling's check — rare, and told in the docs.
 *
 * @returns where the streak begins again (the oldest attempt after the newest success read, or
 *   `at` when that success is the newest), or null when no success is among them.
 */
export async function streakAfterNewestSuccess(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  endpointId: EndpointId,
  failingSince: number,
  at: number,
): Promise<number | null> {
  const q = P.attemptsInStreak(t, endpointId, failingSince, at);
  const months = await conn.months();
  const perMonth = await Promise.all(
    months.map((month) =>
      conn
        .bucket(month)
        .attempts.find<{ _id: string; at: number; responseStatus: number | null; error: string | null }>(q.filter, {
          ...q.options,
          session,
          projection: { at: 1, responseStatus: 1, error: 1 },
        })
        .limit(STREAK_CHECKED_ATTEMPTS)
        .toArray(),
    ),
  );
  // Newest first across the months, as attempts_endpoint orders each.
  const newest = perMonth.flat().sort(newestFirst).slice(0, STREAK_CHECKED_ATTEMPTS);
  const success = newest.findIndex((a) => attemptStatsKind(a) === 'succeeded');
  if (success === -1) return null;
  return success === 0 ? at : newest[success - 1]!.at;
}
