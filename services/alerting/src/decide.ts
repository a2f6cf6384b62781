import { monthStart, OWNER_USAGE_THRESHOLDS, PLANS, utcDay, utcMonth, type AlertConditions, type Environment, type OrgId, type PlanName } from '@wirehook/core';
import type { AlertEvent, AlertState, NoticeEndpoint } from '@wirehook/store';
import { flush, onFailure } from './failure-throttle.ts';
import { noticeContent, pendingRetriesContent, usageContent, type NoticeContent } from './notice-content.ts';

// The alerting engine's decisions for one organization, as pure functions of what was read:
// which notices go now, to which environment's targets, and the throttle state after.

/** How long the failure must have lasted, by condition (spec: right after the first failure, or 5, 15, 60 minutes). */
export const FAILURE_AFTER_MS: Readonly<Record<AlertConditions['delivery_failure'], number>> = {
  first: 0,
  '5m': 5 * 60_000,
  '15m': 15 * 60_000,
  '60m': 60 * 60_000,
};

/** The failure streak that began at `failingSince` has lasted the chosen time at `now` (at exactly N minutes: yes). */
export function failureDue(after: AlertConditions['delivery_failure'], failingSince: number, now: number): boolean {
  return now - failingSince >= FAILURE_AFTER_MS[after];
}

/** Spec: "when the environment's pending retries exceed" the threshold — more than it, not as many — once a UTC day. */
export function pendingRetriesDue(count: number, threshold: number, lastDay: string | undefined, now: number): boolean {
  return count > threshold && !toldToday(lastDay, now);
}

/**
 * Whether a daily notice last told on `lastDay` (`YYYY-MM-DD`, UTC) counts as told on `now`'s day:
 * that day, or the next — the clock stepped back across midnight since, and that day's notice
 * stands for this one (not sent twice). Further ahead it was told by a clock that ran wrong (a host
 * booted a year ahead, then corrected): stale, or the notice would be muted until then.
 */
export function toldToday(lastDay: string | undefined, now: number): boolean {
  if (lastDay === undefined) return false;
  const today = utcDay(now);
  return lastDay === today || lastDay === utcDay(now + DAY_MS);
}

/**
 * Whether usage notices recorded for `recorded` (`YYYY-MM`) stand for `now`'s month: the same, or
 * the next (the clock stepped back across a month's end since). Further ahead: stale, as above.
 */
export function usageRecordStands(recorded: string, now: number): boolean {
  return recorded === utcMonth(now) || recorded === utcMonth(monthStart(now, -1));
}

const DAY_MS = 86_400_000;

/** Spec: "when this month's sends reach" the share of the plan's limit — as many or more. */
export function usageReached(used: number, limit: number, share: number): boolean {
  return limit > 0 && used * 100 >= share * limit;
}

/** What one step of an organization is decided on. */
export interface OrgInput {
  orgId: OrgId;
  /** Each environment's conditions, applied to that environment's events and counts (usage: live's). */
  conditions: Readonly<Record<Environment, AlertConditions>>;
  state: AlertState;
  /** Environments with at least one target: notices of the others go nowhere and are not recorded as sent. */
  targetEnvs: ReadonlySet<Environment>;
  /** Queued events, each with what a notice would say of its endpoint (null: the endpoint is gone). */
  events: { event: AlertEvent; endpoint: NoticeEndpoint | null }[];
  /** Streaks that have lasted the chosen time and were not notified, described. */
  failing: NoticeEndpoint[];
  /** Once a minute: environments' retrying totals and the month's live messages (null: not this step). */
  periodic: { retrying: { env: Environment; count: number }[]; used: number | null } | null;
  org: { plan: PlanName; ownerEmail: string | null } | null;
  /** SMTP is configured (the owner's e-mail can go). */
  canEmail: boolean;
  now: number;
}

/** One notice to queue: for every target of `env`, or for the owner's e-mail. */
export interface Decided {
  content: NoticeContent;
  to: { env: Environment } | 'owner';
}

/** The notices to queue and the state to commit; `skipped` says why an owner's e-mail did not go (logged). */
export function decideOrg(input: OrgInput): { state: AlertState; notices: Decided[]; skipped: { share: number; reason: string }[] } {
  const { conditions, now, targetEnvs } = input;
  const deliverable = (env: Environment) => targetEnvs.has(env);
  const notices: Decided[] = [];
  const skipped: { share: number; reason: string }[] = [];
  const failureNotice = (endpoints: NoticeEndpoint[]) =>
    notices.push({ content: noticeContent('alert.delivery_failure', endpoints, now), to: { env: endpoints[0]!.env } });

  // First the hours that ended: what waited in them has waited longest.
  const flushed = flush(input.state, now, deliverable);
  let state = flushed.state;
  flushed.notices.forEach(failureNotice);
  const failed = (endpoint: NoticeEndpoint | null) => {
    if (endpoint === null) return;
    const step = onFailure(state, endpoint, now, deliverable(endpoint.env));
    state = step.state;
    if (step.notifyNow.length > 0) failureNotice(step.notifyNow);
  };
  for (const { event, endpoint } of input.events) {
    if (event.kind === 'disabled') {
      // Automatic stops are not throttled: each is an action the customer must take.
      if (endpoint && conditions[endpoint.env].automatic_stop && deliverable(endpoint.env)) {
        notices.push({ content: noticeContent('alert.endpoint_disabled', [endpoint], now), to: { env: endpoint.env } });
      }
    } else if (event.kind === 'exhausted' || conditions[event.tenant.env].delivery_failure === 'first') {
      // Retries exhausted always notify; a failure streak's start does with 'first'.
      failed(endpoint);
    }
  }
  // The failure has lasted the chosen time: once per streak.
  for (const endpoint of input.failing) {
    if (endpoint.failingSince === null || !failureDue(conditions[endpoint.env].delivery_failure, endpoint.failingSince, now)) continue;
    if (state.notifiedStreaks[endpoint.endpointId] === endpoint.failingSince) continue;
    failed(endpoint);
  }

  if (input.periodic) {
    const day = utcDay(now);
    for (const { env, count } of input.periodic.retrying) {
      const threshold = conditions[env].pending_retries;
      if (!deliverable(env) || !pendingRetriesDue(count, threshold, state.pendingRetriesDay?.[env], now)) continue;
      state = { ...state, pendingRetriesDay: { ...state.pendingRetriesDay, [env]: day } };
      notices.push({ content: pendingRetriesContent(env, count, threshold, now), to: { env } });
    }
    const used = input.periodic.used;
    const month = utcMonth(now);
    // Next month's record (the clock stepped back across a month's end since): its notices stand, none told again.
    if (used !== null && !(state.usage !== undefined && state.usage.month !== month && usageRecordStands(state.usage.month, now))) {
      const limit = input.org ? PLANS[input.org.plan].monthlyMessages : 0;
      const sent = state.usage?.month === month ? state.usage.sent : [];
      const add: string[] = [];
      // Usage counts live messages: the live targets are told, at the live environment's share.
      const targetShare = conditions.live.usage;
      if (usageReached(used, limit, targetShare) && !sent.includes(`target:${targetShare}`) && deliverable('live')) {
        add.push(`target:${targetShare}`);
        notices.push({ content: usageContent(used, limit, targetShare, now), to: { env: 'live' } });
      }
      for (const share of OWNER_USAGE_THRESHOLDS) {
        if (!usageReached(used, limit, share) || sent.includes(`owner:${share}`)) continue;
        add.push(`owner:${share}`);
        if (input.org?.ownerEmail && input.canEmail) notices.push({ content: usageContent(used, limit, share, now), to: 'owner' });
        else
          skipped.push({
            share,
            reason: input.org?.ownerEmail ? "owner's usage e-mail skipped: no SMTP_URL" : "owner's usage e-mail skipped: the organization has no owner_email",
          });
      }
      if (add.length > 0) state = { ...state, usage: { month, sent: [...sent, ...add] } };
    }
  }
  return { state, notices, skipped };
}
