// The times a stop of a process that sends webhooks is sized by: the relay call's deadline, and
// the stop's own (which the chart's pod grace period and the cluster launcher's wait mirror).
import { describe, expect, it } from 'vitest';
import { ATTEMPT_TIMEOUT_MS, relayCallMs, senderStopMs } from './limits.ts';

describe('a sender’s stop', () => {
  it('a relay call: a wait for a connection and the attempt, each up to the delivery timeout, and 5 s (35 s at the default 15 s)', () => {
    expect(relayCallMs(ATTEMPT_TIMEOUT_MS)).toBe(35_000);
    expect(relayCallMs(60_000)).toBe(125_000);
  });

  it('the stop: a relay call and 5 s more, never under every other service’s 20 s', () => {
    expect(senderStopMs(ATTEMPT_TIMEOUT_MS)).toBe(40_000);
    expect(senderStopMs(60_000)).toBe(130_000);
    // 2 × 5 + 5 + 5 = 20: the formula meets the floor there; above it the formula, below it the floor.
    expect(senderStopMs(7_500)).toBe(25_000);
    expect(senderStopMs(5_000)).toBe(20_000);
    expect(senderStopMs(1_000)).toBe(20_000);
  });
});
