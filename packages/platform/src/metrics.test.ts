import perfHooks from 'node:perf_hooks';
import { eventually } from '@wirehook/testkit';
import { describe, expect, it } from 'vitest';
import { createRegistry } from './metrics.ts';

describe('createRegistry', () => {
  it("samples the event loop's delay every 50 ms (prom-client's own default: every 10 ms, a wake-up each)", async () => {
    const original = perfHooks.monitorEventLoopDelay;
    const asked: (number | undefined)[] = [];
    perfHooks.monitorEventLoopDelay = (options) => {
      asked.push(options?.resolution);
      return original(options);
    };
    let registry: ReturnType<typeof createRegistry>;
    try {
      registry = createRegistry('test');
    } finally {
      perfHooks.monitorEventLoopDelay = original;
    }
    expect(asked).toEqual([50]);
    // Node records the time between two samples: the median of an idle loop's is the period, 50 ms,
    // not 10 (docs/operations.md says what that means for a threshold). Each scrape resets the
    // histogram, so the poll reads one that has had samples since (an empty one's median is 0).
    await eventually(
      async () => {
        const p50 = /^nodejs_eventloop_lag_p50_seconds\{[^}]*\} (\S+)$/m.exec(await registry.metrics());
        expect(Number(p50?.[1])).toBeGreaterThanOrEqual(0.04);
      },
      5_000,
      60,
    );
  });
});
