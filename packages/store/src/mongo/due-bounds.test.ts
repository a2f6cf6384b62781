// The due queue's rule for moving an endpoint's bound after a sweep read it (delivery-claim.ts
// nextBound): pure, so it runs here without a server. Times in ms from an arbitrary now.
import { describe, expect, it } from 'vitest';
import { nextBound } from './delivery-claim.ts';
import { DUE_NEVER } from './due-queue.ts';
import { STRANDED_PEEK_INTERVAL_MS } from './stranded.ts';

const NOW = 1_000_000;
const at = (...times: number[]) => times.map((dueAt) => ({ dueAt }));

describe('nextBound', () => {
  it("moves an active endpoint to its first entry: still due, a lease's end or a retry's time, or never", () => {
    expect(nextBound('active', at(NOW - 5, NOW - 1), NOW)).toBe(NOW - 5);
    expect(nextBound('active', at(NOW + 30_000), NOW)).toBe(NOW + 30_000);
    expect(nextBound('active', [], NOW)).toBe(DUE_NEVER);
  });

  it('looks at an endpoint that is not active again after 5 s, or never when it has nothing', () => {
    expect(STRANDED_PEEK_INTERVAL_MS).toBe(5_000);
    expect(nextBound('paused', at(NOW - 1), NOW)).toBe(NOW + 5_000);
    expect(nextBound('disabled', at(NOW + 10_000), NOW)).toBe(NOW + 10_000);
    expect(nextBound('paused', [], NOW)).toBe(DUE_NEVER);
  });

  it('drops the entry of an endpoint that is gone with nothing left, and keeps one with deliveries to fail', () => {
    expect(nextBound(undefined, [], NOW)).toBe('gone');
    expect(nextBound(undefined, at(NOW - 1), NOW)).toBe(NOW + 5_000);
  });

  it('never moves an active endpoint past a due entry, whatever the clock says', () => {
    const back = NOW - 3_600_000; // a clock that stepped back an hour
    expect(nextBound('active', at(NOW - 1), back)).toBe(NOW - 1);
  });
});
