import { describe, expect, it } from 'vitest';
import { turnOutbox } from './turn-outbox.ts';

describe('turnOutbox', () => {
  it('hands on a turn’s items in one call, in order, and a later turn’s in another', async () => {
    const flushed: number[][] = [];
    const add = turnOutbox<number>((items) => flushed.push(items));
    add(1);
    add(2);
    add(3);
    expect(flushed).toEqual([]); // not within the turn
    await new Promise((resolve) => setImmediate(resolve));
    add(4);
    await new Promise((resolve) => setImmediate(resolve));
    expect(flushed).toEqual([[1, 2, 3], [4]]);
  });
});
