import { describe, expect, it } from 'vitest';
import { describeBusContract } from './bus-contract.ts';
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
