import { describe, expect, it } from 'vitest';
import { readDispatchers } from './dispatchers.ts';
import { readLauncherConfig } from './launcher-config.ts';

describe('DISPATCHERS', () => {
  it('is 2 unless set, and takes 1 to 16', () => {
    expect(readDispatchers({})).toEqual({ dispatchers: 2 });
    for (const [value, dispatchers] of [
      ['1', 1],
      ['16', 16],
    ] as const) {
      expect(readDispatchers({ DISPATCHERS: value })).toEqual({ dispatchers });
    }
  });

  it('refuses 0, 17, a fraction, a word and empty with one line naming it, the line the launcher prints', () => {
    for (const value of ['0', '17', '1.5', 'abc', '']) {
      const read = readDispatchers({ DISPATCHERS: value });
      expect(read.problem, value).toMatch(/^DISPATCHERS \S/);
      expect(readLauncherConfig({ DISPATCHERS: value }).problems, value).toEqual([read.problem]);
    }
  });
});
