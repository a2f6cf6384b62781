import { attemptStatsKind, isCancelledAttempt, ROLLUP_RETENTION_MS, type RollupGrainMs, rollupStart } from '@wirehook/core';
import { newestFirst } from './mappers.ts';

// What the streak guard decides (streak-guard.ts), as pure functions of what it read: the endpoint's newest attempts since
// its streak began and, when those do not reach back to that start, its rollups that counted a success between the two.

/** The newest attempts of an endpoint the guard reads (each month's newest as many, merged). */
export const STREAK_CHECKED_ATTEMPTS = 64;

const FIVE_MINUTES_MS = 300_000 satisfies RollupGrainMs;
const HOUR_MS = 3_600_000 satisfies RollupGrainMs;

/** An attempt as the guard reads it. */
export interface AttemptSeen {
  _id: string;
  at: number;
  responseStatus: number | null;
  error: string | null;
}

/** Rollups of one grain to read: bucket starts `from` through `through`, both included. */
export interface RollupRange {
  grainMs: RollupGrainMs;
  from: number;
  through: number;
}

/** A rollup bucket that counted at least one success. */
export interface SucceededBucket {
  /** A grain of ROLLUP_GRAINS_MS (a bucket of another grain, or outside the ranges read, counts for nothing). */
  grainMs: number;
  at: number;
}

/** Where the streak begins again; null: it ends (no failure of the endpoint's known after the success). */
export interface StreakRestart {
  since: number | null;
}

/**
 * The endpoint's STREAK_CHECKED_ATTEMPTS newest after `failingSince` of every month's read, newest first (attempts_endpoint's
 * order). After it, as the read's filter says: one made at that millisecond may be the success before the streak's failure.
 */
export function newestOfStreak(reads: readonly (readonly AttemptSeen[])[], failingSince: number): AttemptSeen[] {
  return reads
    .flat()
    .filter((a) => a.at > failingSince)
    .sort(newestFirst)
    .slice(0, STREAK_CHECKED_ATTEMPTS);
}

/**
 * The rollups to read for a success older than the newest attempts: none when a success is among them, or when fewer
 * than STREAK_CHECKED_ATTEMPTS were read (those were every attempt since the streak began). Else the buckets wholly after
 * `failingSince` (one that holds it may hold the success that came before the streak: the streak began at the first
 * failure after a success, often in the same hour) up to the bucket that holds the oldest attempt read: five-minute ones
 * where that grain is kept (ROLLUP_RETENTION_MS, from the later of `now` and that attempt's time), hourly ones before
 * back to where they are kept, so no bucket is read twice.
 */
export function rollupRangesToRead(newest: readonly AttemptSeen[], failingSince: number, now: number): RollupRange[] {
  const oldest = newest.at(-1);
  if (newest.length < STREAK_CHECKED_ATTEMPTS || oldest === undefined || newest.some(isSuccess)) return [];
  // What each grain keeps is reckoned from `now`, the disabling dispatcher's clock, or the oldest attempt read, stamped
  // by another's, whichever is later: a disabler whose clock is behind would otherwise end the five-minute range hours
  // early and read neither grain there. Not the newest attempt read: one dated far ahead (a clock a day ahead) would move
  // both grains past the ranges' end, and no rollup would be read. The buckets' times are their attempts' (any dispatcher's
  // clock), so the ranges end at the oldest attempt read, not at `now`. An hour's start from which every five-minute
  // bucket is still kept (expired ones may still be there: unread), and one from which every hourly bucket is: neither
  // grain's range is wider than its retention keeps (289 and 193 buckets), however old the streak or late the pruning.
  const latest = Math.max(now, oldest.at);
  const fineFrom = rollupStart(latest - ROLLUP_RETENTION_MS[FIVE_MINUTES_MS], HOUR_MS) + HOUR_MS;
  const hourlyFrom = rollupStart(latest - ROLLUP_RETENTION_MS[HOUR_MS], HOUR_MS) + HOUR_MS;
  const ranges: RollupRange[] = [
    {
      grainMs: HOUR_MS,
      from: Math.max(firstBucketAfter(failingSince, HOUR_MS), hourlyFrom),
      through: Math.min(rollupStart(oldest.at, HOUR_MS), fineFrom - HOUR_MS),
    },
    {
      grainMs: FIVE_MINUTES_MS,
      from: Math.max(firstBucketAfter(failingSince, FIVE_MINUTES_MS), fineFrom),
      through: rollupStart(oldest.at, FIVE_MINUTES_MS),
    },
  ];
  return ranges.filter((r) => r.from <= r.through);
}

/**
 * Whether the endpoint succeeded since its streak began, from its newest attempts (newestOfStreak) and the buckets
 * among rollupRangesToRead's that counted a success. @returns null when neither shows one; else where the streak begins
 * again: at the oldest failure of the endpoint's after the newest success — among the attempts read, after the success
 * seen there or, when only a bucket showed one, at or after that bucket's end (its success may be anywhere in it) — null
 * there when no such failure was read. Never earlier than the first failure after the endpoint's newest success: that
 * failure is no later than any failure after a success; a success newer than the one used would be among the attempts read.
 */
export function streakRestart(newest: readonly AttemptSeen[], failingSince: number, now: number, succeeded: readonly SucceededBucket[]): StreakRestart | null {
  const success = newest.findIndex(isSuccess);
  if (success !== -1) return { since: oldestFailure(newest.slice(0, success)) };
  const read = rollupRangesToRead(newest, failingSince, now);
  const inRange = succeeded.filter((b) => read.some((r) => r.grainMs === b.grainMs && b.at >= r.from && b.at <= r.through));
  if (inRange.length === 0) return null;
  const successBefore = Math.max(...inRange.map((b) => b.at + b.grainMs));
  return { since: oldestFailure(newest.filter((a) => a.at >= successBefore)) };
}

/** The oldest failure of the endpoint's among `attempts` (newest first); null when none. */
function oldestFailure(attempts: readonly AttemptSeen[]): number | null {
  // Not the relay's faults (ours), nor cancels (nothing sent): neither moves a streak. A receiver's 429 or 503 with a
  // Retry-After moves none either, but reads here as the failure it looks like (the attempt keeps no verdict).
  return attempts.filter((a) => attemptStatsKind(a) !== 'relay' && !isCancelledAttempt(a)).at(-1)?.at ?? null;
}

function isSuccess(a: AttemptSeen): boolean {
  return attemptStatsKind(a) === 'succeeded';
}

/** The first bucket of `grainMs` whose every attempt is after `at` (one starting at `at` may hold an attempt made then). */
function firstBucketAfter(at: number, grainMs: RollupGrainMs): number {
  return rollupStart(at, grainMs) + grainMs;
}
