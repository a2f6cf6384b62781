import { describe, expect, it } from 'vitest';
import type { Delivery, Endpoint } from './model.ts';
import { waitingOn } from './waiting-on.ts';

const NOW = Date.UTC(2026, 0, 1, 12);
const delivery = (over: Partial<Delivery> = {}): Delivery =>
  ({
    status: 'pending',
    attemptCount: 0,
    manual: false,
    createdAt: NOW - 5_000,
    nextAttemptAt: NOW - 5_000,
    laneWait: false,
    held: false,
    sequence: null,
    ...over,
  }) as Delivery;
const endpoint = (over: Partial<Endpoint> = {}): Endpoint => ({ status: 'active', rateLimit: null, heldUntil: null, ...over }) as Endpoint;

describe('waitingOn', () => {
  it.each([
    ['behind its lane: its own sequence', delivery({ laneWait: true, sequence: 2 }), endpoint(), { reason: 'lane', sequence: 2 }],
    [
      'a lane wait comes before a pause (it waits for both)',
      delivery({ laneWait: true, sequence: 3, held: true }),
      endpoint({ status: 'paused' }),
      { reason: 'lane', sequence: 3 },
    ],
    ['endpoint paused', delivery({ held: true }), endpoint({ status: 'paused' }), { reason: 'paused' }],
    ['endpoint disabled', delivery({ status: 'retrying', attemptCount: 4 }), endpoint({ status: 'disabled' }), { reason: 'paused' }],
    ['Retry-After hold ahead', delivery(), endpoint({ heldUntil: NOW + 1 }), { reason: 'hold' }],
    ['a hold already over is none', delivery(), endpoint({ heldUntil: NOW, rateLimit: null }), { reason: 'concurrency' }],
    ['due, not sent, rate-limited endpoint', delivery(), endpoint({ rateLimit: 10 }), { reason: 'rate_limit' }],
    ['due, not sent, no rate limit', delivery({ nextAttemptAt: NOW }), endpoint(), { reason: 'concurrency' }],
    ['first attempt spaced past its creation by the rate limit', delivery({ nextAttemptAt: NOW + 300 }), endpoint({ rateLimit: 3 }), { reason: 'rate_limit' }],
    [
      'a retry waiting for its scheduled time',
      delivery({ status: 'retrying', attemptCount: 1, nextAttemptAt: NOW + 60_000 }),
      endpoint({ rateLimit: 3 }),
      null,
    ],
    ['succeeded', delivery({ status: 'success', nextAttemptAt: null }), endpoint(), null],
    ['failed on a paused endpoint', delivery({ status: 'failed', nextAttemptAt: null, held: true }), endpoint({ status: 'paused' }), null],
  ] as const)('%s', (_name, d, e, expected) => {
    expect(waitingOn(d, e, NOW)).toEqual(expected);
  });

  it('is null once the endpoint is deleted (its deliveries end failed)', () => {
    expect(waitingOn(delivery({ held: true }), undefined, NOW)).toBeNull();
  });
});
