// Where an Idempotency-Key's message is looked for (message-create.ts idempotencyMonths), without
// a server: the send's month first (a replay's message is nearly always there: one lookup), then
// the months before it back to the window's start, newest first, then the next month last.
import { describe, expect, it } from 'vitest';
import { idempotencyMonths } from './message-create.ts';
import { monthOf } from './months.ts';

const DAY = 86_400_000;
const at = (y: number, m: number, d: number, h = 12) => Date.UTC(y, m - 1, d, h);

describe('idempotencyMonths', () => {
  it('in the middle of a month: that month, then the next (pre-created) one', () => {
    const createdAt = at(2026, 12, 15);
    const months = [monthOf(at(2026, 11, 1)), monthOf(createdAt), monthOf(at(2027, 1, 1))];
    expect(idempotencyMonths(months, { createdAt, idempotencySince: createdAt - DAY })).toEqual([monthOf(createdAt), monthOf(at(2027, 1, 1))]);
  });

  it('on the 1st, the window reaching into the month before: the send’s month, the one before, then the next', () => {
    const createdAt = at(2027, 1, 1, 6);
    const [dec, jan, feb] = [monthOf(at(2026, 12, 1)), monthOf(createdAt), monthOf(at(2027, 2, 1))];
    expect(idempotencyMonths([dec, jan, feb], { createdAt, idempotencySince: createdAt - DAY })).toEqual([jan, dec, feb]);
    // The next month not made yet: not looked in.
    expect(idempotencyMonths([dec, jan], { createdAt, idempotencySince: createdAt - DAY })).toEqual([jan, dec]);
  });
});
