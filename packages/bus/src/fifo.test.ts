import { describe, expect, it } from 'vitest';
import { Fifo } from './fifo.ts';

describe('Fifo', () => {
  it('keeps order across compactions, interleaved with pushes', () => {
    const fifo = new Fifo<number>();
    const out: number[] = [];
    let next = 0;
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 300; i++) fifo.push(next++);
      for (let i = 0; i < 200; i++) out.push(fifo.shift()!);
    }
    expect(fifo.length).toBe(next - out.length);
    while (fifo.length > 0) out.push(fifo.shift()!);
    expect(out).toEqual(Array.from({ length: next }, (_, i) => i));
    expect(fifo.shift()).toBeUndefined();
    expect(fifo.length).toBe(0);
  });
});
