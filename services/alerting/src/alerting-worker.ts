import {
  ConflictError,
  DEFAULT_ALERT_CONDITIONS,
  PLANS,
  type AlertConditions,
  type AlertTargetId,
  type Clock,
  type EndpointId,
  type OrgId,
  type Tenant,
} from '@wirehook/core';
import { OutageLog, type Component, type Logger } from '@wirehook/platform';
import type { AlertEvent, AlertState, NoticeDelivery, NoticeEndpoint, Store } from '@wirehook/store';
import { randomUUID } from 'node:crypto';
import { Counter, type Registry } from 'prom-client';
import { emptyState, flush, onFailure } from './failure-throttle.ts';
import { noticeContent, pendingRetriesContent, usageContent, type NoticeContent } from './notice-content.ts';
import type { NoticeSender } from './notice-sender.ts';

/** How long the failure must have lasted, by condition. */
const AFTER_MS: Record<AlertConditions['delivery_failure'], number> = { first: 0, '5m': 5 * 60_000, '15m': 15 * 60_000, '60m': 60 * 60_000 };
const BATCH = 200;
/** How far past its N minutes a streak is still notified (an alerting outage up to this long loses nothing). */
const FAILING_LOOKBACK_MS = 6 * 60 * 60_000;
/** Tries of one notice, and the waits between them. */
const RETRY_DELAYS_MS = [10_000, 60_000, 5 * 60_000, 30 * 60_000];
/** How often (by the clock) retrying totals and monthly usage are looked at. */
const PERIODIC_MS = 60_000;
/** The owner's usage e-mails go at these shares of the plan, whatever the conditions. */
const OWNER_USAGE_THRESHOLDS = [80, 100];
/** The notices' target for the owner's e-mail (not a stored target). */
const OWNER = 'owner' as AlertTargetId;

interface Periodic {
  retrying: { tenant: Tenant; count: number }[];
  used: number | null;
}

export interface AlertingWorkerOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  sender: NoticeSender;
  registry?: Registry;
  tickMs?: number;
}

/** How often the worker looks for work (real time). */
const DEFAULT_TICK_MS = 1_000;

/**
 * The alerting engine (spec: Failure notifications). Each tick: the outbox events the
 * deliveries wrote (a failure streak began, retries ran out, an endpoint was stopped), the
 * endpoints failing for as long as each organization chose, and the hours of combined
 * notices that ended — decided against each organization's throttle state and committed with
 * the queued notices in one transaction, so a restart loses and doubles nothing; then the
 * queued notices are sent to every target, retried, each try recorded.
 */
export class AlertingWorker implements Component {
  readonly name = 'alerting';
  readonly #o: AlertingWorkerOptions & { tickMs: number };
  readonly #notices: Counter<'type' | 'outcome'>;
  readonly #outage: OutageLog;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #stopped = false;
  #lastPeriodic: number | undefined;

  constructor(options: AlertingWorkerOptions) {
    // `??`: an explicit `tickMs: undefined` (from the factory) must not override the default.
    this.#o = { ...options, tickMs: options.tickMs ?? DEFAULT_TICK_MS };
    this.#notices = new Counter({
      name: 'wirehook_alert_notices_total',
      help: 'Failure notices sent to targets, by type and outcome (sent, failed: a try that did not reach the target)',
      labelNames: ['type', 'outcome'],
      registers: options.registry ? [options.registry] : [],
    });
    this.#outage = new OutageLog({
      logger: options.logger,
      clock: options.clock,
      what: 'alerting store calls failing',
      deferred: 'alerting ticks put off',
      consequence: 'notices wait; nothing is lost (the outbox keeps them)',
    });
  }

  async start(): Promise<void> {
    const loop = () => {
      if (this.#stopped) return;
      this.#timer = setTimeout(() => void this.tick().finally(loop), this.#o.tickMs);
    };
    loop();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#ticking;
  }

  /** One round (tests call it with the clock moved). */
  tick(): Promise<void> {
    this.#ticking ??= this.#tick().finally(() => (this.#ticking = undefined));
    return this.#ticking;
  }

  async #tick(): Promise<void> {
    try {
      await this.#decide();
      await this.#send();
      this.#outage.succeeded();
    } catch (err) {
      this.#outage.failed(err);
    }
  }

  async #decide(): Promise<void> {
    const { store, clock } = this.#o;
    const now = clock.now();
    const events = await store.alerts.events(BATCH);
    const byOrg = new Map<OrgId, AlertEvent[]>();
    for (const e of events) byOrg.set(e.tenant.orgId, [...(byOrg.get(e.tenant.orgId) ?? []), e]);
    // Streaks that may cross an organization's N minutes now: begun within the longest N and
    // a lookback that covers an alerting outage (newest first, so a new streak is never crowded out).
    const failing = await store.alerts.failingEndpoints(now - AFTER_MS['60m'] - FAILING_LOOKBACK_MS, now, 1_000);
    const failingByOrg = new Map<OrgId, typeof failing>();
    for (const f of failing) failingByOrg.set(f.tenant.orgId, [...(failingByOrg.get(f.tenant.orgId) ?? []), f]);
    // Totals looked at once a minute: retrying deliveries per environment, live messages this month.
    const periodic = new Map<OrgId, Periodic>();
    if (this.#lastPeriodic === undefined || now - this.#lastPeriodic >= PERIODIC_MS || now < this.#lastPeriodic) {
      this.#lastPeriodic = now;
      const entry = (orgId: OrgId) => periodic.get(orgId) ?? periodic.set(orgId, { retrying: [], used: null }).get(orgId)!;
      for (const r of await store.alerts.retryingCounts(100)) entry(r.tenant.orgId).retrying.push(r);
      for (const u of await store.alerts.liveMonthUsage(new Date(now).toISOString().slice(0, 7))) entry(u.orgId).used = u.used;
    }
    const orgs = new Set<OrgId>([...byOrg.keys(), ...failingByOrg.keys(), ...periodic.keys(), ...(await store.alerts.statesDue(now, BATCH))]);
    for (const orgId of orgs) {
      try {
        await this.#decideFor(orgId, byOrg.get(orgId) ?? [], failingByOrg.get(orgId) ?? [], periodic.get(orgId) ?? null, now);
      } catch (err) {
        if (!(err instanceof ConflictError)) throw err; // another worker took these events: they are handled
      }
    }
  }

  async #decideFor(
    orgId: OrgId,
    events: AlertEvent[],
    failing: { tenant: Tenant; endpointId: EndpointId; failingSince: number }[],
    periodic: Periodic | null,
    now: number,
  ): Promise<void> {
    const { store } = this.#o;
    const conditions = (await store.alerts.conditions(orgId)) ?? DEFAULT_ALERT_CONDITIONS;
    const loaded: AlertState = (await store.alerts.state(orgId)) ?? emptyState();
    let state = loaded;
    const failureNotices: NoticeEndpoint[][] = [];
    const disabled: NoticeEndpoint[] = [];
    // First the hour that ended: what waited in it has waited longest.
    const flushed = flush(state, now);
    state = flushed.state;
    if (flushed.notifyNow.length > 0) failureNotices.push(flushed.notifyNow);
    const failed = async (endpoint: NoticeEndpoint | null) => {
      if (endpoint === null) return;
      // Whatever notice covers this failure streak (now or at the hour's end) covers it once.
      if (endpoint.failingSince !== null) state = markStreak(state, endpoint.endpointId, endpoint.failingSince);
      const step = onFailure(state, endpoint, now);
      state = step.state;
      if (step.notifyNow.length > 0) failureNotices.push(step.notifyNow);
    };

    for (const e of events) {
      if (e.kind === 'disabled') {
        if (conditions.automatic_stop) {
          const endpoint = await this.#describe(e.tenant, e.endpointId, e);
          if (endpoint) disabled.push(endpoint);
        }
      } else if (e.kind === 'exhausted' || conditions.delivery_failure === 'first') {
        // Retries exhausted always notify; a failure streak's start does with 'first'.
        await failed(await this.#describe(e.tenant, e.endpointId, e));
      }
    }
    // 'Nm': the failure has lasted N minutes, once per streak.
    if (conditions.delivery_failure !== 'first') {
      for (const f of failing) {
        if (f.failingSince > now - AFTER_MS[conditions.delivery_failure]) continue;
        if (state.notifiedStreaks[f.endpointId] === f.failingSince) continue;
        await failed(await this.#describe(f.tenant, f.endpointId, null));
      }
    }

    const targets = await store.alerts.targets(orgId);
    const notices: NoticeDelivery[] = [];
    const notice = (content: NoticeContent, targetId: AlertTargetId): NoticeDelivery => ({
      id: `ntc_${randomUUID().replaceAll('-', '')}`,
      orgId,
      targetId,
      type: content.type,
      body: JSON.stringify(content),
      createdAt: now,
    });
    const queue = (content: NoticeContent) => {
      for (const target of targets) notices.push(notice(content, target.id));
    };
    for (const endpoints of failureNotices) queue(noticeContent('alert.delivery_failure', endpoints, now));
    for (const endpoint of disabled) queue(noticeContent('alert.endpoint_disabled', [endpoint], now));

    if (periodic) {
      // Pending retries: once a UTC day per environment, when the total reaches the chosen number.
      const day = new Date(now).toISOString().slice(0, 10);
      for (const { tenant, count } of periodic.retrying) {
        if (count < conditions.pending_retries || state.pendingRetriesDay?.[tenant.env] === day) continue;
        state = { ...state, pendingRetriesDay: { ...state.pendingRetriesDay, [tenant.env]: day } };
        queue(pendingRetriesContent(tenant.env, count, conditions.pending_retries, now));
      }
      // Usage: the chosen share of the plan once a month; the owner's e-mail at 80 and 100 %.
      if (periodic.used !== null) {
        const org = await store.orgs.get(orgId);
        const limit = org ? PLANS[org.plan].monthlyMessages : 0;
        const month = new Date(now).toISOString().slice(0, 7);
        const sent = state.usage?.month === month ? state.usage.sent : [];
        const reached = (share: number) => limit > 0 && periodic.used! * 100 >= share * limit;
        const add: string[] = [];
        if (reached(conditions.usage) && !sent.includes(`target:${conditions.usage}`)) {
          add.push(`target:${conditions.usage}`);
          queue(usageContent(periodic.used, limit, conditions.usage, now));
        }
        for (const share of OWNER_USAGE_THRESHOLDS) {
          if (!reached(share) || sent.includes(`owner:${share}`)) continue;
          add.push(`owner:${share}`);
          if (org?.ownerEmail && this.#o.sender.canEmail) notices.push(notice(usageContent(periodic.used, limit, share, now), OWNER));
          else
            this.#o.logger.info(
              { orgId, share },
              org?.ownerEmail ? "owner's usage e-mail skipped: no SMTP_URL" : "owner's usage e-mail skipped: the organization has no owner_email",
            );
        }
        if (add.length > 0) state = { ...state, usage: { month, sent: [...sent, ...add] } };
      }
    }
    if (events.length === 0 && notices.length === 0 && JSON.stringify(state) === JSON.stringify(loaded)) return; // nothing changed
    // Decided on `loaded`: the commit is refused if another worker committed since.
    await store.alerts.commitStep(
      orgId,
      events.map((e) => e.seq),
      { ...state, version: loaded.version + 1 },
      notices,
    );
  }

  /** What a notice says about an endpoint; null when it is gone. */
  async #describe(t: Tenant, endpointId: EndpointId, event: AlertEvent | null): Promise<NoticeEndpoint | null> {
    const { store } = this.#o;
    const endpoint = await store.endpoints.get(t, endpointId);
    if (!endpoint) return null;
    const consumer = await store.consumers.get(t, endpoint.consumerId);
    const last = event ?? (await store.deliveries.recentAttempts(t, endpointId, 1)).map((a) => ({ error: a.error, responseStatus: a.responseStatus }))[0];
    return {
      env: t.env,
      endpointId,
      url: endpoint.url,
      consumerExternalId: consumer?.externalId ?? '',
      failingSince: endpoint.failingSince,
      lastError: last?.error ?? null,
      lastStatus: last?.responseStatus ?? null,
    };
  }

  async #send(): Promise<void> {
    const { store, clock, sender } = this.#o;
    const now = clock.now();
    const due = await store.alerts.claimNotices(now, now + 60_000, 50);
    // Each organization's targets read once per round, not once per notice.
    const targetsOf = new Map<OrgId, ReturnType<typeof store.alerts.targets>>();
    const targets = (orgId: OrgId) => targetsOf.get(orgId) ?? targetsOf.set(orgId, store.alerts.targets(orgId)).get(orgId)!;
    await Promise.all(
      due.map(async (notice) => {
        let result: Awaited<ReturnType<typeof sender.send>>;
        if (notice.targetId === OWNER) {
          const owner = (await store.orgs.get(notice.orgId))?.ownerEmail;
          if (!owner)
            return store.alerts.recordNoticeAttempt(notice.id, { at: now, responseStatus: null, error: 'no owner_email', durationMs: 0 }, false, null);
          result = await sender.sendOwnerEmail(owner, notice);
        } else {
          const target = (await targets(notice.orgId)).find((t) => t.id === notice.targetId);
          if (!target)
            return store.alerts.recordNoticeAttempt(notice.id, { at: now, responseStatus: null, error: 'target deleted', durationMs: 0 }, false, null);
          result = await sender.send(target, notice);
        }
        this.#notices.inc({ type: notice.type, outcome: result.ok ? 'sent' : 'failed' });
        const delay = RETRY_DELAYS_MS[notice.attempts];
        const next = result.ok || delay === undefined ? null : clock.now() + delay;
        await store.alerts.recordNoticeAttempt(
          notice.id,
          { at: now, responseStatus: result.status, error: result.error, durationMs: result.durationMs },
          result.ok,
          next,
        );
      }),
    );
  }
}

function markStreak(state: AlertState, endpointId: string, failingSince: number): AlertState {
  return { ...state, notifiedStreaks: { ...state.notifiedStreaks, [endpointId]: failingSince } };
}
