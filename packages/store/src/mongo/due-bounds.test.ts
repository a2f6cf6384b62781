// The due queue's rule for moving an endpoint's bound after a sweep read it (delivery-claim.ts
// nextBound): pure, so it runs here without a server. Times in ms from an arbitrary now.
import { describe, expect, it } from 'vitest';
import { DUE_PUT_ASIDE_MS, nextBound } from './delivery-claim.ts';
import { DUE_NEVER } from './due-queue.ts';
import { STRANDED_PEEK_INTERVAL_MS } from './stranded.ts';

const NOW = 1_000_000;
const at = (...times: number[]) => times.map((dueAt) => ({ dueAt }));

describe('nextBound', () => {
  it('puts an active endpoint aside 250 ms once it gave deliveries, however old its backlog', () => {
    expect(DUE_PUT_ASIDE_MS).toBe(250);
    expect(nextBound('active', at(NOW - 60_000, NOW - 1), true, NOW)).toBe(NOW + 250);
    // Its first entry later than that (a retry in a minute) wins.
    expect(nextBound('active', at(NOW + 60_000), true, NOW)).toBe(NOW + 60_000);
  });

  it('keeps an active endpoint that gave nothing at its first entry: due still, or its next time', () => {
    // The page had no room for it: still due, it stays at the head.
    expect(nextBound('active', at(NOW - 5), false, NOW)).toBe(NOW - 5);
    // Only a lease's end or a retry later: then.
    expect(nextBound('active', at(NOW + 30_000), false, NOW)).toBe(NOW + 30_000);
    // Nothing open: never (until a noteDue lowers it).
    expect(nextBound('active', [], false, NOW)).toBe(DUE_NEVER);
  });

  it('looks at an endpoint that is not active again after 5 s, or never when it has nothing', () => {
    expect(STRANDED_PEEK_INTERVAL_MS).toBe(5_000);
    expect(nextBound('paused', at(NOW - 1), false, NOW)).toBe(NOW + 5_000);
    expect(nextBound('disabled', at(NOW + 10_000), false, NOW)).toBe(NOW + 10_000);
    expect(nextBound('paused', [], false, NOW)).toBe(DUE_NEVER);
  });

  it('drops the entry of an endpoint that is gone with nothing left, and keeps one with deliveries to fail', () => {
    expect(nextBound(undefined, [], false, NOW)).toBe('gone');
    expect(nextBound(undefined, at(NOW - 1), false, NOW)).toBe(NOW + 5_000);
  });

  it("follows a clock that stepped back: bounds are from the sweep's now, never below a due entry", () => {
    const back = NOW - 3_600_000;
    expect(nextBound('active', at(NOW - 1), true, back)).toBe(NOW - 1);
    expect(nextBound('active', at(back - 1), true, back)).toBe(back + 250);
  });
});
