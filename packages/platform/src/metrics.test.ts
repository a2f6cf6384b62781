import perfHooks from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { createRegistry, EVENT_LOOP_SAMPLE_MS } from './metrics.ts';

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
    expect(EVENT_LOOP_SAMPLE_MS).toBe(50);
    expect(asked).toEqual([50]);
    // The lag series are still there, under their standard names.
    expect(await registry.getSingleMetricAsString('nodejs_eventloop_lag_p99_seconds')).toContain('service="test"');
  });
});
