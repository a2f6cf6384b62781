import type { Attempt, AttemptId, DeliveryId, EndpointId } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { attemptEffects } from './attempt-effects.ts';
import type { AttemptOutcome } from './ports/delivery-port.ts';

const DAY = 24 * 3600_000;
const AT = Date.UTC(2026, 10, 28, 12);
const attempt: Attempt = {
  id: 'att_1' as AttemptId,
  deliveryId: 'dlv_1' as DeliveryId,
  endpointId: 'ep_1' as EndpointId,
  at: AT,
  responseStatus: 500,
  responseHead: null,
  durationMs: 10,
  error: null,
  via: 'direct',
  sourceIp: null,
  url: null,
};
const failed = (status: 'retrying' | 'failed', disableIfFailingSince?: number): AttemptOutcome => ({
  attempt,
  status,
  nextAttemptAt: status === 'retrying' ? AT + 60_000 : null,
  countsTowardPolicy: true,
  endpoint: { succeeded: false, ...(disableIfFailingSince !== undefined ? { disableIfFailingSince, disabledReason: 'failing for 5 days' } : {}) },
});
const succeeded: AttemptOutcome = { attempt, status: 'success', nextAttemptAt: null, countsTowardPolicy: true, endpoint: { succeeded: true } };
const active = (failingSince: number | null) => ({ status: 'active' as const, failingSince });

describe('attemptEffects', () => {
  it('starts a streak at the first failure (one failing event), keeps it after', () => {
    expect(attemptEffects(failed('retrying'), false, active(null))).toEqual({
      status: 'retrying',
      streak: 'start',
      disable: false,
      alerts: ['failing'],
      handOver: false,
    });
    expect(attemptEffects(failed('retrying'), false, active(AT - DAY))).toEqual({
      status: 'retrying',
      streak: 'keep',
      disable: false,
      alerts: [],
      handOver: false,
    });
  });

  it('clears a running streak on success, and writes nothing for a healthy endpoint', () => {
    expect(attemptEffects(succeeded, false, active(AT - DAY)).streak).toBe('clear');
    expect(attemptEffects(succeeded, false, active(null))).toEqual({ status: 'success', streak: 'keep', disable: false, alerts: [], handOver: true });
  });

  it('disables at the bound, not a millisecond before it, failing this delivery too', () => {
    const bound = AT - 5 * DAY;
    // Failing since exactly the bound: disabled; this retry fails with it, no "exhausted".
    expect(attemptEffects(failed('retrying', bound), false, active(bound))).toEqual({
      status: 'failed',
      streak: 'keep',
      disable: true,
      alerts: ['disabled'],
      handOver: true,
    });
    // A millisecond later: not yet.
    expect(attemptEffects(failed('retrying', bound), false, active(bound + 1)).disable).toBe(false);
    // A streak that starts now is younger than any bound in the past.
    expect(attemptEffects(failed('retrying', bound), false, active(null)).disable).toBe(false);
  });

  it('disables only an active endpoint (a paused one keeps its state)', () => {
    const bound = AT - 5 * DAY;
    expect(attemptEffects(failed('retrying', bound), false, { status: 'paused', failingSince: bound - 1 }).disable).toBe(false);
  });

  it('queues "exhausted" for a delivery out of attempts, before "disabled"', () => {
    const bound = AT - 5 * DAY;
    expect(attemptEffects(failed('failed', bound), false, active(bound)).alerts).toEqual(['exhausted', 'disabled']);
    expect(attemptEffects(failed('failed'), false, active(null)).alerts).toEqual(['failing', 'exhausted']);
  });

  it('keeps a delivery retrying when a re-send was asked for during the send, whatever the outcome', () => {
    expect(attemptEffects(failed('failed'), true, active(AT - DAY))).toEqual({
      status: 'retrying',
      streak: 'keep',
      disable: false,
      alerts: [],
      handOver: false,
    });
    expect(attemptEffects(succeeded, true, active(null)).status).toBe('retrying');
  });

  it('leaves the endpoint as it is for our own fault (the relay) or a deleted endpoint', () => {
    const ours: AttemptOutcome = { ...failed('retrying'), endpoint: { succeeded: null } };
    expect(attemptEffects(ours, false, active(null))).toEqual({ status: 'retrying', streak: 'keep', disable: false, alerts: [], handOver: false });
    expect(attemptEffects(failed('failed'), false, null)).toEqual({ status: 'failed', streak: 'keep', disable: false, alerts: ['exhausted'], handOver: true });
  });
});
