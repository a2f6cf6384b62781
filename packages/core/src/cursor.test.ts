import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { InvalidError } from './errors.ts';

const now = Date.UTC(2026, 5, 10);

describe('cursors', () => {
  it('round-trip the last id', () => {
    expect(decodeCursor(encodeCursor('con_01ABC', now), 'con_', now, 3)).toBe('con_01ABC');
  });

  it('are refused when malformed or from another list', () => {
    expect(() => decodeCursor('garbage!', 'con_', now, 3)).toThrow(InvalidError);
    expect(() => decodeCursor(encodeCursor('msg_01ABC', now), 'con_', now, 3)).toThrow(/not a cursor/);
  });

  it('are accepted from the oldest retained month to the current month only', () => {
    const oldestOk = Date.UTC(2026, 3, 1); // April: months June, May, April retained
    expect(decodeCursor(encodeCursor('con_1', oldestOk), 'con_', now, 3)).toBe('con_1');
    expect(() => decodeCursor(encodeCursor('con_1', oldestOk - 1), 'con_', now, 3)).toThrow(/retention window/);
    expect(() => decodeCursor(encodeCursor('con_1', Date.UTC(2026, 6, 1)), 'con_', now, 3)).toThrow(/retention window/);
  });
});
