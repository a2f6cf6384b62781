// ClaimHold: how long new claims wait after the store refused work for overload.
import { ManualClock } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { CLAIM_HOLD_FIRST_MS, CLAIM_HOLD_MAX_MS, ClaimHold } from './claim-hold.ts';

describe('ClaimHold', () => {
  it('holds nothing until an overload; then 250 ms, claims free again at its end', () => {
    const clock = new ManualClock();
    const hold = new ClaimHold(clock);
    expect(hold.remainingMs()).toBe(0);
    expect(CLAIM_HOLD_FIRST_MS).toBe(250);
    expect(hold.overloaded()).toBe(250);
    expect(hold.remainingMs()).toBe(250);
    clock.advance(249);
    expect(hold.remainingMs()).toBe(1);
    clock.advance(1);
    expect(hold.remainingMs()).toBe(0);
  });

  it('the calls refused while a hold is on are one overload: the hold neither grows nor lasts longer', () => {
    const clock = new ManualClock();
    const hold = new ClaimHold(clock);
    hold.overloaded();
    clock.advance(100);
    expect(hold.overloaded()).toBeNull();
    expect(hold.remainingMs()).toBe(150);
  });

  it('doubles while overloads follow the holds, up to 4 s; a completion written after a hold starts again at 250 ms', () => {
    const clock = new ManualClock();
    const hold = new ClaimHold(clock);
    const lengths: (number | null)[] = [];
    for (let i = 0; i < 7; i++) {
      lengths.push(hold.overloaded());
      clock.advance(hold.remainingMs());
    }
    expect(CLAIM_HOLD_MAX_MS).toBe(4_000);
    expect(lengths).toEqual([250, 500, 1_000, 2_000, 4_000, 4_000, 4_000]);
    hold.completed();
    expect(hold.overloaded()).toBe(250);
  });

  it('a completion written during a hold (a send from before it) keeps the hold and its growth', () => {
    const clock = new ManualClock();
    const hold = new ClaimHold(clock);
    hold.overloaded();
    clock.advance(100);
    hold.completed();
    expect(hold.remainingMs()).toBe(150);
    clock.advance(150);
    expect(hold.overloaded()).toBe(500);
  });

  it('a clock stepping back during a hold waits no longer than the longest hold', () => {
    const clock = new ManualClock();
    const hold = new ClaimHold(clock);
    hold.overloaded();
    clock.advance(-3_600_000);
    expect(hold.remainingMs()).toBe(4_000);
  });
});
