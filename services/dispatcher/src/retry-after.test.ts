import { afterEach, describe, expect, it } from 'vitest';
import { retryAfterUntil } from './retry-after.ts';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);

describe('retryAfterUntil', () => {
  it.each([
    [429, '4', NOW + 4_000],
    [503, ' 120 ', NOW + 120_000],
    [429, 'Wed, 25 Nov 2026 12:00:30 GMT', NOW + 30_000],
    [429, '3600', NOW + 3_600_000],
    [429, '3601', NOW + 3_600_000], // capped at one hour
    [503, 'Thu, 26 Nov 2026 12:00:00 GMT', NOW + 3_600_000],
    [429, '0', null],
    [429, 'Wed, 25 Nov 2026 11:59:00 GMT', null], // in the past
    [429, 'soon', null],
    [429, 'Sunday, 06-Dec-26 12:00:10 GMT', NOW + 3_600_000], // RFC 850's year 26 is 2026 (1926 would hold nothing): capped, …
    [429, 'Wednesday, 25-Nov-26 12:00:10 GMT', NOW + 10_000], // … and this one 10 s on
    [429, '-5', null],
    [429, null, null],
    [500, '4', null],
    [200, '4', null],
    [null, '4', null],
  ] as const)('%s with %j holds until %s', (status, header, until) => {
    expect(retryAfterUntil(status, header, NOW)).toBe(until);
  });

  describe('an HTTP date in each of RFC 9110’s forms, on a host west and east of UTC', () => {
    const tz = process.env['TZ'];
    afterEach(() => {
      if (tz === undefined) delete process.env['TZ'];
      else process.env['TZ'] = tz;
    });
    it.each(['America/New_York', 'Asia/Tokyo', 'UTC'])('%s: each form, 30 s after the answer, holds 30 s', (zone) => {
      process.env['TZ'] = zone; // Node reads the zone again when TZ changes
      expect(new Date(NOW).getTimezoneOffset()).toBe(zone === 'UTC' ? 0 : zone === 'Asia/Tokyo' ? -540 : 300);
      expect(retryAfterUntil(429, 'Wed, 25 Nov 2026 12:00:30 GMT', NOW)).toBe(NOW + 30_000);
      expect(retryAfterUntil(429, 'Wednesday, 25-Nov-26 12:00:30 GMT', NOW)).toBe(NOW + 30_000);
      expect(retryAfterUntil(429, 'Wed Nov 25 12:00:30 2026', NOW)).toBe(NOW + 30_000);
      expect(retryAfterUntil(503, 'Thu Nov  5 12:00:30 2026', NOW)).toBeNull(); // a day of one digit, padded; in the past
      // UTC as servers write it besides GMT (Python's formatdate, Ruby's rfc2822, PHP's DATE_RFC2822), a day of one digit, any case.
      for (const header of [
        'Wed, 25 Nov 2026 12:00:30 -0000',
        'Wed, 25 Nov 2026 12:00:30 +0000',
        'Wed, 25 Nov 2026 12:00:30 UTC',
        'wed, 25 nov 2026 12:00:30 gmt',
      ]) {
        expect(retryAfterUntil(429, header, NOW), header).toBe(NOW + 30_000);
      }
      expect(retryAfterUntil(429, 'Thu, 5 Nov 2026 12:00:30 GMT', Date.UTC(2026, 10, 5, 12))).toBe(Date.UTC(2026, 10, 5, 12) + 30_000);
      // Not HTTP dates: no zone (read in the host's by Date.parse), another zone or offset, an ISO time, nonsense days.
      for (const header of [
        'Wed, 25 Nov 2026 12:00:30',
        '2026-11-25T12:00:30',
        '2026-11-25T12:00:30Z',
        'Wed, 25 Nov 2026 04:00:30 PST',
        'Wed, 25 Nov 2026 13:00:30 +0100',
        'Wed, 31 Feb 2026 12:00:30 GMT',
        'Wed, 25 Nov 2026 24:00:30 GMT',
      ]) {
        expect(retryAfterUntil(429, header, NOW), header).toBeNull();
      }
    });
  });
});
