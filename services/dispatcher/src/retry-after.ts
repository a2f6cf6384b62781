import { MAX_RETRY_AFTER_MS } from '@wirehook/core';

/** Statuses whose `Retry-After` holds the endpoint: the receiver asks to be slowed down. */
export const HOLDING_STATUSES: readonly number[] = [429, 503];

/**
 * When a receiver's `Retry-After` lets sends resume, as Unix ms, for a response of `status`
 * answered at `now`: delay seconds (`120`) or an HTTP date, cut to an hour after `now`. Null
 * when the status is not 429 or 503, the header is absent or unreadable, or it names no time
 * after `now` (nothing is held beyond the retry policy then).
 */
export function retryAfterUntil(status: number | null, header: string | null | undefined, now: number): number | null {
  if (status === null || !HOLDING_STATUSES.includes(status) || header == null) return null;
  const value = header.trim();
  let until: number;
  if (/^\d+$/.test(value)) {
    until = now + Number(value) * 1000;
  } else {
    const date = Date.parse(value);
    if (Number.isNaN(date) || !/[a-z]/i.test(value)) return null;
    until = date;
  }
  if (!Number.isFinite(until) || until <= now) return null;
  return Math.min(until, now + MAX_RETRY_AFTER_MS);
}
