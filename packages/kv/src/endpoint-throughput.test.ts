import { ManualClock } from '@wirehook/core';
import { expect, it } from 'vitest';
import { EndpointThroughput } from './endpoint-throughput.ts';
import { MemoryKv } from './memory-kv.ts';

it('a limit read with fields another version wrote is replaced (compared as read), and a stale read is refused', async () => {
  const kv = new MemoryKv({ clock: new ManualClock(1_000) });
  const tp = new EndpointThroughput(kv);
  // A newer build's state: a field this one does not know, fields in another order.
  await kv.set('tp:conc:ep_1', JSON.stringify({ cutAt: 5, limit: 4, ceiling: 8, successes: 0, reason: '429' }), 60_000);
  const seen = (await tp.concurrency('ep_1'))!;
  expect(await tp.replaceConcurrency('ep_1', seen, { ...seen, limit: 5 })).toBe(true);
  expect((await tp.concurrency('ep_1'))?.limit).toBe(5);
  // `seen` is no longer what the Kv holds: refused, the stored limit kept.
  expect(await tp.replaceConcurrency('ep_1', seen, { ...seen, limit: 6 })).toBe(false);
  expect((await tp.concurrency('ep_1'))?.limit).toBe(5);
});
