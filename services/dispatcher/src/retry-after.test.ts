import { describe, expect, it } from 'vitest';
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
    [429, '-5', null],
    [429, null, null],
    [500, '4', null],
    [200, '4', null],
    [null, '4', null],
  ] as const)('%s with %j holds until %s', (status, header, until) => {
    expect(retryAfterUntil(status, header, NOW)).toBe(until);
  });
});
