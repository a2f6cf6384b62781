import { describe, expect, it } from 'vitest';
import { CANCELLED_ATTEMPT_ERROR, ManualClock, newId, type RetryPolicy } from '@wirehook/core';
import type { DeliveryJob } from '@wirehook/store';
import { decideOutcome, type SendResult } from './outcome.ts';

const clock = new ManualClock();
const S = 1_000;
const M = 60 * S;

function job(policy: RetryPolicy, policyAttempts: number, manual = false): DeliveryJob {
  return {
    tenant: { orgId: newId('org', clock), env: 'live' },
    delivery: {
      id: newId('delivery', clock),
      messageId: newId('message', clock),
      endpointId: newId('endpoint', clock),
      url: 'https://hooks.example.com/',
      status: policyAttempts === 0 ? 'pending' : 'retrying',
      attemptCount: policyAttempts,
      policyAttempts,
      nextAttemptAt: 0,
      manual,
      createdAt: 0,
    },
    message: { id: newId('message', clock), eventType: 't', payload: '{}', createdAt: 0 },
    leaseToken: 1,
    endpoint: {
      id: newId('endpoint', clock),
      consumerId: newId('consumer', clock),
      url: 'https://hooks.example.com/',
      description: null,
      eventTypes: null,
      fixedIp: false,
      status: 'active',
      disabledReason: null,
      failingSince: null,
      createdAt: 0,
      retry: policy,
      compatSignature: null,
    },
    secrets: [],
  };
}

const ok: SendResult = { ok: true, status: 204, responseHead: '', error: null, durationMs: 3, sourceIp: '127.0.0.1' };
const fail: SendResult = { ok: false, status: 500, responseHead: 'oops', error: 'http_status: 500', durationMs: 3, sourceIp: '127.0.0.1' };
const at = 1_000_000;
const attempt = { id: newId('attempt', clock), at, via: 'direct' as const };

describe('decideOutcome', () => {
  it('a 2xx is a success and clears the endpoint streak', () => {
    const out = decideOutcome(job({ count: 7, interval: 'progressive' }, 3), ok, attempt);
    expect(out).toMatchObject({ status: 'success', nextAttemptAt: null, countsTowardPolicy: true, endpoint: { succeeded: true } });
    expect(out.attempt).toMatchObject({ responseStatus: 204, error: null, via: 'direct', sourceIp: '127.0.0.1', at });
  });

  it.each([
    // policy, policy attempts before this one, expected status, expected delay
    [{ count: 7, interval: 'progressive' }, 0, 'retrying', 5 * S],
    [{ count: 7, interval: 'progressive' }, 1, 'retrying', 5 * M],
    [{ count: 7, interval: 'progressive' }, 6, 'retrying', 10 * 60 * M],
    [{ count: 7, interval: 'progressive' }, 7, 'failed', null],
    [{ count: 0, interval: 'progressive' }, 0, 'failed', null],
    [{ count: 3, interval: '30m' }, 2, 'retrying', 30 * M],
    [{ count: 3, interval: '30m' }, 3, 'failed', null],
  ] as const)('failure under %j after %i attempts → %s', (policy, before, status, delay) => {
    const out = decideOutcome(job(policy, before), fail, attempt);
    expect(out.status).toBe(status);
    expect(out.nextAttemptAt).toBe(delay === null ? null : at + delay);
    // The spec's 5 days, written out rather than imported from the code under test.
    expect(out.endpoint).toEqual({ succeeded: false, disableIfFailingSince: at - 5 * 24 * 60 * 60 * 1000, disabledReason: 'failing_5_days' });
  });

  it('a cancel by the endpoint’s transformation ends the delivery success, moves no streak and records the cancel', () => {
    const cancelled: SendResult = { ok: false, status: null, responseHead: null, error: CANCELLED_ATTEMPT_ERROR, durationMs: 1, sourceIp: null };
    const out = decideOutcome(job({ count: 7, interval: 'progressive' }, 0), cancelled, attempt);
    expect(out).toMatchObject({ status: 'success', nextAttemptAt: null, endpoint: { succeeded: null } });
    expect(out.attempt).toMatchObject({ responseStatus: null, error: CANCELLED_ATTEMPT_ERROR });
  });

  it('a failed transformation is retried as any failure, and counts toward the endpoint’s streak (the code is its owner’s)', () => {
    const failed: SendResult = { ok: false, status: null, responseHead: null, error: 'transformation: boom (line 1, column 1)', durationMs: 2, sourceIp: null };
    const out = decideOutcome(job({ count: 7, interval: 'progressive' }, 0), failed, attempt);
    expect(out).toMatchObject({ status: 'retrying', nextAttemptAt: at + 5 * S, endpoint: { succeeded: false } });
  });

  it('the attempt records where the webhook went when a transformation moved it', () => {
    const moved = decideOutcome(job({ count: 7, interval: 'progressive' }, 0), { ...ok, url: 'https://elsewhere.example.com/in' }, attempt);
    expect(moved.attempt.url).toBe('https://elsewhere.example.com/in');
    expect(decideOutcome(job({ count: 7, interval: 'progressive' }, 0), ok, attempt).attempt.url).toBe('https://hooks.example.com/');
  });

  it('a failed manual re-send does not use up the policy', () => {
    const exhausted = decideOutcome(job({ count: 3, interval: '1m' }, 4, true), fail, attempt);
    expect(exhausted).toMatchObject({ status: 'failed', countsTowardPolicy: false });
    const midway = decideOutcome(job({ count: 3, interval: '1m' }, 1, true), fail, attempt);
    expect(midway).toMatchObject({ status: 'retrying', nextAttemptAt: at + M, countsTowardPolicy: false });
  });
});
