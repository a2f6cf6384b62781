import { COLLECTIONS } from '../connection.ts';
import { DUE, dueWhere, OPEN } from '../indexes.ts';
import { CLAIMED_BY_MAJORITY, COMPLETED_BY_MAJORITY, definePlans, planSpec, RELEASED_BY_PRIMARY, SERVER_NOW_MS, tenantById } from './plan.ts';

// The dispatcher's queries: the due queue (delivery-claim.ts, due-queue.ts), claims, releases,
// completions (delivery-complete.ts) and the delivery repo's reads (delivery-repo.ts).

const T = { orgId: 'org_1', env: 'live' as const };
const TENANT = 'orgId and env: the tenant of a document found by its unique _id (a check, never a widening)';
const TENANT_OF_DELIVERY = "orgId and env: the tenant of the delivery's attempts (a check on the documents the range fetches, never a widening)";

export const DELIVERIES_PLANS = definePlans('deliveries', {
  /** One endpoint's entries in the due index at exactly its Retry-After hold's end: what the hold put off (endpoint-put-off.ts). */
  putOffByHold: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_endpoint_due_queue',
    // The batch: a request's 100 (REQUEST_WALK_BATCH), the walk's 1,000.
    // The limit: 5 × the batch over all months and, in a walk's batch, over all its hold ends; leased ones included.
    examines: "≤ limit: one endpoint's entries at one dueAt, a one-point range of its due index a month",
    maxExamined: (n) => n + 1,
    // dueWhere: the partial filter's `$type` repeated beside the bound, as every due-index query does.
    build: (endpointId: string, heldUntil: number) => ({ filter: { ...dueWhere({ $gte: heldUntil, $lte: heldUntil }), endpointId } }),
    example: ['ep_1', 1],
  }),
  /** One endpoint's pending entries due after `now`: what a rate limit spaced out (endpoint-put-off.ts). */
  putOffPending: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_endpoint_due_queue',
    examines: "≤ limit (5 × PUT_OFF_BATCH over all months, leased ones included): one endpoint's pending range of its due index after `now`",
    maxExamined: (n) => n + 1,
    build: (endpointId: string, now: number) => ({ filter: { ...dueWhere({ $gt: now }), status: 'pending', endpointId }, sort: { dueAt: 1, _id: 1 } }),
    example: ['ep_1', 1],
  }),
  /** Deliveries by id (a batch just read in one month), to update them. */
  deliveriesById: planSpec({
    collection: COLLECTIONS.deliveries,
    index: '_id_',
    examines: 'the ids given (≤ PUT_OFF_BATCH): point reads of the _id index',
    maxExamined: (n) => n,
    build: (ids: readonly string[]) => ({ filter: { _id: { $in: [...ids] } } }),
    example: [['dlv_1']],
  }),
  /** Completions whose message was not told their result (a process died after the commit): the repair's page, oldest first. */
  messageStale: planSpec({
    primary: true,
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_message_stale',
    examines: '≤ limit: the partial index holds only deliveries flagged between a commit and their message’s update (normally none)',
    maxExamined: (n) => n,
    build: () => ({ filter: { messageStale: true }, sort: { _id: 1 } }),
    example: [],
  }),
  /** One delivery's flag cleared once its message has its result — unless a later completion flagged it again. */
  messageSettled: planSpec({
    collection: COLLECTIONS.deliveries,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: {
      orgId: TENANT,
      env: TENANT,
      messageStale: 'the one document _id found',
      attemptCount: 'the one document _id found: a later completion (a higher count) keeps its flag',
    },
    // The tenant too: sharded by orgId, an update without it would go to every shard (one a completion).
    build: (t: { orgId: string; env: string }, id: string, attemptCount: number) => ({
      filter: { orgId: t.orgId, env: t.env, _id: id, messageStale: true, attemptCount },
    }),
    example: [T, 'dlv_1', 1],
  }),
  /** A month's head of the due queue: the healer's peek, the metrics' oldest due (each run once per month). */
  dueHead: planSpec({
    primary: true,
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_due_queue',
    examines:
      "≤ limit per month: a range walk of the month's due index from its start, " +
      'stopped by the limit (leased deliveries are past `now` by their key); run on each month kept (≤ RETENTION_MONTHS + 1): ' +
      "the healer's peek ≤ months × STRANDED_PEEK, the metrics' oldest one seek per month",
    maxExamined: (n) => n + 1,
    // The keys walked: two status ranges merged by dueAt (a SORT_MERGE), each at most what is
    // returned and one past it (the limit's) or past its range's end.
    maxKeysExamined: (n) => 2 * n + 2,
    build: (now: number) => ({ filter: dueWhere({ $lte: now }), sort: { dueAt: 1, _id: 1 } }),
    example: [1],
  }),
  /**
   * Deliveries due now store-wide, counted by index keys up to a cap (the metrics' queue depth):
   * apart from dueHead so that the profiler and the plan check tell the count from the finds.
   */
  dueCount: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_due_queue',
    examines:
      "≤ BACKLOG_COUNT_CAP index keys over all months (each month's count limited to what the cap leaves, newest month first; " +
      'covered: held, laneWait, status and dueAt are keys, the `$type` a bound), two status ranges a month; no documents',
    maxExamined: () => 0,
    // Index keys only: the entries it matched, and a seek or two at each of its two ranges' ends.
    maxKeysExamined: (n) => n + 4,
    build: (now: number) => ({ filter: dueWhere({ $lte: now }) }),
    example: [1],
  }),
  /** One endpoint's first entries in the due queue, due or not: a page of its due work and its next due time. */
  dueOfEndpoint: planSpec({
    primary: true,
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_endpoint_due_queue',
    examines: "≤ limit (perEndpoint + 1): one endpoint's range of the due index from its start",
    maxExamined: (n) => n + 1,
    build: (endpointId: string) => ({ filter: { ...DUE, endpointId }, sort: { dueAt: 1, _id: 1 } }),
    example: ['ep_1'],
  }),
  /** The healer's walk: the first entry of the next endpoint with open work after `after`, in id order. */
  nextEndpointWithWork: planSpec({
    primary: true,
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_endpoint_due_queue',
    examines: '1: a seek past `after` in deliveries_endpoint_due_queue (every entry satisfies DUE: the partial filter)',
    maxExamined: () => 1,
    build: (after: string) => ({
      filter: { ...DUE, endpointId: { $gt: after } },
      sort: { endpointId: 1, held: 1, laneWait: 1, status: 1, dueAt: 1, _id: 1 },
    }),
    example: ['ep_1'],
  }),
  /** The due queue's tenant level: tenants whose earliest due time has come, oldest first. */
  dueTenants: planSpec({
    primary: true,
    collection: COLLECTIONS.dueTenants,
    index: 'due_tenants_due',
    examines: '≤ limit (DUE_TENANTS_PAGE): a range walk of due_tenants_due after the previous page; one document per tenant',
    maxExamined: (n) => n + 1,
    build: (now: number, after: number = Number.MIN_SAFE_INTEGER) => ({ filter: { dueAt: { $gt: after, $lte: now } }, sort: { dueAt: 1, _id: 1 } }),
    example: [2, 1],
  }),
  /** The rest of a page's last bound: tenants with the same bound after the last one read. */
  dueTenantsTied: planSpec({
    primary: true,
    collection: COLLECTIONS.dueTenants,
    index: 'due_tenants_due',
    examines: "≤ limit: one bound's range of due_tenants_due after an _id",
    maxExamined: (n) => n + 1,
    build: (dueAt: number, after: string) => ({ filter: { dueAt, _id: { $gt: after } }, sort: { _id: 1 } }),
    example: [1, 'org_1/live'],
  }),
  /** A tenant's bound by id: `$min` a due time into it (upsert), take it from the value a sweep read, or move it back. */
  dueTenant: planSpec({
    collection: COLLECTIONS.dueTenants,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { dueAt: 'the value the sweep read or set: a compare-and-set on the one document _id found' },
    build: (tenant: string, from?: number) => ({ filter: from === undefined ? { _id: tenant } : { _id: tenant, dueAt: from } }),
    example: ['org_1/live', 1],
  }),
  /** One tenant's endpoints whose bound has come (due by `now`), oldest first: a batch of a sweep, or (limit 1, `now` DUE_NEVER) its first. */
  tenantDueEndpoints: planSpec({
    primary: true,
    collection: COLLECTIONS.dueEndpoints,
    index: 'due_endpoints_tenant',
    examines: "≤ limit (a tenant's batch, ≤ DUE_ENDPOINTS_PAGE; 1 for its first): one tenant's range of due_endpoints_tenant after the previous batch",
    maxExamined: (n) => n + 1,
    build: (t: { orgId: string; env: string }, now: number, after: number = Number.MIN_SAFE_INTEGER) => ({
      filter: { orgId: t.orgId, env: t.env, dueAt: { $gt: after, $lte: now } },
      sort: { dueAt: 1, _id: 1 },
    }),
    example: [T, 2, 1],
  }),
  /** The rest of a tenant's batch's last bound: its endpoints with the same bound after the last one read. */
  tenantDueEndpointsTied: planSpec({
    primary: true,
    collection: COLLECTIONS.dueEndpoints,
    index: 'due_endpoints_tenant',
    examines: "≤ limit: one tenant's one bound's range of due_endpoints_tenant after an _id",
    maxExamined: (n) => n + 1,
    build: (t: { orgId: string; env: string }, dueAt: number, after: string) => ({
      filter: { orgId: t.orgId, env: t.env, dueAt, _id: { $gt: after } },
      sort: { _id: 1 },
    }),
    example: [T, 1, '202612:ep_1'],
  }),
  /** The due queue's entries past the last one read, by _id, for their tenants' bounds: the healer's walk, layout 5's backfill. */
  dueEntriesAfter: planSpec({
    primary: true,
    collection: COLLECTIONS.dueEndpoints,
    index: '_id_',
    examines: "≤ limit (the healer's HEAL_ENTRIES, the upgrade's UPGRADE_BATCH): a walk of _id past the last entry read (an endpoint and month each)",
    maxExamined: (n) => n + 1,
    build: (after: string) => ({ filter: { _id: { $gt: after } }, sort: { _id: 1 } }),
    example: ['202612:ep_1'],
  }),
  /** An endpoint's queue entry by id: `$min` a due time into it (upsert), or raise it from the value a sweep read. */
  dueEndpoint: planSpec({
    collection: COLLECTIONS.dueEndpoints,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: {
      dueAt: 'the value the sweep read: a compare-and-set on the one document _id found',
      seq: "the sweeps' writes counted when it was read (null: none yet, the field absent): a check on the one document _id found",
    },
    build: (endpointId: string, from?: number, seq?: number | null) => ({
      filter:
        from === undefined
          ? { _id: endpointId }
          : seq === undefined
            ? { _id: endpointId, dueAt: from }
            : { _id: endpointId, dueAt: from, seq: seq === null ? { $exists: false } : seq },
    }),
    example: ['ep_1', 1, 2],
  }),
  /** An endpoint whose failure streak begins now (its failingSince still null). */
  streakStart: planSpec({
    collection: COLLECTIONS.endpoints,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { orgId: TENANT, env: TENANT, failingSince: 'no streak yet: two first failures race, one writes' },
    build: (t: { orgId: string; env: string }, id: string) => ({ filter: { orgId: t.orgId, env: t.env, _id: id, failingSince: null } }),
    example: [T, 'ep_1'],
  }),
  /**
   * An endpoint whose failure streak ends now (a success's: before a plain completion's delivery, or in a completion's
   * transaction): cleared where it began at or before the success. Outside a transaction its caller gives the write
   * concern (a commit's majority and 10 s), which a transaction's operation may not carry.
   */
  streakEnd: planSpec({
    collection: COLLECTIONS.endpoints,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { orgId: TENANT, env: TENANT, failingSince: 'a streak begun at or before the success: of two successes racing, one writes' },
    build: (t: { orgId: string; env: string }, id: string, at: number) => ({
      filter: { orgId: t.orgId, env: t.env, _id: id, failingSince: { $lte: at } },
    }),
    example: [T, 'ep_1', 1],
  }),
  /**
   * An endpoint's failure streak begun again, in the transaction of a completion that would have disabled it, after a
   * success the streak guard found among its newest attempts or rollups (streak-guard.ts): where the streak is still the
   * one the guard read for (before the transaction or in it), which the transaction's snapshot shows too.
   */
  streakRestart: planSpec({
    collection: COLLECTIONS.endpoints,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { orgId: TENANT, env: TENANT, failingSince: 'the streak the guard read for, as the snapshot shows it (a compare-and-set)' },
    build: (t: { orgId: string; env: string }, id: string, since: number) => ({ filter: { orgId: t.orgId, env: t.env, _id: id, failingSince: since } }),
    example: [T, 'ep_1', 1],
  }),
  /**
   * An attempt written again in a completion's transaction when its first insert was not confirmed by a
   * majority (delivery-complete.ts): `$setOnInsert`, upserted — a no-op where that insert stood.
   */
  attemptById: planSpec({
    collection: COLLECTIONS.attempts,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    build: (id: string) => ({ filter: { _id: id } }),
    example: ['att_1'],
  }),
  /** A completion's endpoint, its status and streak, read before its write (outside any transaction): on the primary. */
  endpointAtCompletion: { ...tenantById(COLLECTIONS.endpoints, 'ep_1'), primary: true },
  /** The status of a sweep's endpoints, in one read. */
  endpointStatuses: planSpec({
    primary: true,
    collection: COLLECTIONS.endpoints,
    index: '_id_',
    examines: 'the ids asked (≤ DUE_ENDPOINTS_PAGE): point reads of the _id index',
    maxExamined: (n) => n,
    build: (ids: readonly string[]) => ({ filter: { _id: { $in: [...ids] } } }),
    example: [['ep_1', 'ep_2']],
  }),
  /** A claim's conditional update: takes the lease when the delivery is due and free. */
  claim: planSpec({
    collection: COLLECTIONS.deliveries,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: {
      status: 'open: the state the claim requires of the one document',
      held: "not held (a paused endpoint's)",
      laneWait: "not waiting behind its lane's head",
      dueAt: 'due, and not leased (a lease moves dueAt to its end)',
    },
    // A claim acknowledged by the primary alone and rolled back in a failover leaves the
    // delivery due again while its first holder sends: a second dispatcher claims it and the
    // endpoint gets it twice. Taken from a majority, a claim outlives the failover. A majority
    // that does not answer within 5 s fails the claim (nothing is sent; the delivery is due again
    // at its lease's end). That bounds the wait for replication, not the whole answer (the pool's
    // queue, an election): the dispatcher sends no job whose claim came back too late for its
    // send to end within the lease (DeliveryLeases).
    writeConcern: CLAIMED_BY_MAJORITY,
    build: (id: string, now: number) => ({ filter: { _id: id, ...dueWhere({ $lte: now }) } }),
    example: ['dlv_1', 1],
  }),
  /** The endpoint of a claim, active, in its tenant. */
  activeEndpoint: planSpec({
    collection: COLLECTIONS.endpoints,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { orgId: TENANT, env: TENANT, status: 'active: the claim takes no delivery of a paused endpoint' },
    build: (t: { orgId: string; env: string }, id: string) => ({ filter: { orgId: t.orgId, env: t.env, _id: id, status: 'active' } }),
    example: [T, 'ep_1'],
  }),
  /** A delivery of the tenant by id (an endpoint's or a message's: ENDPOINTS_PLANS.byId, MESSAGES_PLANS.byId; plan-collections.test.ts). */
  byId: tenantById(COLLECTIONS.deliveries, 'dlv_1'),
  /** A claim's own delivery while its lease token is current and it is open: release, complete. */
  current: planSpec({
    collection: COLLECTIONS.deliveries,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { orgId: TENANT, env: TENANT, leaseToken: 'the fence: the claim is still current', status: 'open' },
    build: (t: { orgId: string; env: string }, id: string, leaseToken: number) => ({
      filter: { orgId: t.orgId, env: t.env, _id: id, leaseToken, ...OPEN },
    }),
    example: [T, 'dlv_1', 1],
  }),
  /**
   * A plain completion's delivery (delivery-complete.ts, completeAlone): `current`'s, and unordered — an
   * ordered one's end hands its lane over, in the transaction. Written outside a transaction.
   */
  currentUnordered: planSpec({
    collection: COLLECTIONS.deliveries,
    writeConcern: COMPLETED_BY_MAJORITY,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: {
      orgId: TENANT,
      env: TENANT,
      leaseToken: 'the fence: the claim is still current',
      status: 'open',
      orderingKey: 'unordered (null or absent): no lane to hand over',
    },
    build: (t: { orgId: string; env: string }, id: string, leaseToken: number) => ({
      filter: { orgId: t.orgId, env: t.env, _id: id, leaseToken, ...OPEN, orderingKey: null },
    }),
    example: [T, 'dlv_1', 1],
  }),
  /**
   * A sole dispatcher's start: the due index's entries from `from` on within the horizon, in due
   * order, leases or not (a lease's dueAt is its end). Not filtered by leaseUntil: as a residual
   * that walked past every retry scheduled in the window to fill a batch with leases; the
   * release's update by ids (byIds) is what picks the leased among them.
   */
  leased: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_due_queue',
    examines:
      "≤ RELEASE_ALL_BATCH (1,000) a batch, the find's limit: in due order after the previous batch, within the horizon " +
      '(RELEASE_ALL_HORIZON_MS), leases ending then and retries scheduled then alike; ≤ RELEASE_ALL_BATCHES (100) batches per ' +
      "month, each month's due index walked in turn (a batch starts at the last one's millisecond: its entries there, up to " +
      'a batch, are read again). At the start of a sole dispatcher only (releaseLeasesAtStart)',
    maxExamined: (n) => n + 1,
    // The two statuses' ranges merged by dueAt (as dueHead's): a key or two more at each range's end.
    maxKeysExamined: (n) => 2 * n + 2,
    build: (horizon: number, from: number) => ({
      filter: dueWhere({ $gte: from, $lte: horizon }),
      sort: { dueAt: 1, _id: 1 },
    }),
    example: [2, 1],
  }),
  /** The endpoints among `ids` with a walk still to run (the healer leaves their bounds alone). */
  walksOf: planSpec({
    primary: true,
    collection: COLLECTIONS.endpointWalks,
    index: '_id_',
    examines: 'the ids given (≤ STRANDED_PEEK): point reads of the _id index',
    maxExamined: (n) => n,
    build: (ids: readonly string[]) => ({ filter: { _id: { $in: [...ids] } } }),
    example: [['ep_1']],
  }),
  /** Deliveries by id (a few, read just before): releaseAll's update, in their month's collection. */
  byIds: planSpec({
    collection: COLLECTIONS.deliveries,
    index: '_id_',
    examines: "the ids given (≤ RELEASE_ALL_BATCH, one month's): point reads of the _id index",
    maxExamined: (n) => n,
    residual: { leaseUntil: 'still leased (a check on each document found by _id)' },
    build: (ids: readonly string[], now: number) => ({ filter: { _id: { $in: [...ids] }, leaseUntil: { $gt: now } } }),
    example: [['dlv_1'], 1],
  }),
  /** Where the healer's two walks go on, shared by every dispatcher (heal-cursors.ts): both documents read at a healing's start. */
  healCursors: planSpec({
    primary: true,
    collection: COLLECTIONS.meta,
    index: '_id_',
    examines: '2: by _id (one a walk)',
    maxExamined: () => 2,
    build: (ids: readonly string[]) => ({ filter: { _id: { $in: [...ids] } } }),
    example: [['heal:due', 'heal:tenants']],
  }),
  /** A walk's position moved on from the one its healing read: a compare-and-set, made by an upsert when none was written yet. */
  healCursorMove: planSpec({
    collection: COLLECTIONS.meta,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { cursor: "the position the healing read ('': none, or the field absent): a condition on the one document _id found" },
    // The primary's acknowledgement alone: rolled back in a failover, a stretch of the walk is walked again.
    writeConcern: RELEASED_BY_PRIMARY,
    build: (id: string, from: string) => ({ filter: { _id: id, cursor: from === '' ? { $in: ['', null] } : from } }),
    example: ['heal:due', '202612:ep_1'],
  }),
  /** The shared backlog count in `meta` (backlog-read.ts): read at a scrape, its age by the server's clock. */
  backlogSnapshot: planSpec({
    collection: COLLECTIONS.meta,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    build: () => ({ filter: { _id: 'backlog' } }),
    example: [],
  }),
  /** The shared count written, unless one of a later take (a higher `seq`) was written first. */
  backlogSnapshotWrite: planSpec({
    collection: COLLECTIONS.meta,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { $expr: 'of an earlier take: a condition on the one document _id found' },
    // The primary's acknowledgement alone: lost in a failover, the next count (15 s on) replaces it.
    writeConcern: RELEASED_BY_PRIMARY,
    build: (seq: number) => ({ filter: { _id: 'backlog', $expr: { $lt: [{ $ifNull: ['$seq', 0] }, seq] } } }),
    example: [1],
  }),
  /**
   * The count's lease taken once it has run out, by the server's clock: by any process, its last
   * holder too, so one whose counts keep failing holds it no longer than the others.
   */
  backlogCountLease: planSpec({
    collection: COLLECTIONS.jobLeases,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { $expr: "run out (but for `slackMs`), by the server's clock: a condition on the one document _id found" },
    // The primary's acknowledgement alone: a take rolled back in a failover lets a second process count once, which costs a count.
    writeConcern: RELEASED_BY_PRIMARY,
    build: (slackMs: number) => ({ filter: { _id: 'backlog-count', $expr: { $lte: ['$leaseUntil', { $add: [SERVER_NOW_MS, slackMs] }] } } }),
    example: [1_000],
  }),
  /** The count's lease given up by its holder (its count failed): another may count at its next try. */
  backlogCountRelease: planSpec({
    collection: COLLECTIONS.jobLeases,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { holder: 'the holder: a condition on the one document _id found', seq: 'its take: a condition on the same document' },
    writeConcern: RELEASED_BY_PRIMARY,
    build: (holder: string, seq: number) => ({ filter: { _id: 'backlog-count', holder, seq } }),
    example: ['host-1', 1],
  }),
  /** The count's lease's takes numbered on from the shared count's (a lease made again behind it: backlog-read.ts). */
  backlogCountLeaseRaise: planSpec({
    collection: COLLECTIONS.jobLeases,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    writeConcern: RELEASED_BY_PRIMARY,
    build: () => ({ filter: { _id: 'backlog-count' } }),
    example: [],
  }),
  /** The count's lease by id: whether it exists (a take that matched nothing). */
  backlogCountLeaseById: planSpec({
    collection: COLLECTIONS.jobLeases,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    build: () => ({ filter: { _id: 'backlog-count' } }),
    example: [],
  }),
  /** The endpoint's retrying deliveries, counted up to ENDPOINT_COUNT_CAP (the endpoint's page, a request). */
  retryingOfEndpoint: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_endpoint_status',
    examines:
      "≤ ENDPOINT_COUNT_CAP (10,000) index keys over all months (each month's count limited to what the cap leaves, newest month first; " +
      "covered: every filter field is a key), and a seek per month: the endpoint's retrying deliveries",
    maxExamined: () => 0,
    // Index keys only: the entries it matched, and a seek or two at its ranges' ends.
    maxKeysExamined: (n) => n + 2,
    build: (t: { orgId: string; env: string }, endpointId: string) => ({ filter: { orgId: t.orgId, env: t.env, endpointId, status: 'retrying' } }),
    example: [T, 'ep_1'],
  }),
  /** Retrying deliveries store-wide, counted by index keys up to a cap (the metrics). */
  retrying: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_retrying',
    examines:
      '≤ BACKLOG_COUNT_CAP index keys over all months (a COUNT_SCAN per month, limited to what the cap leaves, newest month first), ' +
      'and a seek per month; no documents',
    maxExamined: () => 0,
    // Index keys only: the entries it matched, and a seek or two at its ranges' ends.
    maxKeysExamined: (n) => n + 2,
    build: () => ({ filter: { status: 'retrying' } }),
    example: [],
  }),
  /** An endpoint's queued alert event of a kind, into which a repeat collapses (a completion's). */
  queuedAlertEvent: planSpec({
    collection: COLLECTIONS.alertEvents,
    index: 'alert_events_endpoint',
    examines: '≤ 1: one entry per endpoint and kind is queued at most',
    maxExamined: () => 1,
    build: (endpointId: string, kind: string) => ({ filter: { endpointId, kind } }),
    example: ['ep_1', 'failing'],
  }),
  /**
   * One delivery's newest attempts, newest first (a page, never its whole history), in its
   * month's collection (an attempt is in its delivery's): the delivery's range of
   * attempts_delivery walked from its end, stopped by the limit (≤ DELIVERY_ATTEMPTS_SHOWN + 1
   * or a page's MAX_PAGE_SIZE + 1).
   */
  attemptsOfDelivery: planSpec({
    collection: COLLECTIONS.attempts,
    index: 'attempts_delivery',
    examines: "≤ limit: the delivery's range of attempts_delivery from its newest",
    maxExamined: (n) => n + 1,
    residual: { orgId: TENANT_OF_DELIVERY, env: TENANT_OF_DELIVERY },
    build: (t: { orgId: string; env: string }, deliveryId: string) => ({
      filter: { orgId: t.orgId, env: t.env, deliveryId },
      sort: { at: -1, _id: -1 },
    }),
    example: [T, 'dlv_1'],
  }),
  /**
   * A page of one delivery's attempts after a cursor's attempt (at `at`), newest first: the
   * delivery's range of attempts_delivery from `at` down; the adapter skips the cursor's own
   * millisecond's attempts at or after its id.
   */
  attemptsOfDeliveryBefore: planSpec({
    collection: COLLECTIONS.attempts,
    index: 'attempts_delivery',
    examines: "≤ limit + the delivery's attempts in the cursor's millisecond (one or two): a range of attempts_delivery from `at` down",
    maxExamined: (n) => n + 2,
    residual: { orgId: TENANT_OF_DELIVERY, env: TENANT_OF_DELIVERY },
    build: (t: { orgId: string; env: string }, deliveryId: string, at: number) => ({
      filter: { orgId: t.orgId, env: t.env, deliveryId, at: { $lte: at } },
      sort: { at: -1, _id: -1 },
    }),
    example: [T, 'dlv_1', 1],
  }),
  /** A cursor's attempt, by id, of the delivery it must belong to: where the next page starts. */
  attemptOfDelivery: planSpec({
    collection: COLLECTIONS.attempts,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { orgId: TENANT, env: TENANT, deliveryId: 'the one document _id found: a cursor of another delivery is refused' },
    build: (t: { orgId: string; env: string }, deliveryId: string, id: string) => ({ filter: { orgId: t.orgId, env: t.env, _id: id, deliveryId } }),
    example: [T, 'dlv_1', 'att_1'],
  }),
  /**
   * An endpoint's newest attempts since its failure streak began, before a completion disables it (streak-guard.ts): run
   * on every month kept (an attempt is in its delivery's month), with a limit, newest first — the months at once on the
   * primary before the disabling's transaction, or one after another in it. Only on a disabling (at most once an endpoint
   * a 5-day streak, and a transaction's rerun that finds the streak moved).
   */
  attemptsInStreak: planSpec({
    primary: true,
    collection: COLLECTIONS.attempts,
    index: 'attempts_endpoint',
    examines:
      "≤ limit (STREAK_CHECKED_ATTEMPTS, 64) per month, so ≤ 64 × months (≤ RETENTION_MONTHS + 1): each month's range of " +
      'attempts_endpoint for the endpoint since its streak’s start, from its newest',
    maxExamined: (n) => n,
    build: (t: { orgId: string; env: string }, endpointId: string, after: number) => ({
      filter: { orgId: t.orgId, env: t.env, endpointId, at: { $gt: after } },
      sort: { at: -1, _id: -1 },
    }),
    example: [T, 'ep_1', 0],
  }),
  /** The endpoint's latest attempts, newest first: run on every month kept and merged (an attempt is in its delivery's month). */
  recentAttempts: planSpec({
    collection: COLLECTIONS.attempts,
    index: 'attempts_endpoint',
    examines:
      '≤ limit (≤ RECENT_ATTEMPTS, 20) per month, so ≤ limit × months (≤ RETENTION_MONTHS + 1): ' +
      "each month's range of attempts_endpoint for the endpoint from its newest, merged (an older month's delivery may have the newest attempt)",
    maxExamined: (n) => n,
    build: (t: { orgId: string; env: string }, endpointId: string) => ({
      filter: { orgId: t.orgId, env: t.env, endpointId },
      sort: { at: -1, _id: -1 },
    }),
    example: [T, 'ep_1'],
  }),
});
