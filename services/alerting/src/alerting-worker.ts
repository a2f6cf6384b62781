import {
  ConflictError,
  DEFAULT_ALERT_CONDITIONS,
  isCancelledAttempt,
  newNoticeId,
  PENDING_RETRIES_COUNTED_UP_TO,
  RECENT_ATTEMPTS,
  USAGE_NOTICE_FLOOR,
  utcMonth,
  type AlertConditions,
  type AlertTargetId,
  type Clock,
  type DeliveryId,
  type EndpointId,
  type Environment,
  type OrgId,
  type Tenant,
} from '@wirehook/core';
import { OutageLog, type Component, type Logger } from '@wirehook/platform';
import type { AlertEvent, FailingCursor, NoticeDelivery, NoticeEndpoint, Store } from '@wirehook/store';
import type { Registry } from 'prom-client';
import { CertificateNotices } from './certificate-notices.ts';
import { decideOrg, failureDue, FAILURE_AFTER_MS, toldToday, type OrgInput } from './decide.ts';
import { tellEgressChange } from './egress-change-notices.ts';
import { compact, emptyState } from './failure-throttle.ts';
import { NoticeOutbox, OWNER } from './notice-outbox.ts';
import { NoticePruner } from './notice-pruner.ts';
import type { NoticeSenderPort } from './notice-sender.ts';

/** How far past its N minutes a streak is still notified (an alerting outage up to this long loses nothing). */
const FAILING_LOOKBACK_MS = 6 * 60 * 60_000;
/** The oldest streak any condition looks at. */
const STREAKS_SINCE_MS = FAILURE_AFTER_MS['60m'] + FAILING_LOOKBACK_MS;
/** How often (by the clock) retrying totals and monthly usage are looked at. */
const PERIODIC_MS = 60_000;
/** Fairness: organizations taken per source per tick, in turn, and the work read for each. */
const ORGS_PER_TICK = 100;
const EVENTS_PER_ORG = 100;
const FAILING_PER_ORG = 100;
/** A pool change's notices take a step at least this often, even while the outbox is full. */
const EGRESS_STEP_AT_LEAST_MS = 60_000;
/** The smallest pending-retries threshold: an environment is looked at above it (the spec's "exceed"). */
const RETRYING_MIN = 101;
/**
 * Organizations with retrying deliveries one tick reads of the periodic pass (a page of the
 * store's walk: MongoDB's costs a round trip's wait an organization): a pass of more takes more
 * ticks, so at 10⁴ such organizations each is read every ≈ 2 minutes rather than the tick held a
 * minute's worth of round trips.
 */
const RETRYING_ORGS_PER_TICK = 200;

/** An organization's periodic reading: retrying totals (`exact` false: at least that many) and the live messages of `month`. */
interface PeriodicReading {
  retrying: { env: Environment; count: number; exact: boolean }[];
  used: number | null;
  /** The UTC month `used` counts (`YYYY-MM`): decided in another month, it is no reading of that one. */
  month: string;
}

/** The periodic pass under way: the retrying totals read so far, where the walk goes on, and when a failed read is tried again. */
interface PeriodicPass {
  retrying: Map<OrgId, PeriodicReading['retrying']>;
  after: OrgId | null;
  /** The walk has ended; the month's usage is still to read. */
  walked: boolean;
  /** When its last read failed (null: none has since one succeeded); tried again backoffMs after. */
  failedAt: number | null;
  backoffMs: number;
}

/** How long a failed read of the periodic pass waits before it is tried again, doubling to PERIODIC_MS while it fails. */
const PASS_RETRY_MIN_MS = 5_000;

export interface AlertingWorkerOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  sender: NoticeSenderPort;
  registry?: Registry;
  tickMs?: number;
  /** Bound on one send to one target (default 10 s). */
  sendTimeoutMs?: number;
  /** Links notices make to an endpoint's page (the portal's public URL), when there is a portal. */
  portalPublicUrl?: string;
}

/** How often the worker looks for work (real time). */
const DEFAULT_TICK_MS = 1_000;

/**
 * The alerting engine (spec: Failure notifications). Each tick decides, one organization at
 * a time and in turn (the organizations with the oldest queued events first, those whose
 * hour ended, those with failing endpoints after the last one looked at, at most
 * ORGS_PER_TICK of each, each with bounded reads): the outbox events its deliveries wrote,
 * its endpoints failing for as long as it chose, the hours of combined notices that ended —
 * against its throttle state, committed with the queued notices in one transaction, so a
 * restart loses and doubles nothing. Then queued notices are handed to the outbox, which
 * sends each on its own, bounded in time, without holding the tick; and when it had room, a
 * change of the fixed IP pool is told to a page of organizations (egress-change-notices.ts), and
 * a page of the client certificates expiring within 14 days to their organizations (certificate-notices.ts).
 */
export class AlertingWorker implements Component {
  readonly name = 'alerting';
  readonly #o: AlertingWorkerOptions & { tickMs: number };
  readonly #outage: OutageLog;
  readonly #outbox: NoticeOutbox;
  readonly #pruner: NoticePruner;
  readonly #certificates: CertificateNotices;
  /** Where each organization's walk over its failing endpoints stands (absent: from the start). */
  readonly #failingCursors = new Map<OrgId, FailingCursor>();
  /**
   * The periodic readings not yet looked at, by organization, in the order they were first
   * queued: each tick decides the first ORGS_PER_TICK, and a new reading updates an entry in
   * place (a Map keeps its key's position), so every organization's turn comes.
   */
  readonly #periodic = new Map<OrgId, PeriodicReading>();
  #failingOrgsAfter: OrgId | null = null;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #stopped = false;
  #lastPeriodic: number | undefined;
  /** The periodic pass under way: its readings so far, and where the walk over retrying organizations goes on. */
  #pass: PeriodicPass | undefined;
  /** When (by the clock) the last step of a pool change's notices was taken. */
  #egressStepAt: number | undefined;

  constructor(options: AlertingWorkerOptions) {
    // `??`: an explicit `tickMs: undefined` (from the factory) must not override the default.
    this.#o = { ...options, tickMs: options.tickMs ?? DEFAULT_TICK_MS };
    this.#outage = new OutageLog({
      logger: options.logger,
      clock: options.clock,
      what: 'alerting store calls failing',
      deferred: 'alerting ticks put off',
      consequence: 'notices wait; nothing is lost (the outbox keeps them)',
    });
    this.#outbox = new NoticeOutbox({
      store: options.store,
      clock: options.clock,
      logger: options.logger,
      sender: options.sender,
      registry: options.registry,
      sendTimeoutMs: options.sendTimeoutMs,
    });
    this.#pruner = new NoticePruner({ store: options.store, clock: options.clock, logger: options.logger });
    this.#certificates = new CertificateNotices({ store: options.store, clock: options.clock, logger: options.logger, canEmail: options.sender.canEmail });
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
    await this.#pruner.stop();
    await this.#outbox.idle();
  }

  /** One round (tests call it with the clock moved). Sends it starts go on after it returns: see `idle`. */
  tick(): Promise<void> {
    this.#ticking ??= this.#tick().finally(() => (this.#ticking = undefined));
    return this.#ticking;
  }

  /** Resolves when every send started so far has been recorded (tests). */
  idle(): Promise<void> {
    return this.#outbox.idle();
  }

  async #tick(): Promise<void> {
    try {
      await this.#decide();
      const room = await this.#outbox.sendDue();
      // A pool change's notices while the outbox keeps up, so failure notices queued later never
      // wait behind more than one step's; in a storm that keeps it full, still a step a minute.
      // Its own failure holds back only its own notices.
      const now = this.#o.clock.now();
      const since = this.#egressStepAt === undefined ? Infinity : now - this.#egressStepAt;
      if (room || since >= EGRESS_STEP_AT_LEAST_MS || since < 0) {
        this.#egressStepAt = now;
        await tellEgressChange({ store: this.#o.store, clock: this.#o.clock, canEmail: this.#o.sender.canEmail }).catch((err: unknown) =>
          this.#o.logger.error({ err }, 'alerting: queuing the notices of a fixed IP pool change failed'),
        );
      }
      // Certificates expiring soon, paced the same way; its failure holds back only its own notices.
      await this.#certificates.maybeStep(room).catch((err: unknown) => this.#o.logger.error({ err }, 'alerting: queuing certificate-expiry notices failed'));
      // Done notices and old tries, at the retention job's pace, off the tick.
      this.#pruner.maybeRun();
      this.#outage.succeeded();
    } catch (err) {
      this.#outage.failed(err);
    }
  }

  async #decide(): Promise<void> {
    const { store, clock } = this.#o;
    const now = clock.now();
    if (this.#pass === undefined && (this.#lastPeriodic === undefined || now - this.#lastPeriodic >= PERIODIC_MS || now < this.#lastPeriodic)) {
      this.#lastPeriodic = now;
      this.#pass = { retrying: new Map(), after: null, walked: false, failedAt: null, backoffMs: PASS_RETRY_MIN_MS };
    }
    const pass = this.#pass;
    // A read of the pass that fails is told and tried again later (doubling to a minute), while the rest of each tick
    // goes on: failing every tick, it held back every other notice (helper 277).
    // (A clock stepped back before the failure tries again at once.)
    const failedAt = pass?.failedAt ?? null;
    if (pass !== undefined && (failedAt === null || now - failedAt >= pass.backoffMs || now < failedAt)) {
      await this.#passStep(pass, now).then(
        () => {
          pass.failedAt = null;
          pass.backoffMs = PASS_RETRY_MIN_MS;
        },
        (err: unknown) => {
          this.#o.logger.error({ err }, 'alerting: reading the periodic totals failed; tried again later');
          if (pass.failedAt !== null) pass.backoffMs = Math.min(pass.backoffMs * 2, PERIODIC_MS);
          pass.failedAt = now;
        },
      );
    }
    const failingOrgs = await store.alerts.failingOrgs(now - STREAKS_SINCE_MS, now, this.#failingOrgsAfter, ORGS_PER_TICK);
    // Round robin: the next tick goes on after the last organization looked at, from the start when none is left.
    this.#failingOrgsAfter = failingOrgs.length < ORGS_PER_TICK ? null : failingOrgs.at(-1)!;
    const orgs = new Set<OrgId>([
      ...(await store.alerts.eventOrgs(ORGS_PER_TICK)),
      ...(await store.alerts.statesDue(now, ORGS_PER_TICK)),
      ...failingOrgs,
      ...firstOf(this.#periodic.keys(), ORGS_PER_TICK),
    ]);
    for (const orgId of orgs) {
      const periodic = this.#periodic.get(orgId) ?? null;
      this.#periodic.delete(orgId);
      try {
        await this.#decideFor(orgId, periodic, now);
      } catch (err) {
        // Another worker took these events: they are handled. Anything else is this organization's
        // alone: logged, and the others go on (it is tried again next tick).
        if (err instanceof ConflictError) continue;
        this.#o.logger.error({ err, orgId }, 'alerting: deciding notices for an organization failed');
      }
    }
  }

  /**
   * One tick's step of the periodic pass: a page of the walk over organizations with retrying
   * deliveries (a pass of many takes several ticks, and decides none until it has read them all),
   * and once that has ended, the month's usage — read at the pass's end, so a pass that crosses a
   * month's end reads the month it is decided in.
   */
  async #passStep(pass: PeriodicPass, now: number): Promise<void> {
    const { store } = this.#o;
    if (!pass.walked) {
      const page = await store.alerts.retryingCounts(RETRYING_MIN, pass.after, RETRYING_ORGS_PER_TICK);
      for (const r of page.counts) {
        const totals = pass.retrying.get(r.tenant.orgId) ?? pass.retrying.set(r.tenant.orgId, []).get(r.tenant.orgId)!;
        totals.push({ env: r.tenant.env, count: r.count, exact: r.exact });
      }
      pass.after = page.next;
      pass.walked = page.next === null;
      if (!pass.walked) return;
    }
    const month = utcMonth(now);
    const fresh = new Map<OrgId, PeriodicReading>();
    for (const [orgId, retrying] of pass.retrying) fresh.set(orgId, { retrying, used: null, month });
    // Only organizations at USAGE_NOTICE_FLOOR or above (the store lists no other; one below it could cross no threshold).
    // Not read, the pass ends without (told): kept waiting for it, no pass after it would read a retrying total again.
    const usage = await store.alerts.liveMonthUsage(month, now).catch((err: unknown) => {
      this.#o.logger.error({ err }, "alerting: reading the month's usage failed; this pass decides no usage notice");
      return [];
    });
    for (const u of usage) {
      if (u.used >= USAGE_NOTICE_FLOOR) (fresh.get(u.orgId) ?? fresh.set(u.orgId, { retrying: [], used: null, month }).get(u.orgId)!).used = u.used;
    }
    this.#pass = undefined;
    // Merged, not replaced: replacing the queue each minute put the same first organizations
    // back in front, and past ORGS_PER_TICK a tick (≈ 6,000 a minute) the rest never had a turn.
    // One with nothing periodic left leaves the queue; the others keep their places.
    for (const orgId of this.#periodic.keys()) if (!fresh.has(orgId)) this.#periodic.delete(orgId);
    for (const [orgId, reading] of fresh) this.#periodic.set(orgId, reading);
  }

  /**
   * The retrying totals decided on. One read as "at least" (MongoDB's minute walk counts each
   * only to RETRYING_MIN) is counted now when it may notify (it has a target and was not told
   * today): first only past its threshold — an environment under it reads no more than its
   * threshold's keys each minute — then, over it, up to 10,001 for the notice's figure. Any
   * other is left as read, since it cannot notify today.
   */
  async #retryingTotals(
    orgId: OrgId,
    readings: PeriodicReading['retrying'],
    state: { pendingRetriesDay?: Partial<Record<Environment, string>> },
    targets: ReadonlyMap<Environment, unknown>,
    conditions: Record<Environment, AlertConditions>,
    now: number,
  ): Promise<{ env: Environment; count: number }[]> {
    const totals: { env: Environment; count: number }[] = [];
    for (const r of readings) {
      const mayNotify = targets.has(r.env) && !toldToday(state.pendingRetriesDay?.[r.env], now);
      if (r.exact || !mayNotify) {
        totals.push({ env: r.env, count: r.count });
        continue;
      }
      const tenant = { orgId, env: r.env };
      const threshold = conditions[r.env].pending_retries;
      const upTo = Math.min(threshold + 1, PENDING_RETRIES_COUNTED_UP_TO);
      const past = await this.#o.store.alerts.retryingCount(tenant, upTo);
      const further = past >= upTo && upTo < PENDING_RETRIES_COUNTED_UP_TO;
      totals.push({ env: r.env, count: further ? await this.#o.store.alerts.retryingCount(tenant, PENDING_RETRIES_COUNTED_UP_TO) : past });
    }
    return totals;
  }

  async #decideFor(orgId: OrgId, reading: PeriodicReading | null, now: number): Promise<void> {
    const { store } = this.#o;
    // Each environment's own conditions apply to its events (a test key cannot mute live alerting).
    const conditions: Record<Environment, AlertConditions> = {
      live: (await store.alerts.conditions({ orgId, env: 'live' })) ?? DEFAULT_ALERT_CONDITIONS,
      test: (await store.alerts.conditions({ orgId, env: 'test' })) ?? DEFAULT_ALERT_CONDITIONS,
    };
    const loaded = (await store.alerts.state(orgId)) ?? emptyState();
    const targets = new Map<Environment, AlertTargetId[]>();
    for (const env of ['live', 'test'] as const) {
      const ids = (await store.alerts.targets({ orgId, env })).map((t) => t.id);
      if (ids.length > 0) targets.set(env, ids);
    }
    const queued = await store.alerts.events(orgId, EVENTS_PER_ORG);
    const events: OrgInput['events'] = [];
    for (const event of queued) {
      // Only what may notify is described (a streak's start matters with 'first' alone).
      const relevant = (event.kind !== 'failing' || conditions[event.tenant.env].delivery_failure === 'first') && targets.has(event.tenant.env);
      events.push({ event, endpoint: relevant ? await this.#describe(event.tenant, event.endpointId, event) : null });
    }
    const failing: NoticeEndpoint[] = [];
    for (const f of await this.#failingPage(orgId, now)) {
      if (!targets.has(f.tenant.env) || !failureDue(conditions[f.tenant.env].delivery_failure, f.failingSince, now)) continue;
      if (loaded.notifiedStreaks[f.endpointId] === f.failingSince) continue;
      const endpoint = await this.#describe(f.tenant, f.endpointId, null);
      if (endpoint) failing.push(endpoint);
    }
    const periodic: OrgInput['periodic'] =
      reading === null
        ? null
        : {
            // A reading of last month's messages decides nothing of this month's (read at 23:59, its turn after midnight).
            used: reading.month === utcMonth(now) ? reading.used : null,
            retrying: await this.#retryingTotals(orgId, reading.retrying, loaded, targets, conditions, now),
          };
    const org = periodic?.used != null ? await store.orgs.get(orgId) : null;
    const decided = decideOrg({
      orgId,
      conditions,
      state: loaded,
      targetEnvs: new Set(targets.keys()),
      events,
      failing,
      periodic,
      org: org ? { plan: org.plan, ownerEmail: org.ownerEmail } : null,
      canEmail: this.#o.sender.canEmail,
      now,
    });
    for (const s of decided.skipped) this.#o.logger.info({ orgId, share: s.share }, s.reason);
    const notices: NoticeDelivery[] = decided.notices.flatMap(({ content, to }) =>
      (to === 'owner' ? [OWNER] : (targets.get(to.env) ?? [])).map((targetId) => ({
        id: newNoticeId(),
        orgId,
        targetId,
        type: content.type,
        body: JSON.stringify(content),
        createdAt: now,
      })),
    );
    const state = compact(decided.state, now, now - STREAKS_SINCE_MS);
    if (queued.length === 0 && notices.length === 0 && JSON.stringify(state) === JSON.stringify(loaded)) return; // nothing changed
    // Decided on `loaded`: the commit is refused if another worker committed since.
    await store.alerts.commitStep(
      orgId,
      queued.map((e) => e.id),
      { ...state, version: loaded.version + 1 },
      notices,
    );
  }

  /** The next page of the organization's failing endpoints, in turn (bounded per tick; the walk starts over at its end). */
  async #failingPage(orgId: OrgId, now: number): Promise<{ tenant: Tenant; endpointId: EndpointId; failingSince: number }[]> {
    const page = await this.#o.store.alerts.failingEndpoints(orgId, now - STREAKS_SINCE_MS, now, this.#failingCursors.get(orgId) ?? null, FAILING_PER_ORG);
    const last = page.at(-1);
    if (page.length < FAILING_PER_ORG || last === undefined) this.#failingCursors.delete(orgId);
    else this.#failingCursors.set(orgId, { failingSince: last.failingSince, endpointId: last.endpointId });
    return page;
  }

  /** What a notice says about an endpoint; null when it is gone. */
  async #describe(t: Tenant, endpointId: EndpointId, event: AlertEvent | null): Promise<NoticeEndpoint | null> {
    const { store } = this.#o;
    const endpoint = await store.endpoints.get(t, endpointId);
    if (!endpoint) return null;
    const consumer = await store.consumers.get(t, endpoint.consumerId);
    // The newest attempt that was a send among the endpoint's recent ones: one its transformation cancelled sent nothing.
    const attempt = event ? null : (await store.deliveries.recentAttempts(t, endpointId, RECENT_ATTEMPTS)).find((a) => !isCancelledAttempt(a));
    const last = event ?? { error: attempt?.error ?? null, responseStatus: attempt?.responseStatus ?? null, deliveryId: attempt?.deliveryId ?? null };
    const delivery = last.deliveryId ? await store.deliveries.get(t, last.deliveryId as DeliveryId) : null;
    return {
      env: t.env,
      endpointId,
      url: endpoint.url,
      consumerExternalId: consumer?.externalId ?? '',
      failingSince: endpoint.failingSince,
      lastError: last.error,
      lastStatus: last.responseStatus,
      deliveryId: last.deliveryId,
      messageId: delivery?.delivery.messageId ?? null,
    };
  }
}

export { OWNER } from './notice-outbox.ts';

/** The first `n` of `values`, without copying the rest. */
function firstOf<T>(values: Iterable<T>, n: number): T[] {
  const out: T[] = [];
  for (const v of values) {
    if (out.length >= n) break;
    out.push(v);
  }
  return out;
}
