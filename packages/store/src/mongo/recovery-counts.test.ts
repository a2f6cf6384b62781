import { describe, expect, it } from 'vitest';
import { stepCounts, TARGETS_COUNT_CAP } from './recovery-repo.ts';

describe('a MongoDB recovery’s queued and total, step by step', () => {
  it('an exact total holds; queued never passes it, and the end sets queued to it', () => {
    expect(stepCounts({ total: 120, queued: 50 }, 50, false)).toEqual({ total: 120, queued: 100 });
    expect(stepCounts({ total: 120, queued: 100 }, 50, false)).toEqual({ total: 120, queued: 120 });
    expect(stepCounts({ total: 120, queued: 100 }, 10, true)).toEqual({ total: 120, queued: 120 });
  });

  it(`a total the start's count stopped at (${TARGETS_COUNT_CAP}) grows with queued, and the end says what was met`, () => {
    expect(TARGETS_COUNT_CAP).toBe(100_000);
    expect(stepCounts({ total: 100_000, queued: 99_990 }, 50, false)).toEqual({ total: 100_040, queued: 100_040 });
    expect(stepCounts({ total: 100_000, queued: 10 }, 50, false)).toEqual({ total: 100_000, queued: 60 });
    expect(stepCounts({ total: 100_040, queued: 100_040 }, 7, true)).toEqual({ total: 100_047, queued: 100_047 });
    // Fewer met than counted (targets re-sent or gone meanwhile): done is done, as with an exact total.
    expect(stepCounts({ total: 100_000, queued: 99_000 }, 7, true)).toEqual({ total: 100_000, queued: 100_000 });
    // One short of the cap is exact.
    expect(stepCounts({ total: 99_999, queued: 99_990 }, 50, false)).toEqual({ total: 99_999, queued: 99_999 });
  });
});
