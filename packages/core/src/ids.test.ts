import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.ts';
import { firstIdAt, idTime, isId, newId } from './ids.ts';

describe('ids', () => {
  it('carry their prefix and the creation time, so the month can be read back', () => {
    const clock = new ManualClock(Date.UTC(2026, 4, 31, 23, 59, 59, 999));
    const id = newId('message', clock);
    expect(id).toMatch(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(idTime(id)).toBe(clock.now());
    expect(new Date(idTime(id)!).getUTCMonth()).toBe(4);
  });

  it('sort as text in creation order, also within one millisecond', () => {
    const clock = new ManualClock();
    const ids = Array.from({ length: 200 }, (_, i) => {
      if (i % 50 === 0) clock.advance(1);
      return newId('consumer', clock);
    });
    expect([...ids].sort()).toEqual(ids);
  });

  it('are recognised by kind', () => {
    const id = newId('endpoint', new ManualClock());
    expect(isId('endpoint', id)).toBe(true);
    expect(isId('consumer', id)).toBe(false);
    expect(isId('endpoint', 'ep_nope')).toBe(false);
    expect(idTime('con_not-a-ulid')).toBeUndefined();
  });

  it('never carry a time ahead of the clock: a clock stepping back across a month boundary', () => {
    // 00:00:05 on 1 December, then NTP steps the clock back to 23:59:58 on 30 November.
    const clock = new ManualClock(Date.UTC(2026, 11, 1, 0, 0, 5));
    const before = newId('message', clock);
    clock.set(Date.UTC(2026, 10, 30, 23, 59, 58));
    const after = [newId('message', clock), newId('message', clock)];
    expect(idTime(before)).toBe(Date.UTC(2026, 11, 1, 0, 0, 5));
    for (const id of after) expect(idTime(id)).toBe(Date.UTC(2026, 10, 30, 23, 59, 58));
    // Still ordered within the new millisecond, and behind the id made before the step.
    expect(after[0]! < after[1]!).toBe(true);
    expect(after[1]! < before).toBe(true);
    // Once the clock passes the old time again, ids are of the later time.
    clock.set(Date.UTC(2026, 11, 1, 0, 0, 6));
    expect(idTime(newId('message', clock))).toBe(Date.UTC(2026, 11, 1, 0, 0, 6));
  });

  it('a test that moves the clock ahead and back leaves later ids at the real time', () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 23, 12));
    clock.advance(8 * 24 * 3_600_000); // 1 December
    newId('message', clock);
    clock.advance(-8 * 24 * 3_600_000);
    expect(new Date(idTime(newId('message', clock))!).getUTCMonth()).toBe(10);
  });

  it('firstIdAt is at or below every id made from that time on, and above those made before', () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 23, 59, 59, 999));
    const before = newId('message', clock);
    clock.advance(1);
    const bound = firstIdAt('message', clock.now());
    const at = newId('message', clock);
    expect(isId('message', bound)).toBe(true);
    expect(idTime(bound)).toBe(clock.now());
    expect(before < bound && bound <= at).toBe(true);
  });

  it('firstIdAt takes any time a query may carry: before 1970 and past what an id can hold', () => {
    expect(idTime(firstIdAt('message', -5))).toBe(0);
    expect(idTime(firstIdAt('message', 999_999_999_999_999))).toBe(2 ** 48 - 1);
  });
});
