import { COLLECTIONS } from '../connection.ts';
import { dueWhere } from '../indexes.ts';
import { CLAIMED_BY_MAJORITY, definePlans, planSpec, RELEASED_BY_PRIMARY, tenantById } from './plan.ts';

// Recoveries (recovery-repo.ts): the recovery documents, and the deliveries a recovery counts,
// walks and re-queues. The deliveries' plans are sent to a month's collection (deliveries_YYYYMM),
// once for each month they read.

type T = { orgId: string; env: string };
const T_EX = { orgId: 'org_1', env: 'live' as const };
const TENANT = 'orgId and env: the tenant of a document found by its unique _id (a check, never a widening)';
const TENANT_OF_ENDPOINT = "orgId and env: an endpoint id is one tenant's, so are its deliveries (a check, never a widening)";
/** The recovery workers that may hold a lease at once: one recovery each (a worker drives one at a time). */
const LIVE_LEASES = 'live leases: one per recovery worker, each driving one recovery at a time';

export const RECOVERIES_PLANS = definePlans('recoveries', {
  /** The endpoint of a start or a step, in its tenant (its status). */
  endpoint: tenantById(COLLECTIONS.endpoints, 'ep_1'),
  /** The endpoint's running recovery (at most one: the unique partial index). */
  running: planSpec({
    collection: COLLECTIONS.recoveries,
    index: 'recoveries_one_running',
    examines: '1: a unique key of the partial index',
    maxExamined: () => 1,
    build: (endpointId: string) => ({ filter: { endpointId, status: 'running' } }),
    example: ['ep_1'],
  }),
  /** The endpoint's running recovery, in its tenant: a stop's. */
  runningOfTenant: planSpec({
    collection: COLLECTIONS.recoveries,
    index: 'recoveries_one_running',
    examines: '1: a unique key of the partial index',
    maxExamined: () => 1,
    residual: { orgId: TENANT_OF_ENDPOINT, env: TENANT_OF_ENDPOINT },
    build: (t: T, endpointId: string) => ({ filter: { orgId: t.orgId, env: t.env, endpointId, status: 'running' } }),
    example: [T_EX, 'ep_1'],
  }),
  /** A recovery of the endpoint by id. */
  byId: planSpec({
    collection: COLLECTIONS.recoveries,
    index: 'recoveries_endpoint',
    examines: '1: every key of recoveries_endpoint is equal (the id is unique)',
    maxExamined: () => 1,
    build: (t: T, endpointId: string, id: string) => ({ filter: { orgId: t.orgId, env: t.env, endpointId, _id: id } }),
    example: [T_EX, 'ep_1', 'rcv_1'],
  }),
  /** The endpoint's latest recovery. */
  latest: planSpec({
    collection: COLLECTIONS.recoveries,
    index: 'recoveries_endpoint',
    examines: "1 (findOne): the first key of the endpoint's range of recoveries_endpoint, newest first",
    maxExamined: (n) => n,
    build: (t: T, endpointId: string) => ({ filter: { orgId: t.orgId, env: t.env, endpointId }, sort: { _id: -1 } }),
    example: [T_EX, 'ep_1'],
  }),
  /** The oldest running recovery whose lease is free or expired: a worker's claim. */
  claimable: planSpec({
    collection: COLLECTIONS.recoveries,
    index: 'recoveries_running_id',
    examines:
      `≤ 1 + ${LIVE_LEASES}: running recoveries in id order (the partial index holds running ones only, ≤ one per endpoint), ` +
      'passing those leased and live',
    maxExamined: (n) => n + 16,
    residual: { $or: `lease free or expired: tested on running recoveries in id order, passing at most the ${LIVE_LEASES}` },
    // Rolled back in a failover, a claim would let two workers step one recovery (at twice its pace).
    writeConcern: CLAIMED_BY_MAJORITY,
    build: (now: number) => ({
      filter: { status: 'running', $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }] },
      sort: { _id: 1 },
    }),
    example: [1],
  }),
  /** Running recoveries with a lease: an embedded start frees them all. */
  leased: planSpec({
    collection: COLLECTIONS.recoveries,
    index: 'recoveries_running_id',
    examines: 'the running recoveries (the partial index; ≤ one per endpoint; only running ones hold a lease): once, at an embedded start',
    maxExamined: (n) => n + 16,
    residual: { leaseUntil: 'leased: tested on the running recoveries, once at an embedded start' },
    build: () => ({ filter: { status: 'running', leaseUntil: { $ne: null } } }),
    example: [],
  }),
  /** A recovery by id (its own writes). */
  recovery: planSpec({
    collection: COLLECTIONS.recoveries,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    build: (id: string) => ({ filter: { _id: id } }),
    example: ['rcv_1'],
  }),
  /** A recovery by id while `leaseToken` is its lease (running, for a step). */
  leasedBy: planSpec({
    collection: COLLECTIONS.recoveries,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { leaseToken: "the fence: the lease is still the worker's", status: 'running: a test of the one document _id found' },
    build: (id: string, leaseToken: number, running: boolean) => ({ filter: running ? { _id: id, leaseToken, status: 'running' } : { _id: id, leaseToken } }),
    example: ['rcv_1', 1, true],
  }),
  /** A worker's lease given back (at its stop), by the primary alone: one lost in a failover runs out instead; never waits on a majority. */
  release: planSpec({
    collection: COLLECTIONS.recoveries,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { leaseToken: "the fence: the lease is still the worker's" },
    writeConcern: RELEASED_BY_PRIMARY,
    build: (id: string, leaseToken: number) => ({ filter: { _id: id, leaseToken } }),
    example: ['rcv_1', 1],
  }),
  /**
   * A start's targets counted: the endpoint's failed deliveries created at or after `since`, in
   * each month from `since`'s to the newest, summed. Run before the start's transaction, not in
   * it (a snapshot held open over the count).
   */
  targetsCount: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_endpoint_failed',
    examines:
      '≤ 100,000 index keys (TARGETS_COUNT_CAP over all months, each count limited to what is left) and no document: ' +
      "the endpoint's failed deliveries since `since`, + a seek or two a month. Once per start, an operator's action, outside any transaction",
    maxExamined: () => 0,
    // Index keys only: the entries it matched, and a seek or two at its ranges' ends.
    maxKeysExamined: (n) => n + 2,
    build: (endpointId: string, since: number) => ({ filter: { endpointId, status: 'failed', createdAt: { $gte: since } } }),
    example: ['ep_1', 1],
  }),
  /**
   * The endpoint's due deliveries, counted up to the bound: a step waits while there are that
   * many. Month by month, newest first, each with the limit the bound leaves, stopped at it.
   */
  outstanding: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_endpoint_due_queue',
    examines:
      '≤ maxOutstanding index keys over all months, + a seek or two a month (a COUNT_SCAN a month with the limit left, no document fetched): ' +
      "the endpoint's range of each month's due index up to now",
    maxExamined: () => 0,
    // Index keys only: the entries it matched, and a seek or two at its ranges' ends.
    maxKeysExamined: (n) => n + 2,
    build: (endpointId: string, now: number) => ({ filter: { ...dueWhere({ $lte: now }), endpointId } }),
    example: ['ep_1', 1],
  }),
  /**
   * A step's next targets after its cursor, oldest first, up to its start (+ START_SKEW_MS):
   * month by month from the cursor's (or `since`'s) to the start's, each with the limit left.
   */
  targets: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_endpoint_failed',
    examines:
      "≤ batch (the limit, shared by the months read) + the endpoint's failed deliveries of the cursor's one millisecond (in its month only) + a " +
      "seek a month: a range walk of the endpoint's failed deliveries from the cursor",
    maxExamined: (n) => n + 1,
    residual: {
      $or: "after the cursor (createdAt, _id): the range starts at the cursor's millisecond, so it passes only that millisecond's targets already met",
      orgId: TENANT_OF_ENDPOINT,
      env: TENANT_OF_ENDPOINT,
    },
    build: (t: T, endpointId: string, from: number, upTo: number, cursorAt: number, cursorId: string) => ({
      filter: {
        endpointId,
        status: 'failed',
        createdAt: { $gte: from, $lte: upTo },
        $or: [{ createdAt: { $gt: cursorAt } }, { createdAt: cursorAt, _id: { $gt: cursorId } }],
        orgId: t.orgId,
        env: t.env,
      },
      sort: { createdAt: 1, _id: 1 },
    }),
    example: [T_EX, 'ep_1', 1, 2, 1, 'dlv_1'],
  }),
  /** The step's targets by id, still failed: re-queued, one month's at a time. */
  requeue: planSpec({
    collection: COLLECTIONS.deliveries,
    index: '_id_',
    examines: "the ids given (one month's of ≤ batch): point reads of the month's _id index",
    maxExamined: (n) => n,
    residual: { orgId: TENANT, env: TENANT, status: 'still failed: tested on each document an id found' },
    build: (t: T, ids: readonly string[]) => ({ filter: { orgId: t.orgId, env: t.env, _id: { $in: [...ids] }, status: 'failed' } }),
    example: [T_EX, ['dlv_1', 'dlv_2']],
  }),
});
