import { ENDPOINT_WALK_BATCH, ENDPOINTS_PAGE_SIZE, MAX_ENDPOINTS_PER_CONSUMER } from '@wirehook/core';
import { COLLECTIONS } from '../connection.ts';
import { DUE, OPEN } from '../indexes.ts';
import { definePlans, planSpec, tenantById } from './plan.ts';

/** The named queries of endpoints, endpoint walks, stranded repairs and endpoint stats (rollups). */

const T = { orgId: 'org_1', env: 'live' as const };
type TenantArg = { orgId: string; env: string };
const TENANT = 'orgId and env: the tenant of a document found by its unique _id (a check, never a widening)';

/**
 * The most endpoints one `endpoints.list` call returns (a consumer's are capped at
 * MAX_ENDPOINTS_PER_CONSUMER by create): the API's largest page and the one more it asks for to
 * tell whether another page follows.
 */
export const ENDPOINTS_LIST_CAP = ENDPOINTS_PAGE_SIZE + 1;
/**
 * The most deliveries a count of one endpoint's reads, on a request (a COUNT over index keys,
 * stopped by this limit): endpointStats.pending (its open ones) and the endpoint page's
 * `retrying_count`. An endpoint with more reads as this many ("at least").
 */
export const ENDPOINT_COUNT_CAP = 10_000;

export const ENDPOINTS_PLANS = definePlans('endpoints', {
  /** An endpoint of the tenant by id: get, hold, update, delete, rotate, secrets, a walk's or a repair's read. */
  byId: tenantById(COLLECTIONS.endpoints, 'ep_1'),
  /** A page of the tenant's endpoints by id after a cursor ('' for the first; endpoints.list without a consumer), at most ENDPOINTS_LIST_CAP. */
  ofTenant: planSpec({
    collection: COLLECTIONS.endpoints,
    index: 'endpoints_tenant',
    examines: `≤ the page's limit, at most ${ENDPOINTS_LIST_CAP} (ENDPOINTS_LIST_CAP): the tenant's range of endpoints_tenant in id order after the cursor`,
    maxExamined: (n) => n,
    build: (t: TenantArg, afterId: string) => ({ filter: { orgId: t.orgId, env: t.env, _id: { $gt: afterId } }, sort: { _id: 1 } }),
    example: [T, ''],
  }),
  /** One consumer's endpoints by id (endpoints.list with a consumer). */
  ofConsumer: planSpec({
    collection: COLLECTIONS.endpoints,
    index: 'endpoints_tenant_consumer',
    examines:
      `≤ ${MAX_ENDPOINTS_PER_CONSUMER} (a consumer's endpoints are capped at create; ` +
      `the find's limit holds it too): the consumer's range of endpoints_tenant_consumer`,
    maxExamined: (n) => n,
    build: (t: TenantArg, consumerId: string, afterId: string) => ({
      filter: { orgId: t.orgId, env: t.env, consumerId, _id: { $gt: afterId } },
      sort: { _id: 1 },
    }),
    example: [T, 'con_1', ''],
  }),
  /** The sealing walk over endpoint secrets: a page of endpoints by id after a cursor. */
  byIdAfter: planSpec({
    collection: COLLECTIONS.endpoints,
    index: '_id_',
    examines: '≤ limit: the _id index from the cursor, stopped by the page',
    maxExamined: (n) => n,
    build: (after: string | null) => ({ filter: after === null ? {} : { _id: { $gt: after } }, sort: { _id: 1 } }),
    example: ['ep_1'],
  }),
  /** Every tenant's listener endpoints by id after a cursor (the listener janitor's page; covered). */
  listenersAfter: planSpec({
    collection: COLLECTIONS.endpoints,
    index: 'endpoints_listeners',
    examines:
      '≤ limit index keys: endpoints_listeners (partial: type listen) from the cursor, stopped by the page; ' +
      'no document (covered: _id, orgId, env), never an http endpoint',
    maxExamined: () => 0,
    maxKeysExamined: (n) => n + 1,
    build: (after: string | null) => ({ filter: { type: 'listen', _id: { $gt: after ?? '' } }, sort: { _id: 1 } }),
    example: ['ep_1'],
  }),
  /** The sealing walk over endpoint headers: a page of the endpoints that have headers, by id after a cursor. */
  headersAfter: planSpec({
    collection: COLLECTIONS.endpoints,
    index: 'endpoints_headers',
    examines:
      '≤ limit: endpoints_headers (partial: endpoints with headers only) from the cursor, stopped by the page; ' +
      'each key read fetches its endpoint for the sealed text, never an endpoint without headers',
    maxExamined: (n) => n,
    maxKeysExamined: (n) => n + 1,
    build: (after: string | null) => ({
      // One shape for every page (the first one's cursor is ''): a bounded scan, never a whole-index one.
      filter: { _id: { $gt: after ?? '' }, 'headers.sealed': { $type: 'string' } },
      sort: { _id: 1 },
    }),
    example: ['ep_1'],
  }),
  /** A re-seal of one endpoint's headers, conditional on the sealed value read. */
  sealedHeaders: planSpec({
    collection: COLLECTIONS.endpoints,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { 'headers.sealed': 'the value the walk read: a compare-and-set on the one document _id found' },
    build: (id: string, sealed: string) => ({ filter: { _id: id, 'headers.sealed': sealed } }),
    example: ['ep_1', 'v1.x'],
  }),
  /** The sealing walk over endpoints' client certificate keys: a page of the endpoints that have one, by id after a cursor. */
  tlsKeysAfter: planSpec({
    collection: COLLECTIONS.endpoints,
    index: 'endpoints_tls',
    examines:
      '≤ limit: endpoints_tls (partial: endpoints with a client certificate only) from the cursor, stopped by the page; ' +
      'each key read fetches its endpoint for the sealed key, never an endpoint without a certificate',
    maxExamined: (n) => n,
    maxKeysExamined: (n) => n + 1,
    build: (after: string | null) => ({
      // One shape for every page (the first one's cursor is ''): a bounded scan, never a whole-index one.
      filter: { _id: { $gt: after ?? '' }, 'tls.sealedKey': { $type: 'string' } },
      sort: { _id: 1 },
    }),
    example: ['ep_1'],
  }),
  /** A re-seal of one endpoint's client certificate key, conditional on the sealed value read. */
  sealedTlsKey: planSpec({
    collection: COLLECTIONS.endpoints,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { 'tls.sealedKey': 'the value the walk read: a compare-and-set on the one document _id found' },
    build: (id: string, sealed: string) => ({ filter: { _id: id, 'tls.sealedKey': sealed } }),
    example: ['ep_1', 'v1.x'],
  }),
  /** The sealing walk over endpoints' OAuth client secrets: a page of the endpoints that have credentials, by id after a cursor. */
  authSecretsAfter: planSpec({
    collection: COLLECTIONS.endpoints,
    index: 'endpoints_auth',
    examines:
      '≤ limit: endpoints_auth (partial: endpoints with OAuth client credentials only) from the cursor, stopped by the page; ' +
      'each key read fetches its endpoint for the sealed secret, never an endpoint without credentials',
    maxExamined: (n) => n,
    maxKeysExamined: (n) => n + 1,
    build: (after: string | null) => ({
      filter: { _id: { $gt: after ?? '' }, 'auth.sealedSecret': { $type: 'string' } },
      sort: { _id: 1 },
    }),
    example: ['ep_1'],
  }),
  /** A re-seal of one endpoint's OAuth client secret, conditional on the sealed value read. */
  sealedAuthSecret: planSpec({
    collection: COLLECTIONS.endpoints,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { 'auth.sealedSecret': 'the value the walk read: a compare-and-set on the one document _id found' },
    build: (id: string, sealed: string) => ({ filter: { _id: id, 'auth.sealedSecret': sealed } }),
    example: ['ep_1', 'v1.x'],
  }),
  /**
   * The certificate-expiry notices' walk, its first part after a cursor: the certificates expiring
   * in the cursor's own millisecond with a later id (certificates are whole seconds, and one is
   * often shared by many endpoints: ties are routine, so they are a seek of their own, never re-read).
   */
  certificatesExpiringTies: planSpec({
    collection: COLLECTIONS.endpoints,
    index: 'endpoints_tls_expiry',
    examines: "≤ limit index keys: endpoints_tls_expiry at the cursor's notAfter from its id; no document (covered: _id, orgId, env)",
    maxExamined: () => 0,
    maxKeysExamined: (n) => n + 1,
    build: (notAfter: number, afterId: string) => ({
      // The partial filter's `$type` stated beside the equality: the server proves none from it.
      filter: { 'tls.info.notAfter': { $type: 'number', $eq: notAfter }, _id: { $gt: afterId } },
      sort: { _id: 1 },
    }),
    example: [5, 'ep_1'],
  }),
  /**
   * The walk's range: certificates whose notAfter is in [from, to), by (notAfter, id) — after a
   * cursor, `from` is the millisecond after the cursor's (its ties were read by the plan above).
   */
  certificatesExpiringFrom: planSpec({
    collection: COLLECTIONS.endpoints,
    index: 'endpoints_tls_expiry',
    examines: '≤ limit index keys: endpoints_tls_expiry over [from, to), stopped by the page; no document (covered), never one outside the window',
    maxExamined: () => 0,
    maxKeysExamined: (n) => n + 1,
    build: (from: number, to: number) => ({
      // $type repeated from the partial filter: the range alone does not imply it to the planner.
      filter: { 'tls.info.notAfter': { $gte: from, $lt: to, $type: 'number' } },
      sort: { 'tls.info.notAfter': 1, _id: 1 },
    }),
    example: [0, 10],
  }),
  /**
   * One certificate-expiry notice's list: the tenant's endpoints whose client certificate's
   * notAfter is in [from, to), by (notAfter, id), the first `limit`.
   */
  certificatesExpiringOf: planSpec({
    collection: COLLECTIONS.endpoints,
    index: 'endpoints_tls_tenant_expiry',
    examines:
      '≤ limit: endpoints_tls_tenant_expiry (partial: endpoints with a client certificate) over the tenant and [from, to), ' +
      'stopped by the limit; never another tenant’s, an endpoint without a certificate or one expiring outside the window',
    maxExamined: (n) => n,
    maxKeysExamined: (n) => n + 1,
    build: (t: { orgId: string; env: string }, from: number, to: number) => ({
      filter: { orgId: t.orgId, env: t.env, 'tls.info.notAfter': { $gte: from, $lt: to }, 'tls.sealedKey': { $type: 'string' } },
      sort: { 'tls.info.notAfter': 1, _id: 1 },
    }),
    example: [{ orgId: 'org_1', env: 'live' }, 0, 10],
  }),
  /** A re-seal of one endpoint secret, conditional on the sealed value read. */
  sealedSecret: planSpec({
    collection: COLLECTIONS.endpoints,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { 'secrets.sealed': 'the value the walk read: a compare-and-set on the one document _id found' },
    build: (id: string, sealed: string) => ({ filter: { _id: id, 'secrets.sealed': sealed } }),
    example: ['ep_1', 'v1.x'],
  }),

  /** An endpoint's walk document by id (endpoint_walks is keyed by endpoint). */
  walk: planSpec({
    collection: COLLECTIONS.endpointWalks,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    build: (endpointId: string) => ({ filter: { _id: endpointId } }),
    example: ['ep_1'],
  }),
  /** A walk with a fail to do (endFailAt bounds it). */
  walkFailing: planSpec({
    collection: COLLECTIONS.endpointWalks,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { failBefore: 'a fail is recorded: a condition on the one document _id found' },
    build: (endpointId: string) => ({ filter: { _id: endpointId, failBefore: { $ne: null } } }),
    example: ['ep_1'],
  }),
  /** A walk holding its endpoint's deliveries (dropHold forgets it). */
  walkHolding: planSpec({
    collection: COLLECTIONS.endpointWalks,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { hold: 'a hold is recorded: a condition on the one document _id found' },
    build: (endpointId: string) => ({ filter: { _id: endpointId, hold: 'hold' } }),
    example: ['ep_1'],
  }),
  /** A walk letting go of its endpoint's lanes (an endpoint ordering again ends that part: keepLanes). */
  walkUnlaning: planSpec({
    collection: COLLECTIONS.endpointWalks,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { unlane: 'lanes are being let go of: a condition on the one document _id found' },
    build: (endpointId: string) => ({ filter: { _id: endpointId, unlane: true } }),
    example: ['ep_1'],
  }),
  /** A walk with nothing left to do: removed. */
  walkDone: planSpec({
    collection: COLLECTIONS.endpointWalks,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: {
      hold: 'nothing left: a condition on the one document _id found',
      failBefore: 'as hold',
      putOffUntil: 'as hold (null or absent)',
      putOffMore: "not an array: null or absent (a `null` would also match an array holding a null, a hand's edit with an end beside it)",
      unlane: 'as putOffUntil',
    },
    build: (endpointId: string) => ({
      filter: { _id: endpointId, hold: null, failBefore: null, putOffUntil: null, putOffMore: { $not: { $type: 'array' } }, unlane: null },
    }),
    example: ['ep_1'],
  }),
  /** Endpoints with a walk left, in id order after a cursor (walkEndpoints' round robin). */
  walksAfter: planSpec({
    collection: COLLECTIONS.endpointWalks,
    index: '_id_',
    examines: '≤ limit: the _id index from the cursor; endpoint_walks holds only walks still to do',
    maxExamined: (n) => n,
    build: (after: string) => ({ filter: { _id: { $gt: after } }, sort: { _id: 1 } }),
    example: ['ep_1'],
  }),

  /** An endpoint's recheck by id (held-recheck.ts): scheduled by a resume or delete (an upsert). */
  recheck: planSpec({
    collection: COLLECTIONS.endpointRechecks,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    build: (endpointId: string) => ({ filter: { _id: endpointId } }),
    example: ['ep_1'],
  }),
  /** A recheck as a page read it, removed as its walk is recorded (a later schedule moved `at` on: left for then). */
  recheckAsRead: planSpec({
    collection: COLLECTIONS.endpointRechecks,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { at: 'the value the page read: a compare-and-set on the one document _id found' },
    build: (endpointId: string, at: number) => ({ filter: { _id: endpointId, at } }),
    example: ['ep_1', 1],
  }),
  /** The rechecks whose time has come, soonest first (walkEndpoints, at most once a second a process). */
  rechecksDue: planSpec({
    collection: COLLECTIONS.endpointRechecks,
    index: 'endpoint_rechecks_at',
    examines: '≤ limit (RECHECKS_PAGE): the front of endpoint_rechecks_at up to now; each one read is removed as it starts',
    maxExamined: (n) => n,
    build: (now: number) => ({ filter: { at: { $lte: now } }, sort: { at: 1, _id: 1 } }),
    example: [1],
  }),

  /**
   * A fail walk's batch, one month's range from the month it has reached on (acrossMonths): the
   * endpoint's open deliveries created before the bound, oldest first.
   */
  failBatch: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_endpoint_open_created',
    examines:
      `≤ what the batch (${ENDPOINT_WALK_BATCH}) has left, in one month: the endpoint's open range before the bound, from its start; ` +
      'each batch fails what it read, which leaves this partial index, and reads the next month for the rest (acrossMonths)',
    maxExamined: (n) => n + 1,
    build: (t: TenantArg, endpointId: string, before: number) => ({
      filter: { orgId: t.orgId, env: t.env, endpointId, ...OPEN, createdAt: { $lt: before } },
      sort: { createdAt: 1 },
    }),
    example: [T, 'ep_1', 1],
  }),
  /**
   * A hold walk's batch, one month's range from the month it has reached on (acrossMonths): the
   * endpoint's deliveries in the due index (open, not held, not waiting in a lane).
   */
  holdBatch: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_endpoint_due_queue',
    examines:
      `≤ what the batch (${ENDPOINT_WALK_BATCH}) has left, in one month: the endpoint's range of the month's due index from its start; ` +
      'each batch holds what it read, which leaves the index, and reads the next month for the rest (acrossMonths)',
    maxExamined: (n) => n + 1,
    build: (endpointId: string) => ({ filter: { ...DUE, endpointId } }),
    example: ['ep_1'],
  }),
  /** A release walk's batch, one month's range from the month it has reached on (acrossMonths): its held deliveries. */
  releaseBatch: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_endpoint_held',
    examines:
      `≤ what the batch (${ENDPOINT_WALK_BATCH}) has left, in one month: the endpoint's range of the month's deliveries_endpoint_held from its start; ` +
      'each batch releases or fails what it read, which leaves the index, and reads the next month for the rest (acrossMonths)',
    maxExamined: (n) => n + 1,
    build: (endpointId: string) => ({ filter: { endpointId, ...OPEN, held: true }, sort: { _id: 1 } }),
    example: ['ep_1'],
  }),
  /** The deliveries a batch read, written by id in the month it read them from. */
  deliveriesByIds: planSpec({
    collection: COLLECTIONS.deliveries,
    index: '_id_',
    examines: "the ids given (≤ a batch or a peek, of one month): point reads of the month's _id index",
    maxExamined: (n) => n,
    build: (ids: readonly string[]) => ({ filter: { _id: { $in: [...ids] } } }),
    example: [['dlv_1', 'dlv_2']],
  }),
  /** Stranded deliveries a peek found, still due and free: a repair's hold or fail (stranded.ts). */
  stranded: planSpec({
    collection: COLLECTIONS.deliveries,
    index: '_id_',
    examines: 'the ids given (≤ STRANDED_PEEK): point reads of the _id index',
    maxExamined: (n) => n,
    residual: {
      orgId: TENANT,
      env: TENANT,
      status: 'open: a condition on each document an id found',
      held: 'not held yet',
      $or: 'not leased at `now` (a claim in flight finishes first)',
    },
    build: (t: TenantArg, ids: readonly string[], now: number) => ({
      filter: { orgId: t.orgId, env: t.env, _id: { $in: [...ids] }, ...OPEN, held: false, $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }] },
    }),
    example: [T, ['dlv_1'], 1],
  }),

  /** The endpoint's open deliveries, counted up to ENDPOINT_COUNT_CAP (endpointStats.pending). */
  openCount: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_endpoint_status',
    examines: `≤ ${ENDPOINT_COUNT_CAP} index keys (ENDPOINT_COUNT_CAP, the count's limit; no document: the count is covered), two status ranges of an endpoint`,
    maxExamined: () => 0,
    // Index keys only: the entries it matched, and a seek or two at its ranges' ends.
    maxKeysExamined: (n) => n + 2,
    build: (t: TenantArg, endpointId: string) => ({ filter: { orgId: t.orgId, env: t.env, endpointId, ...OPEN } }),
    example: [T, 'ep_1'],
  }),
  /** The endpoint's oldest open delivery (endpointStats.pending's oldestAt). */
  oldestOpen: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_endpoint_open_created',
    examines: "1: the first entry of the endpoint's range of deliveries_endpoint_open_created",
    maxExamined: () => 1,
    build: (t: TenantArg, endpointId: string) => ({ filter: { orgId: t.orgId, env: t.env, endpointId, ...OPEN }, sort: { createdAt: 1 } }),
    example: [T, 'ep_1'],
  }),

  /** The endpoint's rollups of a grain in a window, oldest first. */
  rollups: planSpec({
    collection: COLLECTIONS.endpointRollups,
    index: 'endpoint_rollups_endpoint',
    examines:
      '≤ (to − from) / grain + 1, and never more than the grain keeps (289 five-minute, 193 hourly rollups: ROLLUP_RETENTION_MS / grain + 1): ' +
      "the endpoint's range of the grain",
    maxExamined: (n) => n,
    residual: { orgId: 'the tenant of the endpoint: every rollup of an endpoint has its tenant (a check, never a widening)', env: 'as orgId' },
    build: (t: TenantArg, endpointId: string, grainMs: number, from: number, to: number) => ({
      filter: { endpointId, grainMs, at: { $gte: from, $lt: to }, orgId: t.orgId, env: t.env },
      sort: { at: 1 },
    }),
    example: [T, 'ep_1', 300_000, 0, 86_400_000],
  }),
  /**
   * The endpoint's newest rollup of a grain that counted a success, its bucket start in [from, through]: before a
   * completion disables the endpoint, a success older than the newest attempts the streak guard read (streak-window.ts).
   * Only on a disabling whose newest 64 attempts hold no success, two grains (on the primary, or in the transaction).
   */
  newestSucceededRollup: planSpec({
    primary: true,
    collection: COLLECTIONS.endpointRollups,
    index: 'endpoint_rollups_endpoint',
    examines:
      "≤ (through − from) / grain + 1: the endpoint's range of the grain from its newest, stopped at the first with a success " +
      '(each grain read only where its retention keeps it, ROLLUP_RETENTION_MS / grain + 1, however late the job that prunes ' +
      'them: five-minute ≤ 289, hourly ≤ 193 — streak-window.ts)',
    maxExamined: () => 289,
    residual: {
      succeeded: 'each bucket of the range, walked newest first until one counted a success (absent: none counted)',
      orgId: 'the tenant of the endpoint: every rollup of an endpoint has its tenant (a check, never a widening)',
      env: 'as orgId',
    },
    build: (t: TenantArg, endpointId: string, grainMs: number, from: number, through: number) => ({
      filter: { endpointId, grainMs, at: { $gte: from, $lte: through }, succeeded: { $gt: 0 }, orgId: t.orgId, env: t.env },
      sort: { at: -1 },
    }),
    example: [T, 'ep_1', 3_600_000, 0, 86_400_000],
  }),
  /** A rollup by id: the flush's `$inc` upsert (endpoint-stats-repo.ts). */
  rollupById: planSpec({
    collection: COLLECTIONS.endpointRollups,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    build: (id: string) => ({ filter: { _id: id } }),
    example: ['ep_1:300000:0'],
  }),
  /** Expired rollups, oldest first: the retention job's batch. */
  rollupsExpired: planSpec({
    collection: COLLECTIONS.endpointRollups,
    index: 'endpoint_rollups_expires',
    examines: '≤ batch: a range walk of endpoint_rollups_expires from its start, stopped by the limit',
    maxExamined: (n) => n + 1,
    build: (now: number) => ({ filter: { expiresAt: { $lt: now } }, sort: { expiresAt: 1 } }),
    example: [1],
  }),
  /** The expired rollups a batch read, removed by id (still expired). */
  rollupsByIds: planSpec({
    collection: COLLECTIONS.endpointRollups,
    index: '_id_',
    examines: 'the ids given (≤ batch): point reads of the _id index',
    maxExamined: (n) => n,
    residual: { expiresAt: 'still expired: a condition on each document an id found' },
    build: (ids: readonly string[], now: number) => ({ filter: { _id: { $in: [...ids] }, expiresAt: { $lt: now } } }),
    example: [['ep_1:300000:0'], 1],
  }),
});
