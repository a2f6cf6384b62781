import { PENDING_RETRIES_COUNTED_UP_TO } from '@wirehook/core';
import { MAX_ALERT_TARGETS_PER_ENV } from '../../ports/alert-settings-port.ts';
import { COLLECTIONS } from '../connection.ts';
import { USAGE_OVER_PREFIX } from '../usage-counters.ts';
import { CLAIMED_BY_MAJORITY, definePlans, planSpec } from './plan.ts';

/** The named queries of the alerting engine's collections. */

// endpoints_failing_active holds active endpoints in a failure streak (failingSince a number):
// a window's range on failingSince states the `$type` beside it (the server proves none from a
// range: plan-check.ts), and each query says status 'active'.

/**
 * The most retrying deliveries retryingCount counts for an environment (a COUNT over index keys
 * stopped by this limit): one past the largest threshold, so that every threshold can be crossed;
 * a larger count reads as this many ("more than 10,000"). retryingCounts' walk over every
 * organization stops each count at its `min` instead.
 */
export const RETRYING_COUNT_CAP = PENDING_RETRIES_COUNTED_UP_TO;

const TARGETS = `the organization's targets (≤ MAX_ALERT_TARGETS_PER_ENV, ${MAX_ALERT_TARGETS_PER_ENV}, per environment; made before the cap, a handful each)`;
/** Usage-over marks read a page (liveMonthUsage): their counters' 8 shards each are read in one `$in` after it. */
export const USAGE_MARKS_PAGE = 500;
const BY_ID = '1: by _id';

/** The `_id` of an environment's alert conditions (the organization's own from before conditions were per environment is its org id). */
export function envConditionsId(orgId: string, env: string): string {
  return `${orgId}:${env}`;
}

export const ALERTS_PLANS = definePlans('alerts', {
  /**
   * An environment's conditions (`_id` `<org id>:<env>`) and the organization's from before they
   * were per environment (`_id` the org id), read together: the caller prefers the first.
   */
  conditions: planSpec({
    collection: COLLECTIONS.alertConditions,
    index: '_id_',
    examines: '≤ 2: by _id, the two ids named',
    maxExamined: () => 2,
    build: (orgId: string, env: string) => ({ filter: { _id: { $in: [envConditionsId(orgId, env), orgId] } } }),
    example: ['org_1', 'live'],
  }),
  /** An environment's conditions alone (`_id` `<org id>:<env>`): what a write sets. */
  envConditions: planSpec({
    collection: COLLECTIONS.alertConditions,
    index: '_id_',
    examines: BY_ID,
    maxExamined: () => 1,
    build: (orgId: string, env: string) => ({ filter: { _id: envConditionsId(orgId, env) } }),
    example: ['org_1', 'live'],
  }),
  /** An organization's throttle state (`_id` the org id). */
  state: planSpec({
    collection: COLLECTIONS.alertState,
    index: '_id_',
    examines: BY_ID,
    maxExamined: () => 1,
    build: (orgId: string) => ({ filter: { _id: orgId } }),
    example: ['org_1'],
  }),
  /** Organizations whose hour of notices has ended with endpoints waiting, earliest first. */
  statesDue: planSpec({
    collection: COLLECTIONS.alertState,
    index: 'alert_state_due',
    examines: '≤ limit: a range walk of alert_state_due (states with pending notices only) from its start',
    maxExamined: (n) => n + 1,
    build: (now: number) => ({ filter: { hasPending: true, windowEnd: { $lte: now } }, sort: { windowEnd: 1 } }),
    example: [1],
  }),

  /** The organization's live targets (those made before environments have none: live), oldest id first. */
  liveTargets: planSpec({
    collection: COLLECTIONS.alertTargets,
    index: 'alert_targets_org',
    examines: TARGETS,
    maxExamined: (n) => n + 10,
    residual: { env: "not test: the organization's test targets (a handful) are read and skipped; targets made before environments have no env and are live" },
    build: (orgId: string) => ({ filter: { orgId, env: { $ne: 'test' } }, sort: { _id: 1 } }),
    example: ['org_1'],
  }),
  /** The organization's test targets, oldest id first. */
  testTargets: planSpec({
    collection: COLLECTIONS.alertTargets,
    index: 'alert_targets_env',
    examines: `the environment's targets (≤ MAX_ALERT_TARGETS_PER_ENV, ${MAX_ALERT_TARGETS_PER_ENV}): its range of alert_targets_env`,
    maxExamined: (n) => n,
    build: (orgId: string) => ({ filter: { orgId, env: 'test' }, sort: { _id: 1 } }),
    example: ['org_1'],
  }),
  /** One target of the organization by id, whatever its environment. */
  target: planSpec({
    collection: COLLECTIONS.alertTargets,
    index: '_id_',
    examines: BY_ID,
    maxExamined: () => 1,
    residual: { orgId: 'the organization of a document found by its unique _id (a check)' },
    build: (orgId: string, id: string) => ({ filter: { orgId, _id: id } }),
    example: ['org_1', 'atg_1'],
  }),
  /** One target of the environment by id (its delete). */
  targetInEnv: planSpec({
    collection: COLLECTIONS.alertTargets,
    index: '_id_',
    examines: BY_ID,
    maxExamined: () => 1,
    residual: { orgId: 'the tenant of a document found by its unique _id (a check)', env: 'as orgId (live: not test)' },
    build: (orgId: string, env: 'live' | 'test', id: string) => ({ filter: { orgId, env: env === 'live' ? { $ne: 'test' } : env, _id: id } }),
    example: ['org_1', 'live', 'atg_1'],
  }),
  /** The sealing walk over target secrets: targets with a sealed secret, by id after a cursor. */
  sealedTargetsAfter: planSpec({
    collection: COLLECTIONS.alertTargets,
    index: 'alert_targets_sealed',
    examines: '≤ limit: alert_targets_sealed (targets with a secret only) from the cursor',
    maxExamined: (n) => n,
    build: (after: string | null) => ({
      // One shape for every page (the first one's cursor is ''): a bounded scan, never a whole-index one.
      filter: { _id: { $gt: after ?? '' }, sealedSecret: { $type: 'string' } },
      sort: { _id: 1 },
    }),
    example: ['atg_1'],
  }),
  /** A re-seal of one target's secret, conditional on the sealed value read. */
  sealedTarget: planSpec({
    collection: COLLECTIONS.alertTargets,
    index: '_id_',
    examines: BY_ID,
    maxExamined: () => 1,
    residual: { sealedSecret: 'the value the walk read: a compare-and-set on the one document _id found' },
    build: (id: string, sealed: string) => ({ filter: { _id: id, sealedSecret: sealed } }),
    example: ['atg_1', 'v1.x'],
  }),

  /** The first queued event of the next organization after a cursor: one seek of eventOrgs' walk. */
  nextEventOrg: planSpec({
    collection: COLLECTIONS.alertEvents,
    index: 'alert_events_org_seq',
    examines: '1: a seek to the first key after the cursor organization (its other events are skipped, not read)',
    maxExamined: () => 1,
    build: (afterOrgId: string) => ({ filter: { orgId: { $gt: afterOrgId } }, sort: { orgId: 1, seq: 1 } }),
    example: ['org_1'],
  }),
  /** The organization's oldest queued events. */
  events: planSpec({
    collection: COLLECTIONS.alertEvents,
    index: 'alert_events_org_seq',
    examines: "≤ limit (EVENTS_PER_ORG): the organization's range of alert_events_org_seq from its start",
    maxExamined: (n) => n,
    build: (orgId: string) => ({ filter: { orgId }, sort: { seq: 1 } }),
    example: ['org_1'],
  }),
  /** The events a step consumed, removed. */
  consumedEvents: planSpec({
    collection: COLLECTIONS.alertEvents,
    index: '_id_',
    examines: 'the ids given (≤ EVENTS_PER_ORG): point reads of the _id index',
    maxExamined: (n) => n,
    residual: { orgId: "the organization's: a condition on each document _id found" },
    build: (orgId: string, ids: readonly string[]) => ({ filter: { _id: { $in: [...ids] }, orgId } }),
    example: ['org_1', ['org_1:ep_1:failing']],
  }),

  /** The next organization after a cursor with an active endpoint whose streak began in the window: one seek of failingOrgs' walk. */
  nextFailingOrg: planSpec({
    collection: COLLECTIONS.endpoints,
    index: 'endpoints_failing_active',
    examines:
      '1 document, and ≤ 2 index keys per organization passed over (one whose active failing endpoints all began outside the window: ' +
      'the bounds skip its keys by seeks, no fetch): bounded by the organizations with an active failing endpoint, never by their endpoints',
    maxExamined: (n) => n,
    build: (afterOrgId: string, since: number, before: number) => ({
      filter: { orgId: { $gt: afterOrgId }, failingSince: { $type: 'number', $gte: since, $lte: before }, status: 'active' },
      sort: { orgId: 1, failingSince: 1, _id: 1 },
    }),
    example: ['org_1', 0, 1],
  }),
  /** The organization's active endpoints whose streak began in the window, oldest streak first, after a cursor. */
  failingOfOrg: planSpec({
    collection: COLLECTIONS.endpoints,
    index: 'endpoints_failing_active',
    examines: "≤ limit, plus the cursor's ties (endpoints of the organization whose streak began in the same millisecond, id at or before the cursor's)",
    maxExamined: (n) => n + 1,
    residual: { $or: "after the cursor: the bound on failingSince already starts at the cursor's, so only its millisecond's ties are read and skipped" },
    build: (orgId: string, since: number, before: number, after: { failingSince: number; endpointId: string } | null) => ({
      filter:
        after === null
          ? { orgId, failingSince: { $type: 'number', $gte: since, $lte: before }, status: 'active' }
          : {
              orgId,
              failingSince: { $type: 'number', $gte: Math.max(since, after.failingSince), $lte: before },
              status: 'active',
              $or: [{ failingSince: { $gt: after.failingSince } }, { _id: { $gt: after.endpointId } }],
            },
      sort: { failingSince: 1, _id: 1 },
    }),
    example: ['org_1', 0, 10, { failingSince: 5, endpointId: 'ep_1' }],
  }),

  /** A month's next organization after a cursor with a retrying delivery: one seek of retryingCounts' merged walk (covered). */
  nextRetryingOrg: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_retrying',
    examines:
      '1 index key: a seek past the cursor organization in one month (its retrying deliveries are skipped, not read); ' +
      'no document. The walk runs it once per organization and month holding one, plus once per month at its end',
    maxExamined: () => 0,
    // Index keys only: the entries it matched, and a seek or two at its ranges' ends.
    maxKeysExamined: (n) => n + 2,
    build: (afterOrgId: string) => ({ filter: { status: 'retrying', orgId: { $gt: afterOrgId } }, sort: { orgId: 1, env: 1 } }),
    example: ['org_1'],
  }),
  /**
   * An environment's retrying deliveries over the months holding its organization (covered):
   * counted up to retryingCounts' `min` (101) in its walk each minute, and up to
   * RETRYING_COUNT_CAP by retryingCount, for an environment the alerting engine may notify.
   */
  retryingOfEnv: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_retrying',
    examines:
      `≤ ${RETRYING_COUNT_CAP} index keys over all months (RETRYING_COUNT_CAP; the walk's \`min\`, 101: ` +
      `each month's count limited to what it leaves), and a seek per month; no document`,
    maxExamined: () => 0,
    // Index keys only: the entries it matched, and a seek or two at its ranges' ends.
    maxKeysExamined: (n) => n + 2,
    build: (orgId: string, env: string) => ({ filter: { status: 'retrying', orgId, env } }),
    example: ['org_1', 'live'],
  }),
  /**
   * A page of a month's usage-over marks (`usage-over:<YYYY-MM>:<org>`, usage-counters.ts) after
   * a cursor: a range of the _id index by prefix, one mark per organization whose live messages
   * of the month reached its plan's first usage threshold (or whose plan changed this month); once
   * per PERIODIC_MS, in pages of USAGE_MARKS_PAGE.
   */
  usageOverMarks: planSpec({
    collection: COLLECTIONS.counters,
    index: '_id_',
    examines:
      `≤ ${USAGE_MARKS_PAGE} index keys a page (USAGE_MARKS_PAGE; covered, no document): one per organization that reached its plan's first ` +
      'usage threshold this month or changed plan (marks stay to its end: the pages grow through a month), never every organization’s counters',
    // Covered (the _id alone projected): index keys only, and a seek past the range's end.
    maxExamined: () => 0,
    maxKeysExamined: (n) => n + 1,
    build: (month: string, afterId: string | null) => ({
      filter: { _id: { $gt: afterId ?? `${USAGE_OVER_PREFIX}${month}:`, $lt: `${USAGE_OVER_PREFIX}${month};` } },
      sort: { _id: 1 },
    }),
    example: ['2026-11', null],
  }),

  /** Whether any notice is due (the claim's first seek: with none, it walks nothing). */
  anyNoticeDue: planSpec({
    collection: COLLECTIONS.alertNotices,
    index: 'alert_notices_due',
    examines: '≤ 1: the first entry of alert_notices_due, if it is due',
    maxExamined: () => 1,
    build: (now: number) => ({ filter: { nextAttemptAt: { $type: 'number', $lte: now } }, sort: { nextAttemptAt: 1 } }),
    example: [1],
  }),
  /**
   * The next organization after a cursor with a due notice: one seek of the fair claim's walk
   * (a leased notice is due at its lease's end, so due means not leased).
   */
  nextNoticeOrg: planSpec({
    collection: COLLECTIONS.alertNotices,
    index: 'alert_notices_org_due',
    examines:
      '1 document, and ≤ 2 index keys per (organization, target) passed over (one whose notices are not due yet: ' +
      'the bound on nextAttemptAt skips its keys by seeks, no fetch): bounded by the targets with notices to come, never by their notices',
    maxExamined: (n) => n,
    build: (afterOrgId: string, now: number) => ({
      filter: { orgId: { $gt: afterOrgId }, nextAttemptAt: { $type: 'number', $lte: now } },
      sort: { orgId: 1, targetId: 1, nextAttemptAt: 1 },
    }),
    example: ['org_1', 1],
  }),
  /** A claim's `findOneAndUpdate` of the organization's next due notice of the first target after a cursor with one. */
  claimNoticeOfOrg: planSpec({
    collection: COLLECTIONS.alertNotices,
    index: 'alert_notices_org_due',
    examines:
      `1 document, and ≤ 2 index keys per target of the organization passed over (≤ 2 × ${MAX_ALERT_TARGETS_PER_ENV} targets and the owner's: ` +
      'MAX_ALERT_TARGETS_PER_ENV per environment)',
    maxExamined: (n) => n + 1,
    residual: {
      $or:
        'not leased: a notice an older replica leased (its lease without moving nextAttemptAt) is not claimed again until its lease ends; ' +
        'one document, the one the index gave',
    },
    // Rolled back in a failover, a claim would let a second sender send the notice too.
    writeConcern: CLAIMED_BY_MAJORITY,
    build: (orgId: string, afterTargetId: string, now: number) => ({
      filter: {
        orgId,
        targetId: { $gt: afterTargetId },
        nextAttemptAt: { $type: 'number', $lte: now },
        $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }],
      },
      sort: { targetId: 1, nextAttemptAt: 1 },
    }),
    example: ['org_1', 'atg_1', 1],
  }),
  /** A notice by id. */
  notice: planSpec({
    collection: COLLECTIONS.alertNotices,
    index: '_id_',
    examines: BY_ID,
    maxExamined: () => 1,
    build: (id: string) => ({ filter: { _id: id } }),
    example: ['ntc_1'],
  }),
  /** A notice while `claim` holds it (an attempt's record). */
  noticeOfClaim: planSpec({
    collection: COLLECTIONS.alertNotices,
    index: '_id_',
    examines: BY_ID,
    maxExamined: () => 1,
    residual: { claim: 'the claim holding the lease: a condition on the one document _id found' },
    build: (id: string, claim: string) => ({ filter: { _id: id, claim } }),
    example: ['ntc_1', 'claim-1'],
  }),
  /** A notice's try by its claim (`<notice id>:<claim>`): written once however often it is recorded. */
  noticeTry: planSpec({
    collection: COLLECTIONS.alertNoticeAttempts,
    index: '_id_',
    examines: BY_ID,
    maxExamined: () => 1,
    build: (id: string, claim: string) => ({ filter: { _id: `${id}:${claim}` } }),
    example: ['ntc_1', 'claim-1'],
  }),
  /** A target's latest notice attempts, newest first. */
  noticeAttempts: planSpec({
    collection: COLLECTIONS.alertNoticeAttempts,
    index: 'alert_notice_attempts_target',
    examines: "≤ limit: the target's range of alert_notice_attempts_target from its newest",
    maxExamined: (n) => n,
    build: (orgId: string, targetId: string) => ({ filter: { orgId, targetId }, sort: { at: -1 } }),
    example: ['org_1', 'atg_1'],
  }),
});
