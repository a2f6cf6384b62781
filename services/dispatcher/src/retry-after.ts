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
    const date = httpDate(value, now);
    if (Number.isNaN(date)) return null;
    until = date;
  }
  if (!Number.isFinite(until) || until <= now) return null;
  return Math.min(until, now + MAX_RETRY_AFTER_MS);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d\\d):(\\d\\d):(\\d\\d)';
/**
 * UTC as servers write it: GMT (RFC 9110), and — read as robustly as RFC 9110 asks of a recipient —
 * `UTC`, `UT`, `Z` and a zero offset (`+0000`, `-0000`: Python's `formatdate`, Ruby's `rfc2822`, PHP's `DATE_RFC2822`).
 */
const UTC_ZONE = '(?:GMT|UTC|UT|Z|[+-]0000)';
/** RFC 9110's IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT` (the form a sender generates; a day of one digit read too). */
const IMF_FIXDATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d\\d?) ${MONTH} (\\d{4}) ${TIME} ${UTC_ZONE}$`, 'i');
/** RFC 9110's obsolete RFC 850 form, `Sunday, 06-Nov-94 08:49:37 GMT`. */
const RFC850 = new RegExp(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d\\d)-${MONTH}-(\\d\\d) ${TIME} ${UTC_ZONE}$`, 'i');
/** RFC 9110's obsolete asctime form, `Sun Nov  6 08:49:37 1994`: a time in UTC that names no zone. */
const ASCTIME = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`, 'i');

/**
 * An HTTP date (RFC 9110 § 5.6.7: the three forms, in UTC) as Unix ms; NaN when it is none of
 * them. Not `Date.parse`: it also took dates without a zone (`2026-11-25T12:00:30`, `Wed, 25 Nov
 * 2026 12:00:30`) in the host's zone — the same answer held an endpoint 30 s, an hour or not at
 * all as the server's TZ said — and zones such as `PST`, which an HTTP date never names.
 */
export function httpDate(value: string, now: number): number {
  const imf = IMF_FIXDATE.exec(value);
  if (imf !== null) return utc(Number(imf[3]), imf[2]!, Number(imf[1]), imf.slice(4));
  const rfc850 = RFC850.exec(value);
  if (rfc850 !== null) return utc(centuryOf(Number(rfc850[3]), now), rfc850[2]!, Number(rfc850[1]), rfc850.slice(4));
  const asctime = ASCTIME.exec(value);
  if (asctime !== null) return utc(Number(asctime[6]), asctime[1]!, Number(asctime[2]), asctime.slice(3, 6));
  return Number.NaN;
}

/** The date's Unix ms; NaN for one that does not exist (31 Feb, 25:00). */
function utc(year: number, month: string, day: number, [hours, minutes, seconds]: readonly (string | undefined)[]): number {
  const m = MONTHS.findIndex((name) => name.toLowerCase() === month.toLowerCase());
  const ms = Date.UTC(year, m, day, Number(hours), Number(minutes), Number(seconds));
  const d = new Date(ms);
  const exact = d.getUTCFullYear() === year && d.getUTCMonth() === m && d.getUTCDate() === day && d.getUTCHours() === Number(hours);
  return exact && d.getUTCMinutes() === Number(minutes) && d.getUTCSeconds() === Number(seconds) ? ms : Number.NaN;
}

/** RFC 850's two-digit year: the year with those digits not more than 50 years after `now`'s (RFC 9110). */
function centuryOf(yy: number, now: number): number {
  const current = new Date(now).getUTCFullYear();
  const year = current - (current % 100) + yy;
  return year > current + 50 ? year - 100 : year;
}
