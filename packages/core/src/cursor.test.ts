import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { InvalidError } from './errors.ts';
import { newId } from './ids.ts';

const now = Date.UTC(2026, 5, 10);
const consumer = newId('consumer', { now: () => now });

describe('cursors', () => {
  it('round-trip the last id', () => {
    expect(decodeCursor(encodeCursor(consumer, now), 'consumer', now, 3)).toBe(consumer);
  });

  it('are refused when malformed, from another list, or naming no id of the list’s kind', () => {
    expect(() => decodeCursor('garbage!', 'consumer', now, 3)).toThrow(InvalidError);
    expect(() => decodeCursor(encodeCursor(newId('message', { now: () => now }), now), 'consumer', now, 3)).toThrow(/not a cursor/);
    // The kind's prefix and no id after it (a hand-made cursor).
    expect(() => decodeCursor(encodeCursor('con_ZZZ', now), 'consumer', now, 3)).toThrow(/not a cursor/);
    expect(() => decodeCursor(encodeCursor(`${consumer}x`, now), 'consumer', now, 3)).toThrow(/not a cursor/);
  });

  it('are accepted from the oldest retained month to the current month only', () => {
    const oldestOk = Date.UTC(2026, 3, 1); // April: months June, May, April retained
    expect(decodeCursor(encodeCursor(consumer, oldestOk), 'consumer', now, 3)).toBe(consumer);
    expect(() => decodeCursor(encodeCursor(consumer, oldestOk - 1), 'consumer', now, 3)).toThrow(/retention window/);
    expect(() => decodeCursor(encodeCursor(consumer, Date.UTC(2026, 6, 1)), 'consumer', now, 3)).toThrow(/retention window/);
  });
});
