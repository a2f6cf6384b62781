import {
  ConflictError,
  InvalidError,
  USAGE_NOTICE_FLOOR,
  type AlertConditions,
  type AlertTargetId,
  type EndpointId,
  type OrgId,
  type Tenant,
} from '@wirehook/core';
import {
  alertStateDue,
  readAlertState,
  targetCapMessage,
  type AlertEvent,
  type AlertSettingsRepo,
  type AlertState,
  type AlertTarget,
  type ClaimedNotice,
  type FailingCursor,
  type NoticeAttempt,
  type NoticeClaimFairness,
  type NoticeDelivery,
  type RetryingPage,
} from '../ports/alert-settings-port.ts';
import { NoticeTurns } from '../alert-notice-turns.ts';
import { isFailoverError } from './errors.ts';
import type { AlertTargetDoc } from './documents.ts';
import type { MongoConnection } from './connection.ts';
import { countAcrossMonths } from './endpoint-stats-repo.ts';
import type { Month } from './months.ts';
import { checkedLimit } from './query.ts';
import { ALERTS_PLANS as P, envConditionsId, RETRYING_COUNT_CAP, USAGE_MARKS_PAGE } from './plans/alerts.ts';
import { counterValues, usageOverMarkId } from './usage-counters.ts';

/**
 * Organizations eventOrgs looks at per call for each one it answers (one seek each on
 * alert_events_org_seq, in a row), from where the last call stopped: exact (oldest event first
 * over all of them) while at most this many times the limit have queued events; beyond, each
 * call orders that many in turn, so none starves — 200 seeks a tick of the worker's 100, not
 * 1,000 (an outage that queues events for every organization is when the tick must stay short).
 */
export const EVENT_ORGS_PEEK_PER_ORG = 2;

/**
 * Alert conditions in MongoDB, one document per environment of an organization (`_id` =
 * `<org id>:<env>`); an organization's document from before (`_id` = org id) stands for each
 * environment until that environment's is first written.
 */
export class MongoAlertSettingsRepo implements AlertSettingsRepo {
  readonly #conn: MongoConnection;
  /** Where eventOrgs' walk of the organizations with queued events goes on from ('' : the start). */
  #eventOrgsAfter = '';
  /** Whose turn it is in the outbox: the organization and, per organization, the target last served. */
  readonly #turns = new NoticeTurns();

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  async conditions(t: Tenant): Promise<AlertConditions | null> {
    // One read of at most 2 documents by _id: the environment's, and the organization's from
    // before conditions were per environment, which stands for an environment never written since.
    const q = P.conditions(t.orgId, t.env);
    const docs = await this.#conn.alertConditions.find(q.filter, q.options).limit(2).toArray();
    const doc = docs.find((d) => d._id === envConditionsId(t.orgId, t.env)) ?? docs.find((d) => d._id === t.orgId);
    return doc === undefined ? null : doc.conditions;
  }

  async setConditions(t: Tenant, conditions: AlertConditions, at: number): Promise<void> {
    // The environment's own document from now on; the organization's old one stays for the other environment.
    const q = P.envConditions(t.orgId, t.env);
    await this.#conn.alertConditions.updateOne(q.filter, { $set: { conditions, updatedAt: at } }, { ...q.options, upsert: true });
  }

  async createTarget(t: Tenant, target: Omit<AlertTarget, 'env'>, max?: number): Promise<AlertTarget> {
    if (max !== undefined) {
      // Counted on the environment's range of its index (≤ max keys); two creates at once may
      // both pass (one over the cap at most per concurrent request): the cap bounds work, not a bill.
      const q = t.env === 'live' ? P.liveTargets(t.orgId) : P.testTargets(t.orgId);
      const count = (
        await this.#conn.alertTargets
          .find(q.filter, { ...q.options, projection: { _id: 1 } })
          .limit(max)
          .toArray()
      ).length;
      if (count >= max) throw new InvalidError(targetCapMessage(t, count, max));
    }
    await this.#conn.alertTargets.insertOne({
      _id: target.id,
      orgId: t.orgId,
      env: t.env,
      type: target.type,
      url: target.url,
      address: target.address,
      sealedSecret: target.sealedSecret,
      createdAt: target.createdAt,
    });
    return { ...target, env: t.env };
  }

  async targets(t: Tenant): Promise<AlertTarget[]> {
    // Targets made before environments have none: they are live.
    const q = t.env === 'live' ? P.liveTargets(t.orgId) : P.testTargets(t.orgId);
    return (await this.#conn.alertTargets.find(q.filter, q.options).toArray()).map(toTarget);
  }

  async target(orgId: OrgId, id: AlertTargetId): Promise<AlertTarget | null> {
    const q = P.target(orgId, id);
    const doc = await this.#conn.alertTargets.findOne(q.filter, q.options);
    return doc === null ? null : toTarget(doc);
  }

  async deleteTarget(t: Tenant, id: AlertTargetId): Promise<boolean> {
    const q = P.targetInEnv(t.orgId, t.env, id);
    return (await this.#conn.alertTargets.deleteOne(q.filter, q.options)).deletedCount > 0;
  }

  async eventOrgs(limit: number): Promise<OrgId[]> {
    if (limit <= 0) return [];
    // Oldest first across organizations, by time: each numbers its own events, so an
    // organization's oldest is its first by seq. One seek per organization on
    // alert_events_org_seq reads its first event and skips the rest (never a scan of the
    // outbox), at most EVENT_ORGS_PEEK_PER_ORG × limit organizations a call from where the last one stopped.
    const peek = EVENT_ORGS_PEEK_PER_ORG * limit;
    const start = this.#eventOrgsAfter;
    const firsts: { orgId: string; at: number }[] = [];
    let cursor = start;
    let wrapped = start === '';
    while (firsts.length < peek) {
      const q = P.nextEventOrg(cursor);
      const doc = await this.#conn.alertEvents.findOne(q.filter, { ...q.options, projection: { _id: 0, orgId: 1, at: 1 } });
      if (doc === null) {
        if (wrapped) break;
        wrapped = true; // from the start again, up to where this call began
        cursor = '';
        continue;
      }
      if (wrapped && start !== '' && doc.orgId > start) break;
      firsts.push({ orgId: doc.orgId, at: doc.at });
      cursor = doc.orgId;
    }
    // The next call goes on after the last organization looked at when this one had to stop short.
    this.#eventOrgsAfter = firsts.length >= peek ? cursor : '';
    firsts.sort((a, b) => a.at - b.at || (a.orgId < b.orgId ? -1 : a.orgId > b.orgId ? 1 : 0));
    return firsts.slice(0, limit).map((f) => f.orgId as OrgId);
  }

  async events(orgId: OrgId, limit: number): Promise<AlertEvent[]> {
    if (limit <= 0) return [];
    const q = P.events(orgId);
    const docs = await this.#conn.alertEvents.find(q.filter, q.options).limit(limit).toArray();
    return docs.map((d) => ({
      id: d._id,
      tenant: { orgId: d.orgId as OrgId, env: d.env },
      kind: d.kind,
      endpointId: d.endpointId as EndpointId,
      at: d.at,
      error: d.error,
      responseStatus: d.responseStatus,
      deliveryId: d.deliveryId ?? null,
    }));
  }

  async failingOrgs(since: number, before: number, afterOrgId: OrgId | null, limit: number): Promise<OrgId[]> {
    // One seek per organization on endpoints_failing_active (active endpoints in a streak only,
    // by organization then streak start): each finds the next organization with one in the
    // window and nothing of its other endpoints is read; never a scan of the failing endpoints.
    const orgs: OrgId[] = [];
    let cursor: string = afterOrgId ?? '';
    while (orgs.length < limit) {
      const q = P.nextFailingOrg(cursor, since, before);
      const doc = await this.#conn.endpoints.findOne(q.filter, { ...q.options, projection: { _id: 0, orgId: 1 } });
      if (doc === null) break;
      cursor = doc.orgId;
      orgs.push(cursor as OrgId);
    }
    return orgs;
  }

  async failingEndpoints(
    orgId: OrgId,
    since: number,
    before: number,
    after: FailingCursor | null,
    limit: number,
  ): Promise<{ tenant: Tenant; endpointId: EndpointId; failingSince: number }[]> {
    if (limit <= 0) return [];
    const q = P.failingOfOrg(orgId, since, before, after);
    const docs = await this.#conn.endpoints
      .find(q.filter, { ...q.options, projection: { _id: 1, orgId: 1, env: 1, failingSince: 1 } })
      .limit(limit)
      .toArray();
    return docs.map((d) => ({ tenant: { orgId: d.orgId as OrgId, env: d.env }, endpointId: d._id as EndpointId, failingSince: d.failingSince! }));
  }

  async retryingCounts(min: number, after: OrgId | null, orgs: number): Promise<RetryingPage> {
    // Never a count of every retrying delivery: each month's organizations with one after `after`,
    // merged in order (one covered seek on deliveries_retrying per organization and month holding
    // one, and one per month at its end), then each environment's count over the months holding
    // the organization, stopped at `min`: whether it has that many, not how many (retryingCount
    // counts the few the alerting engine may notify further). A page is at most `orgs`
    // organizations: the whole walk in one call held the alerting engine's tick for about six
    // round trips an organization (helper 276: 20–60 s a minute at 10⁴ organizations). Examined a
    // page: ≤ months × (1 + orgs) seeks, and ≤ 2 × (min + months) index keys an organization; no
    // document. Counting each to RETRYING_COUNT_CAP here read up to 2 × 10,001 keys for every
    // organization with a backlog, every minute.
    checkedLimit(orgs, 'orgs');
    if (orgs === 0) throw new RangeError('a page of the retrying walk reads at least one organization');
    const counts: RetryingPage['counts'] = [];
    const cap = Math.max(1, Math.min(min, RETRYING_COUNT_CAP));
    const months = await this.#conn.months();
    // Each month's next organization with a retrying delivery (null: none left there).
    const heads = new Map<Month, string | null>(await Promise.all(months.map(async (m) => [m, await this.#nextRetryingOrg(m, after ?? '')] as const)));
    let last: string | null = null;
    for (let read = 0; read < orgs; read++) {
      const orgId = leastOf(heads.values());
      if (orgId === undefined) return { counts, next: null };
      last = orgId;
      const holding = months.filter((m) => heads.get(m) === orgId);
      // The months' next heads and both environments' counts, at once: one round trip's wait an organization, not six.
      const [, found] = await Promise.all([
        Promise.all(holding.map(async (m) => heads.set(m, await this.#nextRetryingOrg(m, orgId)))),
        Promise.all((['live', 'test'] as const).map(async (env) => ({ env, count: await this.#countRetrying(orgId, env, holding, cap) }))),
      ]);
      // At least `min`: the count stopped there (exact only below it, and those are left out).
      for (const { env, count } of found) if (count >= min && count > 0) counts.push({ tenant: { orgId: orgId as OrgId, env }, count, exact: false });
    }
    // The budget spent: the next page goes on after the last organization read (none left after it: the walk ended).
    return { counts, next: leastOf(heads.values()) === undefined ? null : (last as OrgId | null) };
  }

  async retryingCount(t: Tenant, upTo: number): Promise<number> {
    return this.#countRetrying(t.orgId, t.env, await this.#conn.months(), Math.max(0, Math.min(upTo, RETRYING_COUNT_CAP)));
  }

  /** An environment's retrying deliveries in `months`, counted up to `cap` (covered: index keys only). */
  async #countRetrying(orgId: string, env: Tenant['env'], months: readonly Month[], cap: number): Promise<number> {
    const q = P.retryingOfEnv(orgId, env);
    return countAcrossMonths(months, cap, (m, limit) => this.#conn.bucket(m).deliveries.countDocuments(q.filter, { ...q.options, limit }));
  }

  /** The first organization after `after` with a retrying delivery in `month` (one covered seek), or null. */
  async #nextRetryingOrg(month: Month, after: string): Promise<string | null> {
    const q = P.nextRetryingOrg(after);
    const doc = await this.#conn.bucket(month).deliveries.findOne(q.filter, { ...q.options, projection: { _id: 0, orgId: 1 } });
    return doc?.orgId ?? null;
  }

  async liveMonthUsage(month: string, now: number): Promise<{ orgId: OrgId; used: number }[]> {
    // Only the organizations a send marked over the floor this month (usage-counters.ts), a page
    // of marks at a time, then their counters (8 shards each, summed; a counter given back under
    // the floor since is left out): never every organization's counters.
    const used: { orgId: OrgId; used: number }[] = [];
    const prefix = usageOverMarkId(month, '');
    const liveKey = (org: string) => `live:${org}:${month}`;
    for (let after: string | null = null; ; ) {
      const q = P.usageOverMarks(month, after);
      const marks = await this.#conn.counters
        .find(q.filter, { ...q.options, projection: { _id: 1 } })
        .limit(USAGE_MARKS_PAGE)
        .toArray();
      const orgs = marks.map((m) => m._id.slice(prefix.length));
      const values = await counterValues(this.#conn, orgs.map(liveKey), now);
      for (const org of orgs) {
        const n = values[liveKey(org)] ?? 0;
        if (n >= USAGE_NOTICE_FLOOR) used.push({ orgId: org as OrgId, used: n });
      }
      if (marks.length < USAGE_MARKS_PAGE) return used;
      after = marks.at(-1)!._id;
    }
  }

  async statesDue(now: number, limit: number): Promise<OrgId[]> {
    if (limit <= 0) return [];
    const q = P.statesDue(now);
    const docs = await this.#conn.alertState
      .find(q.filter, { ...q.options, projection: { _id: 1 } })
      .limit(limit)
      .toArray();
    return docs.map((d) => d._id as OrgId);
  }

  async state(orgId: OrgId): Promise<AlertState | null> {
    const q = P.state(orgId);
    const doc = await this.#conn.alertState.findOne(q.filter, q.options);
    return doc === null ? null : readAlertState(doc.state);
  }

  async commitStep(orgId: OrgId, consumed: string[], state: AlertState, notices: NoticeDelivery[]): Promise<void> {
    await this.#conn.transaction(async (session) => {
      if (consumed.length > 0) {
        const q = P.consumedEvents(orgId, consumed);
        const { deletedCount } = await this.#conn.alertEvents.deleteMany(q.filter, { ...q.options, session });
        // An event's _id comes back once it is consumed (<org>:<endpoint>:<kind>): one another worker
        // consumed and a completion queued again would pass this count. The state's version below
        // is what refuses that step — every commitStep moves it, and the worker read it before the events.
        if (deletedCount !== consumed.length) throw new ConflictError('an alert event was consumed by another worker');
      }
      const own = P.state(orgId);
      const stored = await this.#conn.alertState.findOne(own.filter, { ...own.options, session });
      const storedVersion = stored?.state.version ?? 0;
      if (state.version !== storedVersion + 1) throw new ConflictError(`the alert state of ${orgId} moved on (version ${storedVersion})`);
      const due = alertStateDue(state);
      await this.#conn.alertState.updateOne(
        own.filter,
        { $set: { state, windowEnd: due.windowEnd, hasPending: due.hasPending } },
        { ...own.options, session, upsert: true },
      );
      if (notices.length > 0) {
        await this.#conn.alertNotices.insertMany(notices.map(noticeDoc), { session });
      }
    });
  }

  async queueNotice(n: NoticeDelivery): Promise<void> {
    await this.#conn.alertNotices.insertOne(noticeDoc(n));
  }

  async claimNotices(now: number, leaseUntil: number, claim: string, limit: number, fair?: NoticeClaimFairness): Promise<ClaimedNotice[]> {
    // Leased: nextAttemptAt moves to the lease's end, so a notice being sent is not due (and
    // is due again, for another claim, once its lease ran out).
    // Nothing due anywhere (the usual tick): one index key, no walk.
    const any = P.anyNoticeDue(now);
    if ((await this.#conn.alertNotices.findOne(any.filter, { ...any.options, projection: { _id: 1 } })) === null) return [];
    return this.#turns.claimAsync(limit, fair, {
      interrupts: isFailoverError,
      nextOrg: async (after) => {
        const q = P.nextNoticeOrg(after, now);
        return (await this.#conn.alertNotices.findOne(q.filter, { ...q.options, projection: { _id: 0, orgId: 1 } }))?.orgId ?? null;
      },
      takeOf: async (orgId, afterTarget) => {
        const q = P.claimNoticeOfOrg(orgId, afterTarget, now);
        const d = await this.#conn.alertNotices.findOneAndUpdate(
          q.filter,
          { $set: { nextAttemptAt: leaseUntil, leaseUntil, claim } },
          { ...q.options, returnDocument: 'after' },
        );
        if (d === null) return null;
        return {
          id: d._id,
          orgId: d.orgId as OrgId,
          targetId: d.targetId as AlertTargetId,
          type: d.type,
          body: d.body,
          createdAt: d.createdAt,
          attempts: d.attempts,
          claim,
        };
      },
    });
  }

  /** TTL indexes remove done notices and old tries here (alert-documents.ts): nothing to do. */
  async pruneNotices(): Promise<number> {
    return 0;
  }

  async recordNoticeAttempt(id: string, claim: string, attempt: NoticeAttempt, sent: boolean, next: number | null): Promise<void> {
    // One small transaction (a notice's try, not a delivery's): the notice moved on and its try
    // kept, or neither — so a failover between them never leaves a sent notice without its try.
    // Recorded again (the outbox asks again after an error whose outcome is unknown), the notice
    // is the claim's no more (its update matches nothing) and the try, by its claim's id, is
    // inserted once.
    await this.#conn.transaction(async (session) => {
      const byId = P.notice(id);
      const notice = await this.#conn.alertNotices.findOne(byId.filter, { ...byId.options, session, projection: { orgId: 1, targetId: 1, type: 1 } });
      if (notice === null) return;
      // Only the claim that holds the notice moves it on: one re-claimed after its lease ran out is the new holder's.
      // Done (no next attempt): doneAt, so the TTL index removes it NOTICES_KEPT_S after.
      const own = P.noticeOfClaim(id, claim);
      await this.#conn.alertNotices.updateOne(
        own.filter,
        {
          $inc: { attempts: 1 },
          $set: { nextAttemptAt: next, leaseUntil: null, claim: null, sent, ...(next === null ? { doneAt: new Date(attempt.at) } : {}) },
        },
        { ...own.options, session },
      );
      // atDate: the TTL index removes the try ATTEMPTS_KEPT_S after it was made.
      const tried = P.noticeTry(id, claim);
      await this.#conn.alertNoticeAttempts.updateOne(
        tried.filter,
        { $setOnInsert: { noticeId: id, orgId: notice.orgId, targetId: notice.targetId, type: notice.type, ...attempt, atDate: new Date(attempt.at) } },
        { ...tried.options, session, upsert: true },
      );
    });
  }

  async noticeAttempts(orgId: OrgId, targetId: AlertTargetId, limit: number): Promise<(NoticeAttempt & { noticeId: string; type: string })[]> {
    if (limit <= 0) return [];
    const q = P.noticeAttempts(orgId, targetId);
    const docs = await this.#conn.alertNoticeAttempts.find(q.filter, q.options).limit(limit).toArray();
    return docs.map((d) => ({ noticeId: d.noticeId, type: d.type, at: d.at, responseStatus: d.responseStatus, error: d.error, durationMs: d.durationMs }));
  }
}

function toTarget(d: AlertTargetDoc): AlertTarget {
  return {
    id: d._id as AlertTargetId,
    env: d.env ?? 'live',
    type: d.type,
    url: d.url,
    address: d.address,
    sealedSecret: d.sealedSecret,
    createdAt: d.createdAt,
  };
}

/** A notice as queued: due at its creation, untried, unclaimed. */
export function noticeDoc(n: NoticeDelivery) {
  return {
    _id: n.id,
    orgId: n.orgId,
    targetId: n.targetId,
    type: n.type,
    body: n.body,
    createdAt: n.createdAt,
    attempts: 0,
    nextAttemptAt: n.createdAt,
    leaseUntil: null,
    claim: null,
    sent: false,
  };
}

/** The least of `ids` that is not null (the next organization of a merged walk), or undefined. */
function leastOf(ids: Iterable<string | null>): string | undefined {
  let least: string | undefined;
  for (const id of ids) if (id !== null && (least === undefined || id < least)) least = id;
  return least;
}
