import { describe, expect, it, vi } from 'vitest';
import { describeBusContract } from '../test/bus-contract.ts';
import { MemoryBus } from './memory-bus.ts';

// Connections to the in-process broker are handles on one MemoryBus.
describeBusContract('MemoryBus', async () => {
  const bus = new MemoryBus();
  return { subject: 's', connect: async () => bus };
});

describe('MemoryBus', () => {
  it('counts the messages waiting on a subject, without duplicates', async () => {
    const bus = new MemoryBus();
    await bus.publish('s', new Uint8Array([1]), { msgId: 'one' });
    await bus.publish('s', new Uint8Array([1]), { msgId: 'one' });
    await bus.publish('s', new Uint8Array([2]), { msgId: 'two' });
    expect(bus.depth('s')).toBe(2);
    expect(bus.depth('other')).toBe(0);
    await bus.close();
  });
});

describe('MemoryBus queue and de-duplication at size', () => {
  it('hands out 50,000 waiting messages in publish order', async () => {
    const bus = new MemoryBus();
    const count = 50_000;
    for (let i = 0; i < count; i++) await bus.publish('big', Uint8Array.of(i % 256, (i >> 8) % 256, i >> 16));
    expect(bus.depth('big')).toBe(count);
    const seen: number[] = [];
    const done = new Promise<void>((resolve) => {
      bus.consume(
        'big',
        async ({ data }) => {
          seen.push(data[0]! + (data[1]! << 8) + (data[2]! << 16));
          if (seen.length === count) resolve();
          return 'ack';
        },
        { concurrency: 7 },
      );
    });
    await done;
    expect(seen.every((n, i) => n === i)).toBe(true);
    expect(bus.depth('big')).toBe(0);
    await bus.close();
  });

  it('forgets a msgId after the two-minute window, not before', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const bus = new MemoryBus();
      await bus.publish('d', Uint8Array.of(1), { msgId: 'a' });
      vi.setSystemTime(Date.now() + 60_000);
      await bus.publish('d', Uint8Array.of(2), { msgId: 'b' });
      await bus.publish('d', Uint8Array.of(1), { msgId: 'a' }); // 1 min: still a duplicate
      expect(bus.depth('d')).toBe(2);
      vi.setSystemTime(Date.now() + 61_000);
      await bus.publish('d', Uint8Array.of(1), { msgId: 'a' }); // 2 min 1 s: new again
      await bus.publish('d', Uint8Array.of(2), { msgId: 'b' }); // 61 s after b: duplicate
      expect(bus.depth('d')).toBe(3);
      await bus.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
