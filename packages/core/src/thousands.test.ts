import { describe, expect, it } from 'vitest';
import { thousands } from './thousands.ts';

describe('thousands', () => {
  it('groups an integer as toLocaleString("en") does, on both sides of each group', () => {
    for (const n of [0, 7, 999, 1_000, 9_999, 65_536, 999_999, 1_000_000, 1_048_576, 1_000_000_000, Number.MAX_SAFE_INTEGER]) {
      expect(thousands(n), String(n)).toBe(n.toLocaleString('en'));
      if (n !== 0) expect(thousands(-n), String(-n)).toBe((-n).toLocaleString('en'));
    }
    expect(thousands(1_000_000)).toBe('1,000,000');
    expect(thousands(-1_200)).toBe('-1,200');
    // Where toLocaleString writes "-0", a count of nothing reads "0".
    expect(thousands(-0)).toBe('0');
  });

  it('leaves what is not a safe integer to toLocaleString', () => {
    for (const n of [1234.5678, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60]) expect(thousands(n)).toBe(n.toLocaleString('en'));
    expect(thousands(1234.5)).toBe('1,234.5');
  });
});
