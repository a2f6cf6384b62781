const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Allowed re-send counts (re-sends after the first send). */
export const RETRY_COUNTS = [0, 1, 2, 3, 5, 7, 12] as const;
export type RetryCount = (typeof RETRY_COUNTS)[number];

/** Allowed interval choices. */
export const RETRY_INTERVALS = ['progressive', '1m', '5m', '30m', '1h', '6h'] as const;
export type RetryInterval = (typeof RETRY_INTERVALS)[number];

export interface RetryPolicy {
  count: RetryCount;
  interval: RetryInterval;
}

/** Count 7, progressive: 8 sends in all over about 28 hours. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({ count: 7, interval: 'progressive' });

/** Delays before re-send 1, 2, …; past the end, the last entry repeats. */
export const PROGRESSIVE_DELAYS_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR] as const;

const FIXED_DELAY_MS: Record<Exclude<RetryInterval, 'progressive'>, number> = {
  '1m': MINUTE,
  '5m': 5 * MINUTE,
  '30m': 30 * MINUTE,
  '1h': HOUR,
  '6h': 6 * HOUR,
};

/** The wait before re-send number `retryNo` (1-based). */
export function retryDelayMs(interval: RetryInterval, retryNo: number): number {
  if (interval !== 'progressive') return FIXED_DELAY_MS[interval];
  // Past the end of the list the last delay repeats ("then every 10 hours").
  const index = Math.min(Math.max(retryNo, 1), PROGRESSIVE_DELAYS_MS.length) - 1;
  return PROGRESSIVE_DELAYS_MS[index]!;
}

/** Time from the first send to the last re-send of a policy (retryPolicySchema refuses one over MAX_RETRY_SPAN_MS). */
export function retrySpanMs(policy: RetryPolicy): number {
  let span = 0;
  for (let n = 1; n <= policy.count; n++) span += retryDelayMs(policy.interval, n);
  return span;
}

/**
 * When attempt number `attemptNo` (1 = the first send) failed at `now`: the time of the
 * next attempt, or null when the policy has no re-send left.
 */
export function nextAttemptAt(policy: RetryPolicy, attemptNo: number, now: number): number | null {
  if (attemptNo > policy.count) return null;
  return now + retryDelayMs(policy.interval, attemptNo);
}
