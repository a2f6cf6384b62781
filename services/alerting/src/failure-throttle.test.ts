// The throttle as a pure function (spec: at most one notice per endpoint per hour; one at once
// per hour, the rest combined at its end), with the hour's edges on both sides.
import type { EndpointId, Environment } from '@wirehook/core';
import type { NoticeEndpoint } from '@wirehook/store';
import { describe, expect, it } from 'vitest';
import { compact, emptyState, flush, onFailure } from './failure-throttle.ts';

const HOUR = 3_600_000; // the spec's hour
const T0 = Date.UTC(2026, 4, 12, 9, 0, 0);
const ep = (id: string, env: Environment = 'live', failingSince: number | null = T0): NoticeEndpoint => ({
  env,
  endpointId: id as EndpointId,
  url: `https://${id}.test/`,
  consumerExternalId: id,
  failingSince,
  lastError: null,
  lastStatus: 503,
});

describe('onFailure', () => {
  it('the first goes at once and opens the hour; the same endpoint is suppressed at 59:59 and goes at 60:00', () => {
    const first = onFailure(emptyState(), ep('a'), T0);
    expect(first.notifyNow.map((e) => e.endpointId)).toEqual(['a']);
    expect(onFailure(first.state, ep('a', 'live', T0 + 1), T0 + HOUR - 1).notifyNow).toEqual([]);
    expect(onFailure(first.state, ep('a', 'live', T0 + 1), T0 + HOUR).notifyNow.map((e) => e.endpointId)).toEqual(['a']);
  });

  it('an endpoint told within the hour that fails again (a new streak, retries exhausted) is told at the hour’s end, not dropped', () => {
    const first = onFailure(emptyState(), ep('a'), T0);
    // Its streak ended, a new one began half an hour on: throttled, and waiting.
    const again = onFailure(first.state, ep('a', 'live', T0 + HOUR / 2), T0 + HOUR / 2);
    expect(again.notifyNow).toEqual([]);
    expect(flush(again.state, T0 + HOUR - 1).notices).toEqual([]);
    const told = flush(again.state, T0 + HOUR);
    expect(told.notices.map((n) => n.map((e) => [e.endpointId, e.failingSince]))).toEqual([[['a', T0 + HOUR / 2]]]);
    // The helper's case: b told in a combined notice at the hour, fails anew within the next: told at that hour's end.
    let { state } = onFailure(emptyState(), ep('a'), T0);
    state = onFailure(state, ep('b'), T0 + 10).state;
    state = flush(state, T0 + HOUR).state;
    const b = onFailure(state, ep('b', 'live', T0 + HOUR + 60_000), T0 + HOUR + 60_000);
    expect(b.notifyNow).toEqual([]);
    expect(flush(b.state, 2 * HOUR + T0).notices.map((n) => n.map((e) => e.endpointId))).toEqual([['b']]);
  });

  it('another endpoint in the hour waits (once), and is flushed at the hour, not a millisecond before', () => {
    let { state } = onFailure(emptyState(), ep('a'), T0);
    const waiting = onFailure(state, ep('b'), T0 + 10);
    expect(waiting.notifyNow).toEqual([]);
    state = onFailure(waiting.state, ep('b'), T0 + 20).state; // not twice
    expect(flush(state, T0 + HOUR - 1).notices).toEqual([]);
    const flushed = flush(state, T0 + HOUR);
    expect(flushed.notices.map((n) => n.map((e) => e.endpointId))).toEqual([['b']]);
    // The combined notice opened the next hour: c waits in it.
    expect(onFailure(flushed.state, ep('c'), T0 + HOUR + 1).notifyNow).toEqual([]);
  });

  it('after the clock steps back a day, the hour and the notice it opened count from the step: the next endpoint is told an hour later, not a day', () => {
    const DAY = 24 * HOUR;
    // a told at T0 + 1 day by a clock a day fast; corrected, b fails at T0 + 1 min.
    let { state } = onFailure(emptyState(), ep('a'), T0 + DAY);
    const waiting = onFailure(state, ep('b'), T0 + 60_000);
    expect(waiting.notifyNow).toEqual([]); // the hour opened "now", as far as this clock knows
    state = waiting.state;
    expect(flush(state, T0 + 60_000 + HOUR - 1).notices).toEqual([]);
    const flushed = flush(state, T0 + 60_000 + HOUR);
    expect(flushed.notices.map((n) => n.map((e) => e.endpointId))).toEqual([['b']]);
    // a's notice counts as made at the step too: a failure of a's an hour after it is told (in the next hour's combined notice).
    const again = onFailure(flushed.state, ep('a', 'live', T0 + 2 * HOUR), T0 + 60_000 + HOUR + 1);
    expect(again.notifyNow).toEqual([]);
    expect(flush(again.state, T0 + 60_000 + 2 * HOUR).notices.map((n) => n.map((e) => e.endpointId))).toEqual([['a']]);
  });

  it('a clock a day back with no other endpoint: the same endpoint is told again an hour after the step, not a day and an hour', () => {
    const DAY = 24 * HOUR;
    const { state } = onFailure(emptyState(), ep('a'), T0 + DAY);
    const throttled = onFailure(state, ep('a', 'live', T0 + 1), T0);
    expect(throttled.notifyNow).toEqual([]);
    // Waiting in the hour counted from the step, told at its end.
    expect(flush(throttled.state, T0 + HOUR - 1).notices).toEqual([]);
    expect(flush(throttled.state, T0 + HOUR).notices.map((n) => n.map((e) => e.endpointId))).toEqual([['a']]);
  });

  it('nothing deliverable: nothing sent and nothing recorded (no hour, no notice time, no streak)', () => {
    const step = onFailure(emptyState(), ep('a'), T0, false);
    expect(step).toEqual({ state: emptyState(), notifyNow: [] });
    expect(onFailure(step.state, ep('b'), T0 + 1).notifyNow.map((e) => e.endpointId)).toEqual(['b']);
  });

  it('each environment has its own hour', () => {
    const { state } = onFailure(emptyState(), ep('a', 'test'), T0);
    expect(onFailure(state, ep('b', 'live'), T0 + 1).notifyNow.map((e) => e.endpointId)).toEqual(['b']);
  });

  it('marks the streak a notice (now, waiting or throttled) covers', () => {
    let { state } = onFailure(emptyState(), ep('a', 'live', T0 - 5), T0);
    state = onFailure(state, ep('b', 'live', T0 - 7), T0 + 1).state;
    expect(state.notifiedStreaks).toEqual({ a: T0 - 5, b: T0 - 7 });
  });
});

describe('flush', () => {
  it('an environment left without a target closes its hour without sending, forgetting its waiting endpoints', () => {
    let { state } = onFailure(emptyState(), ep('a'), T0);
    state = onFailure(state, ep('b'), T0 + 1).state;
    const flushed = flush(state, T0 + HOUR, () => false);
    expect(flushed.notices).toEqual([]);
    expect(flushed.state.windows.live).toEqual({ windowStart: null, pending: [] });
    expect(flushed.state.notifiedStreaks).toEqual({ a: T0 });
    expect(onFailure(flushed.state, ep('b'), T0 + HOUR).notifyNow.map((e) => e.endpointId)).toEqual(['b']);
  });
});

describe('compact', () => {
  it('forgets notice times older than the hour and streaks older than the look-back', () => {
    const state = { ...emptyState(), lastNoticeAt: { a: T0, b: T0 + 1 }, notifiedStreaks: { a: T0 - 10, b: T0 } };
    expect(compact(state, T0 + HOUR, T0)).toMatchObject({ lastNoticeAt: { b: T0 + 1 }, notifiedStreaks: { b: T0 } });
  });
});
