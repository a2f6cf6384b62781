import type { Document, WriteConcernSettings } from 'mongodb';
import { COLLECTIONS, MONTHS_DOC } from '../connection.ts';
import { OPEN } from '../indexes.ts';
import { definePlans, planSpec } from './plan.ts';

// The layout upgrade's queries (layout-upgrade.ts): walks of `_id` in batches, each batch's
// update by its `_id` range, and the record of how far it went. Run once, by one process under
// the `schema-upgrade` lease, with every other process waiting: never on a request or tick path.

/** Documents one upgrade batch updates at most (a range of the _id index). */
export const UPGRADE_BATCH = 10_000;
/** Endpoints the walk of inactive ones reads a page (each inactive one then an update of its own). */
export const ENDPOINTS_PAGE = 1_000;

/**
 * The write concern of a batch and of the record of it: a majority's, so that a failover cannot
 * roll a batch back while keeping a record that says it was done (its documents would never be
 * brought up to date: a delivery without `dueAt` is never due). A majority slow to confirm fails
 * the upgrade, whose next start goes on from the last batch a majority holds.
 */
export const UPGRADED_BY_MAJORITY = { w: 'majority', wtimeoutMS: 30_000 } as const satisfies WriteConcernSettings;

/** `_id` past `after` (null: from the first), in the index's order. */
const past = (after: string | null): Document => (after === null ? {} : { _id: { $gt: after } });
/** The batch's range: past `after` up to and with `last`. */
const range = (after: string | null, last: string): Document => ({ _id: after === null ? { $lte: last } : { $gt: after, $lte: last } });

/** Created after `after` (null: from the first), up to and with `last` (null: no end). */
function createdPast(after: number | null, last: number | null): Document {
  const range = { ...(after === null ? {} : { $gt: after }), ...(last === null ? {} : { $lte: last }) };
  return Object.keys(range).length === 0 ? {} : { createdAt: range };
}

const IDS =
  `≤ ${UPGRADE_BATCH}: a walk of _id from past the last batch done (its projection is _id alone: covered on a replica set; a collection ` +
  'sharded on another key fetches each document for its shard filter)';
const BATCH = `≤ ${UPGRADE_BATCH}: the batch's _id range, each document's step condition tested on it`;
const STEP = 'the step’s condition, tested on each document of the batch’s range (≤ UPGRADE_BATCH)';

/** A walk of `collection`'s ids in batches, and a batch's update, with `step` its condition. */
function batchPlans(collection: string, step: Document, residual: Record<string, string>) {
  return {
    ids: planSpec({
      collection,
      index: '_id_',
      examines: IDS,
      maxExamined: (n) => n + 1,
      build: (after: string | null) => ({ filter: past(after), sort: { _id: 1 } }),
      example: ['dlv_1'],
    }),
    batch: planSpec({
      collection,
      index: '_id_',
      examines: BATCH,
      maxExamined: () => UPGRADE_BATCH,
      residual,
      writeConcern: UPGRADED_BY_MAJORITY,
      build: (after: string | null, last: string) => ({ filter: { ...step, ...range(after, last) } }),
      example: ['dlv_1', 'dlv_9'],
    }),
  };
}

const deliveries = batchPlans(COLLECTIONS.deliveries, OPEN, { status: STEP });
const lanes = batchPlans(COLLECTIONS.deliveryLanes, { lastUsedAt: { $exists: false } }, { lastUsedAt: STEP });
const notices = batchPlans(COLLECTIONS.alertNotices, { nextAttemptAt: null, doneAt: { $exists: false } }, { nextAttemptAt: STEP, doneAt: STEP });

export const UPGRADE_PLANS = definePlans('upgrade', {
  /** A page of endpoints past the last one done, whatever their status (the inactive ones are picked from it). */
  endpointsPage: planSpec({
    collection: COLLECTIONS.endpoints,
    index: '_id_',
    examines: `≤ ${ENDPOINTS_PAGE}: a walk of _id from past the last endpoint done`,
    maxExamined: (n) => n + 1,
    build: (after: string | null) => ({ filter: past(after), sort: { _id: 1 } }),
    example: ['ep_1'],
  }),
  /**
   * A page of an endpoint's open deliveries (it is not active), oldest first, past the creation
   * time the last page ended on: their creation times alone, so that holdRange holds the page.
   */
  holdPage: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_endpoint_open_created',
    examines: `≤ ${UPGRADE_BATCH}: the endpoint's open deliveries past the last page's creation time, in the index's order`,
    maxExamined: (n) => n + 1,
    build: (t: { orgId: string; env: string }, endpointId: string, after: number | null) => ({
      filter: { orgId: t.orgId, env: t.env, endpointId, ...OPEN, ...createdPast(after, null) },
      sort: { createdAt: 1 },
    }),
    example: [{ orgId: 'org_1', env: 'live' }, 'ep_1', 1_700_000_000_000],
  }),
  /** An endpoint's newest open delivery: after its walk by numbers, whether one has a createdAt that is not a number. */
  holdNewest: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_endpoint_open_created',
    examines: "1: the last key of the endpoint's open deliveries",
    maxExamined: () => 1,
    build: (t: { orgId: string; env: string }, endpointId: string) => ({
      filter: { orgId: t.orgId, env: t.env, endpointId, ...OPEN },
      sort: { createdAt: -1 },
    }),
    example: [{ orgId: 'org_1', env: 'live' }, 'ep_1'],
  }),
  /**
   * A page's range held (`held` exists from then on: set once ever): the page's deliveries and
   * those created in its last millisecond that the page did not reach, so the next page begins
   * past that millisecond and a page of one millisecond's deliveries cannot stall the walk.
   */
  holdRange: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_endpoint_open_created',
    examines: `≤ ${UPGRADE_BATCH} and the endpoint's deliveries created in the page's last millisecond: the page's range of creation times`,
    maxExamined: (n) => n + UPGRADE_BATCH,
    residual: { held: 'held: absent on every delivery of a layout before it (the upgrade sets it), so it fetches nothing more than the range' },
    writeConcern: UPGRADED_BY_MAJORITY,
    build: (t: { orgId: string; env: string }, endpointId: string, after: number | null, last: number) => ({
      filter: { orgId: t.orgId, env: t.env, endpointId, ...OPEN, ...createdPast(after, last), held: { $exists: false } },
    }),
    example: [{ orgId: 'org_1', env: 'live' }, 'ep_1', 1_700_000_000_000, 1_700_000_060_000],
  }),
  deliveryIds: deliveries.ids,
  deliveriesBatch: deliveries.batch,
  laneIds: lanes.ids,
  lanesBatch: lanes.batch,
  noticeIds: notices.ids,
  noticesBatch: notices.batch,
  /**
   * The month whose bucket the single collections of layouts before 4 become, chosen once (a
   * majority's: a rollback would let the next run choose another) — written only where none is
   * (a stalled process's late choice, at a month's turn, must not replace the one another made).
   */
  legacyMonth: planSpec({
    collection: COLLECTIONS.meta,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { legacyMonth: 'absent: the month is chosen once (an upsert meeting one chosen meanwhile is E11000)' },
    writeConcern: UPGRADED_BY_MAJORITY,
    build: () => ({ filter: { _id: MONTHS_DOC, legacyMonth: { $exists: false } } }),
    example: [],
  }),
  /**
   * The record of the upgrade's batches, written while the layout is still below `version`, and
   * only over a record of one of `holders` (null: none, or one that names no holder): the one
   * read at start, then this process's own. Once another process has written that version, or
   * recorded the upgrade as its own, this upsert's filter matches nothing and its insert meets
   * the document's _id (E11000) — a process that stalled past its lease stops there.
   */
  record: planSpec({
    collection: COLLECTIONS.meta,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: {
      version: 'the layout not yet upgraded: a condition on the one document _id found',
      'upgrade.holder': 'the record read or written by this process: a condition on the one document _id found',
    },
    writeConcern: UPGRADED_BY_MAJORITY,
    build: (version: number, holders: (string | null)[]) => ({
      filter: { _id: 'schema', version: { $not: { $gte: version } }, 'upgrade.holder': { $in: holders } },
    }),
    example: [4, [null, '5f0c…']],
  }),
  /**
   * The layout's document, as the upgrade writes it: the record of its batches, then the version
   * with that record taken away in the same write (a crash between them leaves neither half).
   */
  layout: planSpec({
    collection: COLLECTIONS.meta,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    writeConcern: UPGRADED_BY_MAJORITY,
    build: () => ({ filter: { _id: 'schema' } }),
    example: [],
  }),
});
