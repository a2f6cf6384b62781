import { describe, expect, it } from 'vitest';
import { HOLD_ENDS_KEPT, holdEndsIn, keepHoldEnd, nextHoldEnds } from './hold-ends.ts';

const NOW = 1_000;
const none = { putOffUntil: null, putOffMore: [] };

describe('the hold ends an endpoint walk keeps', () => {
  it('a first hold’s rest becomes the walked end', () => {
    expect(keepHoldEnd(none, 5_000, NOW)).toEqual({ putOffUntil: 5_000, putOffMore: [] });
  });

  it('a second hold’s rest goes after the first’s, not over it', () => {
    expect(keepHoldEnd({ putOffUntil: 5_000, putOffMore: [] }, 9_000, NOW)).toEqual({ putOffUntil: 5_000, putOffMore: [9_000] });
  });

  it('an end kept already changes nothing', () => {
    expect(keepHoldEnd({ putOffUntil: 5_000, putOffMore: [9_000] }, 9_000, NOW)).toBeNull();
  });

  it('an end not after now is not kept (what it put off is due already); one after now is', () => {
    expect(keepHoldEnd(none, NOW, NOW)).toBeNull();
    expect(keepHoldEnd({ putOffUntil: 5_000, putOffMore: [] }, NOW - 1, NOW)).toBeNull();
    expect(keepHoldEnd(none, NOW + 1, NOW)).toEqual({ putOffUntil: NOW + 1, putOffMore: [] });
  });

  it('ends over by now are dropped (their rest is due anyway)', () => {
    expect(keepHoldEnd({ putOffUntil: 900, putOffMore: [1_000, 7_000] }, 9_000, NOW)).toEqual({ putOffUntil: 7_000, putOffMore: [9_000] });
  });

  it(`keeps ${HOLD_ENDS_KEPT} (8) at most: a ninth waits for its own end; with one over, it is kept`, () => {
    expect(HOLD_ENDS_KEPT).toBe(8);
    const eight = { putOffUntil: 2_000, putOffMore: [3_000, 4_000, 5_000, 6_000, 7_000, 8_000, 9_000] };
    expect(keepHoldEnd(eight, 10_000, NOW)).toBeNull();
    const seven = { putOffUntil: 2_000, putOffMore: [3_000, 4_000, 5_000, 6_000, 7_000, 8_000] };
    expect(keepHoldEnd(seven, 10_000, NOW)).toEqual({ putOffUntil: 2_000, putOffMore: [3_000, 4_000, 5_000, 6_000, 7_000, 8_000, 10_000] });
    expect(keepHoldEnd(eight, 10_000, 2_000)).toEqual({ putOffUntil: 3_000, putOffMore: [4_000, 5_000, 6_000, 7_000, 8_000, 9_000, 10_000] });
  });

  it('the next end after the walked one is done, skipping those over; none when none is left', () => {
    expect(nextHoldEnds({ putOffUntil: 5_000, putOffMore: [900, 9_000, 12_000] }, NOW)).toEqual({ putOffUntil: 9_000, putOffMore: [12_000] });
    expect(nextHoldEnds({ putOffUntil: 5_000, putOffMore: [] }, NOW)).toEqual(none);
  });

  it('read as one list: the walked end filled from the rest, what is not a time dropped', () => {
    expect(holdEndsIn(null, [5_000, 9_000])).toEqual({ putOffUntil: 5_000, putOffMore: [9_000] });
    expect(holdEndsIn(5_000, null)).toEqual({ putOffUntil: 5_000, putOffMore: [] });
    expect(holdEndsIn(5_000, ['9000', 1.5, null, 9_000])).toEqual({ putOffUntil: 5_000, putOffMore: [9_000] });
    expect(holdEndsIn(undefined, { 0: 1 })).toEqual(none);
    // An end read twice (a hand's edit) walked once.
    expect(holdEndsIn(5_000, [5_000, 9_000, 9_000])).toEqual({ putOffUntil: 5_000, putOffMore: [9_000] });
  });
});
