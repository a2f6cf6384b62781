// The decision rules as pure functions, table-driven, each edge on both sides with the spec's
// numbers written here: "lasted 5, 15 or 60 minutes", "exceed 100, 1,000 or 10,000 (once a
// day)", "reach 50 %, 80 % or 100 %".
import { type AlertConditions, type EndpointId, type OrgId, PENDING_RETRIES_COUNTED_UP_TO } from '@wirehook/core';
import type { AlertEvent, NoticeEndpoint } from '@wirehook/store';
import { describe, expect, it } from 'vitest';
import { decideOrg, failureDue, pendingRetriesDue, usageReached, type OrgInput } from './decide.ts';
import { emptyState } from './failure-throttle.ts';
import { pendingRetriesContent } from './notice-content.ts';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 4, 12, 23, 0, 0);

describe('failureDue', () => {
  it.each([
    ['first', 0, true],
    ['5m', 5 * MINUTE - 1, false],
    ['5m', 5 * MINUTE, true],
    ['15m', 15 * MINUTE - 1_000, false],
    ['15m', 15 * MINUTE, true],
    ['60m', 60 * MINUTE - 1_000, false],
    ['60m', 60 * MINUTE, true],
  ] as const)('%s after %i ms: %s', (after, lasted, due) => {
    expect(failureDue(after, T0, T0 + lasted)).toBe(due);
  });
});

describe('pendingRetriesDue', () => {
  it.each([
    [100, 100, false],
    [101, 100, true],
    [1_000, 1_000, false],
    [1_001, 1_000, true],
    [10_000, 10_000, false],
    [10_001, 10_000, true],
  ])('%i retrying against %i: %s', (count, threshold, due) => {
    expect(pendingRetriesDue(count, threshold, undefined, T0)).toBe(due);
  });
  it('can cross the largest threshold at the count a store stops at (MongoDB counts up to 10,001), and says "more than" there', () => {
    expect(PENDING_RETRIES_COUNTED_UP_TO).toBe(10_001);
    expect(pendingRetriesDue(PENDING_RETRIES_COUNTED_UP_TO, 10_000, undefined, T0)).toBe(true);
    expect(pendingRetriesContent('live', PENDING_RETRIES_COUNTED_UP_TO, 10_000, T0).data.summary).toMatch(/^More than 10,000 deliveries are waiting/);
    expect(pendingRetriesContent('live', 10_000, 1_000, T0).data.summary).toMatch(/^10,000 deliveries are waiting/);
  });
  it('once a UTC day: not again the same day, again the next', () => {
    expect(pendingRetriesDue(101, 100, '2026-05-12', T0 + 59 * MINUTE)).toBe(false);
    expect(pendingRetriesDue(101, 100, '2026-05-12', T0 + 60 * MINUTE)).toBe(true);
  });
  it('told on the next day (the clock stepped back across midnight since): that notice stands, none again', () => {
    expect(pendingRetriesDue(101, 100, '2026-05-13', T0 + 59 * MINUTE)).toBe(false);
  });
  it('told two days or a year ahead (a clock that ran wrong, since corrected): stale, told again — not muted until then', () => {
    expect(pendingRetriesDue(101, 100, '2026-05-14', T0 + 59 * MINUTE)).toBe(true);
    expect(pendingRetriesDue(101, 100, '2027-05-12', T0 + 59 * MINUTE)).toBe(true);
  });
});

describe('usageReached', () => {
  it.each([
    [4_999, 50, false],
    [5_000, 50, true],
    [7_999, 80, false],
    [8_000, 80, true],
    [9_999, 100, false],
    [10_000, 100, true],
  ])('%i of 10,000 at %i %%: %s', (used, share, reached) => {
    expect(usageReached(used, 10_000, share)).toBe(reached);
  });
  it('no limit known: never', () => expect(usageReached(1, 0, 50)).toBe(false));
});

const endpoint = (id: string): NoticeEndpoint => ({
  env: 'live',
  endpointId: id as EndpointId,
  url: `https://${id}.test/`,
  consumerExternalId: id,
  failingSince: T0,
  lastError: null,
  lastStatus: 503,
});
const event = (kind: AlertEvent['kind'], id: string): AlertEvent => ({
  id: '1',
  tenant: { orgId: 'org_1' as OrgId, env: 'live' },
  kind,
  endpointId: id as EndpointId,
  at: T0,
  error: null,
  responseStatus: 503,
  deliveryId: null,
});
const CHOSEN: AlertConditions = { delivery_failure: '60m', automatic_stop: true, pending_retries: 1_000, usage: 80 };
/** The same conditions for both environments, with `over` changed. */
const both = (over: Partial<AlertConditions>): OrgInput['conditions'] => ({ live: { ...CHOSEN, ...over }, test: { ...CHOSEN, ...over } });
const input = (over: Partial<OrgInput>): OrgInput => ({
  orgId: 'org_1' as OrgId,
  conditions: both({}),
  state: emptyState(),
  targetEnvs: new Set(['live']),
  events: [],
  failing: [],
  periodic: null,
  org: { plan: 'free', ownerEmail: 'owner@acme.test' },
  canEmail: true,
  now: T0,
  ...over,
});

describe('decideOrg', () => {
  it("exhausted retries notify whatever the condition; a streak's start only with 'first'", () => {
    const start = { event: event('failing', 'a'), endpoint: endpoint('a') };
    expect(decideOrg(input({ events: [start] })).notices).toEqual([]);
    expect(decideOrg(input({ events: [start], conditions: both({ delivery_failure: 'first' }) })).notices).toHaveLength(1);
    expect(decideOrg(input({ events: [{ event: event('exhausted', 'a'), endpoint: endpoint('a') }] })).notices.map((n) => n.to)).toEqual([{ env: 'live' }]);
  });

  it('automatic stop notifies when chosen, not throttled; never when not chosen', () => {
    const stopped = [1, 2].map(() => ({ event: event('disabled', 'a'), endpoint: endpoint('a') }));
    expect(decideOrg(input({ events: stopped })).notices.map((n) => n.content.type)).toEqual(['alert.endpoint_disabled', 'alert.endpoint_disabled']);
    expect(decideOrg(input({ events: stopped, conditions: both({ automatic_stop: false }) })).notices).toEqual([]);
  });

  it("each environment's own conditions apply to its events: the test environment's choice never mutes or changes the live one's", () => {
    const testEndpoint = { ...endpoint('t'), env: 'test' as const };
    const testEvent = (kind: AlertEvent['kind']) => ({
      event: { ...event(kind, 't'), tenant: { orgId: 'org_1' as OrgId, env: 'test' as const } },
      endpoint: testEndpoint,
    });
    const events = [
      { event: event('disabled', 'a'), endpoint: endpoint('a') },
      testEvent('disabled'),
      { event: event('failing', 'b'), endpoint: endpoint('b') },
      testEvent('failing'),
    ];
    const split = { live: { ...CHOSEN, automatic_stop: true }, test: { ...CHOSEN, automatic_stop: false, delivery_failure: 'first' as const } };
    const decided = decideOrg(input({ events, conditions: split, targetEnvs: new Set(['live', 'test']) }));
    expect(decided.notices.map((n) => [n.content.type, n.to])).toEqual([
      ['alert.endpoint_disabled', { env: 'live' }],
      ['alert.delivery_failure', { env: 'test' }],
    ]);
  });

  it('no target in the environment: no notice, and the state records none (day, month, hour)', () => {
    const none = input({
      targetEnvs: new Set(),
      events: [{ event: event('exhausted', 'a'), endpoint: endpoint('a') }],
      periodic: { retrying: [{ env: 'live', count: 5_000 }], used: 9_000 },
    });
    const decided = decideOrg(none);
    expect(decided.notices.map((n) => n.to)).toEqual(['owner']); // the owner's e-mail is not a target
    expect(decided.state.windows).toEqual({});
    expect(decided.state.pendingRetriesDay).toBeUndefined();
    expect(decided.state.usage?.sent).toEqual(['owner:80']);
  });

  it("owner's e-mail at 80 and 100 % whatever the condition; skipped (said why) without SMTP or owner", () => {
    const at100 = input({ periodic: { retrying: [], used: 10_000 }, conditions: both({ usage: 50 }) });
    const decided = decideOrg(at100);
    expect(decided.notices.map((n) => [n.to, n.content.data.threshold])).toEqual([
      [{ env: 'live' }, 50],
      ['owner', 80],
      ['owner', 100],
    ]);
    expect(decideOrg({ ...at100, canEmail: false }).skipped.map((s) => s.share)).toEqual([80, 100]);
  });

  it("usage notices recorded for a later month (the clock stepped back across a month's end since) are not told again", () => {
    const later = { ...emptyState(), usage: { month: '2026-06', sent: ['target:80', 'owner:80'] } };
    const decided = decideOrg(input({ periodic: { retrying: [], used: 9_000 }, state: later }));
    expect(decided.notices).toEqual([]);
    expect(decided.state.usage).toEqual(later.usage);
    // A year ahead (a clock that ran wrong, since corrected): stale, this month's notices told.
    const yearAhead = { ...emptyState(), usage: { month: '2027-05', sent: ['target:80', 'owner:80'] } };
    const told = decideOrg(input({ periodic: { retrying: [], used: 9_000 }, state: yearAhead }));
    expect(told.notices.map((n) => n.to)).toEqual([{ env: 'live' }, 'owner']);
    expect(told.state.usage).toEqual({ month: '2026-05', sent: ['target:80', 'owner:80'] });
    // Its own month's record counts as ever: the 100 % share, not yet told, is.
    const same = { ...emptyState(), usage: { month: '2026-05', sent: ['target:80', 'owner:80'] } };
    expect(decideOrg(input({ periodic: { retrying: [], used: 10_000 }, state: same })).notices.map((n) => n.to)).toEqual(['owner']);
  });

  it('the N-minute streaks: once per streak', () => {
    const due = input({ failing: [endpoint('a')], now: T0 + 60 * MINUTE });
    const first = decideOrg(due);
    expect(first.notices).toHaveLength(1);
    expect(decideOrg({ ...due, state: first.state }).notices).toEqual([]);
    expect(decideOrg({ ...due, now: T0 + 60 * MINUTE - 1 }).notices).toEqual([]);
  });
});
