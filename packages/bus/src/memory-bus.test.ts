import { describe, expect, it } from 'vitest';
import { eventually } from '@wirehook/testkit';
import { MemoryBus } from './memory-bus.ts';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe('MemoryBus', () => {
  it('hands each message to one consumer, within its concurrency', async () => {
    const bus = new MemoryBus();
    const seen: string[] = [];
    let running = 0;
    let maxRunning = 0;
    const handler = async (m: { data: Uint8Array }) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await new Promise((r) => setTimeout(r, 2));
      seen.push(text(m.data));
      running--;
      return 'ack' as const;
    };
    bus.consume('s', handler, { concurrency: 3 });
    bus.consume('s', handler, { concurrency: 2 });
    for (let i = 0; i < 40; i++) await bus.publish('s', bytes(String(i)));
    await eventually(() => expect(seen).toHaveLength(40));
    expect(new Set(seen).size).toBe(40);
    expect(maxRunning).toBeLessThanOrEqual(5);
    expect(maxRunning).toBeGreaterThan(1);
    await bus.close();
  });

  it('hands a message out again after retryInMs or a throw, counting deliveries', async () => {
    const bus = new MemoryBus();
    const counts: number[] = [];
    bus.consume(
      's',
      async (m) => {
        counts.push(m.deliveryCount);
        if (m.deliveryCount === 1) return { retryInMs: 5 };
        if (m.deliveryCount === 2) throw new Error('boom');
        return 'ack';
      },
      { concurrency: 1 },
    );
    await bus.publish('s', bytes('x'));
    await eventually(() => expect(counts).toEqual([1, 2, 3]), 5_000);
    await bus.close();
  });

  it('drops a second publish with the same msgId, keeps messages until a consumer comes', async () => {
    const bus = new MemoryBus();
    await bus.publish('s', bytes('a'), { msgId: 'one' });
    await bus.publish('s', bytes('a'), { msgId: 'one' });
    await bus.publish('s', bytes('b'), { msgId: 'two' });
    expect(bus.depth('s')).toBe(2);
    const got: string[] = [];
    bus.consume('s', async (m) => (got.push(text(m.data)), 'ack'), { concurrency: 4 });
    await eventually(() => expect(got).toEqual(['a', 'b']));
    await bus.close();
    await expect(bus.publish('s', bytes('c'))).rejects.toThrow(/closed/);
  });
});
