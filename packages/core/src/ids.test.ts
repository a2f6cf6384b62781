import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.ts';
import { idTime, isId, newId } from './ids.ts';

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
});
