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
    const date = httpDate(value);
    if (Number.isNaN(date) || !/[a-z]/i.test(value)) return null;
    until = date;
  }
  if (!Number.isFinite(until) || until <= now) return null;
  return Math.min(until, now + MAX_RETRY_AFTER_MS);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** RFC 9110's obsolete asctime form, `Sun Nov  6 08:49:37 1994`: a time in UTC that names no zone. */
const ASCTIME = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (${MONTHS.join('|')}) ([ \\d]\\d) (\\d\\d):(\\d\\d):(\\d\\d) (\\d{4})$`);

/**
 * An HTTP date as Unix ms (NaN: unreadable). The asctime form is read as UTC: `Date.parse` reads
 * a date without a zone in the host's, so west of UTC "in 30 s" held the endpoint the hour's
 * cap, and east of it the hold was already over. The IMF and RFC 850 forms name GMT.
 */
function httpDate(value: string): number {
  const asctime = ASCTIME.exec(value);
  if (asctime === null) return Date.parse(value);
  const [, month, day, hours, minutes, seconds, year] = asctime;
  return Date.UTC(Number(year), MONTHS.indexOf(month!), Number(day), Number(hours), Number(minutes), Number(seconds));
}
