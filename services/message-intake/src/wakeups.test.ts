// Wake-ups while NATS is away: a send never waits past its bound, never fails for them,
// and the log gets one line, a summary per 30 s and the recovery — not a line per request.
import { ManualClock, newId, type Tenant } from '@wirehook/core';
import { DISPATCH_STREAM, NatsBus, PublishQueueFullError, type Bus } from '@wirehook/bus';
import { startNatsServer, type NatsServer } from '@wirehook/testkit';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Wakeups } from './wakeups.ts';

const TENANT = { orgId: 'org_wakeups', env: 'live' } as Tenant;

let server: NatsServer;
let bus: NatsBus;

beforeAll(async () => {
  server = await startNatsServer();
  bus = await NatsBus.connect({ servers: server.url, name: 'wakeups-test', reconnectWaitMs: 100, publishTimeoutMs: 400, streams: [DISPATCH_STREAM] });
});
afterAll(async () => {
  await bus.close();
  await server.stop();
});

describe('Wakeups', () => {
  it('with NATS down: answers within its wait, counts the missed ones, logs once, then a summary, then the recovery', async () => {
    const clock = new ManualClock();
    const logger = { warn: vi.fn(), info: vi.fn() };
    const registry = new Registry();
    const wakeups = new Wakeups({ bus, clock, logger: logger as never, registry, waitMs: 150 });
    const ids = () => [newId('delivery', clock), newId('delivery', clock)];
    await wakeups.publish(ids(), TENANT); // NATS up: out at once, nothing logged
    expect(logger.warn).not.toHaveBeenCalled();

    await server.kill();
    const started = performance.now();
    await wakeups.publish(ids(), TENANT);
    expect(performance.now() - started).toBeLessThan(1_000); // bounded by waitMs, not NATS's publish timeout
    await vi.waitFor(() => expect(logger.warn).toHaveBeenCalledTimes(1), { timeout: 3_000 });
    expect(logger.warn.mock.calls[0]![1]).toBe('NATS unreachable: could not publish dispatch wake-ups; messages are accepted, the sweeper delivers them');

    // More failures within 30 s: counted, not logged.
    await wakeups.publish(ids(), TENANT);
    await vi.waitFor(async () => expect(await missed(registry)).toBe(4), { timeout: 3_000 });
    expect(logger.warn).toHaveBeenCalledTimes(1);
    // 30 s on: one summary.
    clock.advance(30_000);
    await wakeups.publish(ids(), TENANT);
    await vi.waitFor(() => expect(logger.warn).toHaveBeenCalledTimes(2), { timeout: 3_000 });
    expect(logger.warn.mock.calls[1]![1]).toBe('NATS unreachable for 30 s, 6 wake-ups deferred to the sweeper');

    await server.restart();
    await vi.waitFor(
      async () => {
        await wakeups.publish(ids(), TENANT);
        expect(logger.info).toHaveBeenCalledWith({ count: 6, seconds: 30 }, 'NATS unreachable no more, after 30 s: 6 wake-ups deferred to the sweeper');
      },
      { timeout: 10_000, interval: 200 },
    );
  }, 30_000);
});

describe('Wakeups refused because too many wait', () => {
  it('are missed wake-ups, logged as NATS being slow, not as NATS unreachable', async () => {
    const clock = new ManualClock();
    const logger = { warn: vi.fn(), info: vi.fn() };
    const registry = new Registry();
    const full = { publish: async () => Promise.reject(new PublishQueueFullError('wirehook.dispatch')) } as unknown as Bus;
    const wakeups = new Wakeups({ bus: full, clock, logger: logger as never, registry, waitMs: 150 });
    await wakeups.publish([newId('delivery', clock), newId('delivery', clock)], TENANT);
    await vi.waitFor(async () => expect(await missed(registry)).toBe(2));
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn.mock.calls[0]![1]).toBe(
      'NATS slower than the sends: too many dispatch wake-ups wait for NATS; the sweeper delivers the messages of those refused',
    );
  });
});

async function missed(registry: Registry): Promise<number> {
  const metric = await registry.getSingleMetric('wirehook_intake_wakeups_missed_total')?.get();
  return metric?.values[0]?.value ?? 0;
}
