// The streak guard's decision (streak-window.ts) without a server: the endpoint's newest attempts since its streak began
// and the rollup buckets that counted a success → no success seen (null), or where the streak begins again. Each limit
// on both sides: 64 attempts against 65 (and 63), a success at failingSince against one after it, a bucket that holds
// failingSince against the next, the bucket that holds the oldest attempt read against the next, the grains' split.
// The real-server case: streak-guard.test.ts.
import { CANCELLED_ATTEMPT_ERROR } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { type AttemptSeen, newestOfStreak, rollupRangesToRead, type SucceededBucket, streakRestart } from './streak-window.ts';

const MINUTE = 60_000;
const FIVE_MINUTES = 300_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 11, 2, 12); // an hour's start, and a five-minute bucket's
const FAILING_SINCE = NOW - 6 * DAY + 30 * MINUTE; // inside an hourly bucket

const failed = (at: number): AttemptSeen => ({ _id: `att_${at}`, at, responseStatus: 500, error: null });
const succeeded = (at: number): AttemptSeen => ({ _id: `att_${at}`, at, responseStatus: 204, error: null });
/** `n` failures a second apart, the newest at `newest`, newest first. */
const failures = (n: number, newest = NOW) => Array.from({ length: n }, (_, i) => failed(newest - i * 1_000));
const hourly = (at: number): SucceededBucket => ({ grainMs: HOUR, at });
const fiveMinute = (at: number): SucceededBucket => ({ grainMs: FIVE_MINUTES, at });

/** The decision on `attempts` read in one month (any order) and the buckets found. */
function decide(attempts: AttemptSeen[], buckets: SucceededBucket[] = [], failingSince = FAILING_SINCE, now = NOW) {
  return streakRestart(newestOfStreak([attempts], failingSince), failingSince, now, buckets);
}

describe('the streak guard’s decision (streak-window.ts)', () => {
  it('a success among the newest 64 attempts: the streak begun again at the oldest failure after it; as the 65th newest it is unseen', () => {
    expect(decide([...failures(63), succeeded(NOW - 63_000)])).toEqual({ since: NOW - 62_000 });
    expect(decide([...failures(64), succeeded(NOW - 64_000)])).toBeNull();
    // Newest first across the months read, whatever order each came in.
    const months = [failures(40), [succeeded(NOW - 63_000), ...failures(23, NOW - 40_000)]];
    expect(streakRestart(newestOfStreak(months, FAILING_SINCE), FAILING_SINCE, NOW, [])).toEqual({ since: NOW - 62_000 });
  });

  it('63 attempts read are every attempt since the streak began: no rollups read; 64 may not reach it: the rollups read', () => {
    const found = [fiveMinute(NOW - HOUR)];
    expect(rollupRangesToRead(newestOfStreak([failures(63)], FAILING_SINCE), FAILING_SINCE, NOW)).toEqual([]);
    expect(decide(failures(63), found)).toBeNull();
    expect(rollupRangesToRead(newestOfStreak([failures(64)], FAILING_SINCE), FAILING_SINCE, NOW)).not.toEqual([]);
    // The bucket ended before the oldest attempt read: every one read came after its success.
    expect(decide(failures(64), found)).toEqual({ since: NOW - 63_000 });
    expect(decide(failures(64), [])).toBeNull();
    // A success among the 64: no rollups read.
    expect(rollupRangesToRead(newestOfStreak([[...failures(63), succeeded(NOW - 63_000)]], FAILING_SINCE), FAILING_SINCE, NOW)).toEqual([]);
  });

  it('a success at the millisecond the streak began is not after it (it may be the one before its failure); one a millisecond later is', () => {
    expect(decide([failed(NOW), succeeded(FAILING_SINCE)])).toBeNull();
    expect(decide([failed(NOW), succeeded(FAILING_SINCE + 1)])).toEqual({ since: NOW });
    // A bucket that starts at that millisecond may hold that success: not counted; the next is.
    const onTheHour = NOW - 6 * DAY;
    expect(decide(failures(64), [hourly(onTheHour)], onTheHour)).toBeNull();
    expect(decide(failures(64), [hourly(onTheHour + HOUR)], onTheHour)).toEqual({ since: NOW - 63_000 });
  });

  it('a bucket that holds failingSince is not counted (the success before the streak is often in its hour); the next one is', () => {
    const holding = NOW - 6 * DAY; // FAILING_SINCE is 30 minutes into it
    expect(decide(failures(64), [hourly(holding)])).toBeNull();
    expect(decide(failures(64), [hourly(holding + HOUR)])).toEqual({ since: NOW - 63_000 });
    // Likewise a five-minute bucket, for a streak begun within the last day (where that grain is kept).
    const recent = NOW - 2 * HOUR + 150_000;
    expect(decide(failures(64), [fiveMinute(NOW - 2 * HOUR)], recent)).toBeNull();
    expect(decide(failures(64), [fiveMinute(NOW - 2 * HOUR + FIVE_MINUTES)], recent)).toEqual({ since: NOW - 63_000 });
  });

  it('the bucket that holds the oldest attempt read counts, the streak begun at the first failure read after its end; the next is unread', () => {
    // The oldest read at 11:58:57 is in the 11:55 bucket: its success may be as late as 11:59:59.999, so only failures
    // from 12:00 on are surely after it.
    expect(decide(failures(64), [fiveMinute(NOW - FIVE_MINUTES)])).toEqual({ since: NOW });
    // A success in a bucket after the oldest read's would be among the attempts read (none is): a bucket the read skips.
    expect(decide(failures(64), [fiveMinute(NOW)])).toBeNull();
    // No failure read after the bucket's end (all 64 in it): the streak ends; the next failure begins one.
    expect(decide(failures(64, NOW + 4 * MINUTE), [fiveMinute(NOW)])).toEqual({ since: null });
  });

  it('reads five-minute buckets from the first hour that grain is surely kept (a day: 289 at most), hourly ones before, none twice', () => {
    const ranges = rollupRangesToRead(newestOfStreak([failures(64)], FAILING_SINCE), FAILING_SINCE, NOW);
    const fineFrom = NOW - 23 * HOUR;
    expect(ranges).toEqual([
      { grainMs: HOUR, from: NOW - 6 * DAY + HOUR, through: fineFrom - HOUR },
      { grainMs: FIVE_MINUTES, from: fineFrom, through: NOW - FIVE_MINUTES },
    ]);
    const fine = ranges[1]!;
    expect((fine.through - fine.from) / FIVE_MINUTES + 1).toBeLessThanOrEqual(289);
    // Both sides of the split: each grain's bucket counts on its side only.
    expect(decide(failures(64), [fiveMinute(fineFrom)])).toEqual({ since: NOW - 63_000 });
    expect(decide(failures(64), [fiveMinute(fineFrom - FIVE_MINUTES)])).toBeNull();
    expect(decide(failures(64), [hourly(fineFrom - HOUR)])).toEqual({ since: NOW - 63_000 });
    expect(decide(failures(64), [hourly(fineFrom)])).toBeNull();
    // The newest of several: the streak begins after it.
    expect(decide(failures(64), [hourly(fineFrom - HOUR), fiveMinute(NOW - FIVE_MINUTES)])).toEqual({ since: NOW });
  });

  it('a relay’s fault or a cancel is no failure of the endpoint’s: the streak begins at the oldest failure read after the success', () => {
    const relay = { _id: 'att_relay', at: NOW - 63_000, responseStatus: null, error: 'relay: no source address' };
    const cancelled = { _id: 'att_cancel', at: NOW - 62_000, responseStatus: null, error: CANCELLED_ATTEMPT_ERROR };
    expect(decide([...failures(62), cancelled, relay], [fiveMinute(NOW - HOUR)])).toEqual({ since: NOW - 61_000 });
    expect(decide([failed(NOW), cancelled, relay, succeeded(NOW - 64_000)])).toEqual({ since: NOW });
  });

  it('a streak older than the hourly rollups are kept (8 days): read from the first hour still kept, never more than 193 hours', () => {
    const since = NOW - 30 * DAY + 30 * MINUTE;
    const [hours] = rollupRangesToRead(newestOfStreak([failures(64)], since), since, NOW);
    const kept = NOW - 8 * DAY + HOUR; // the hour after the oldest an 8-day retention may have pruned
    expect(hours).toEqual({ grainMs: HOUR, from: kept, through: NOW - DAY });
    expect((hours!.through - hours!.from) / HOUR + 1).toBeLessThanOrEqual(193);
    // A success in the hour before it is not read, whatever the pruning job left; one in that hour is.
    expect(decide(failures(64), [hourly(kept - HOUR)], since)).toBeNull();
    expect(decide(failures(64), [hourly(kept)], since)).toEqual({ since: NOW - 63_000 });
  });

  it('one attempt dated a year ahead among the 64 (a clock far ahead): the grains still reckoned from now, a success 30 minutes ago seen', () => {
    const attempts = [failed(NOW + 365 * DAY), ...failures(63)];
    expect(decide(attempts, [fiveMinute(NOW - 30 * MINUTE)])).toEqual({ since: NOW - 62_000 });
    expect(decide(attempts, [hourly(NOW - 2 * DAY)])).toEqual({ since: NOW - 62_000 });
  });

  it('a disabler whose clock is 2 hours behind the attempts: the grains reckoned from the oldest attempt read, a success 30 minutes ago seen', () => {
    const behind = NOW - 2 * HOUR;
    expect(decide(failures(64), [fiveMinute(NOW - 30 * MINUTE)], FAILING_SINCE, behind)).toEqual({ since: NOW - 63_000 });
    // The same success, the disabler's clock right: the same answer; a bucket after the oldest attempt read: not read.
    expect(decide(failures(64), [fiveMinute(NOW - 30 * MINUTE)])).toEqual({ since: NOW - 63_000 });
    expect(decide(failures(64), [fiveMinute(NOW)], FAILING_SINCE, behind)).toBeNull();
  });

  it('attempts dated 2 hours ahead (a dispatcher whose clock is ahead): each grain still within what it keeps, 289 and 193', () => {
    const ahead = failures(64, NOW + 2 * HOUR);
    const [hours, fine] = rollupRangesToRead(newestOfStreak([ahead], FAILING_SINCE), FAILING_SINCE, NOW);
    expect(fine).toMatchObject({ grainMs: FIVE_MINUTES, through: NOW + 2 * HOUR - FIVE_MINUTES });
    expect((fine!.through - fine!.from) / FIVE_MINUTES + 1).toBeLessThanOrEqual(289);
    expect((hours!.through - hours!.from) / HOUR + 1).toBeLessThanOrEqual(193);
  });
});
