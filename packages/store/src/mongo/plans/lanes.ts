import { COLLECTIONS } from '../connection.ts';
import { OPEN } from '../indexes.ts';
import { definePlans, planSpec, tenantById } from './plan.ts';

// Ordered lanes (ordered-lanes.ts): the lane documents (delivery_lanes, one per endpoint
// and key, found by _id), a lane's waiting deliveries (deliveries_lane_wait), the metrics' read
// of the lanes with a head, retention's prune and its hand-over of a month's heads. The
// deliveries' plans are sent to a month's collection (deliveries_YYYYMM): one by id to its id's
// month, the others to each month they read.

const laneId = (endpointId: string, key: string) => `${endpointId}:${key}`;

/** How many lanes with a head laneStats reads (ordered-lanes.ts): its gauges saturate there. */
import { LANE_STATS_LIMIT } from '../../ports/delivery-port.ts';

export { LANE_STATS_LIMIT };

export const LANES_PLANS = definePlans('lanes', {
  /** A lane by its id (`endpointId:key`): a join's upsert, a head's change, a rejoin's read. */
  lane: planSpec({
    collection: COLLECTIONS.deliveryLanes,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    build: (endpointId: string, key: string) => ({ filter: { _id: laneId(endpointId, key) } }),
    example: ['ep_1', 'k'],
  }),
  /** A lane whose head is `headId`: a hand-over's test that the ended delivery was its head. */
  laneWithHead: planSpec({
    collection: COLLECTIONS.deliveryLanes,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { headId: 'the ended delivery: a test of the one lane _id found' },
    build: (endpointId: string, key: string, headId: string) => ({ filter: { _id: laneId(endpointId, key), headId } }),
    example: ['ep_1', 'k', 'dlv_1'],
  }),
  /** A delivery by id (in its id's month): whether a lane's head is still open; a rejoin's wait. */
  delivery: planSpec({
    collection: COLLECTIONS.deliveries,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    build: (id: string) => ({ filter: { _id: id } }),
    example: ['dlv_1'],
  }),
  /** A delivery by id (in its id's month) while it is open: the head a manual retry displaces. */
  openDelivery: planSpec({
    collection: COLLECTIONS.deliveries,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { status: 'open: a test of the one document _id found' },
    build: (id: string) => ({ filter: { _id: id, ...OPEN } }),
    example: ['dlv_1'],
  }),
  /** Deliveries by id: those releaseLanes has just read in one month (≤ batch over all months). */
  deliveries: planSpec({
    collection: COLLECTIONS.deliveries,
    index: '_id_',
    examines: "the ids given (one month's of ≤ batch): point reads of the _id index",
    maxExamined: (n) => n,
    build: (ids: readonly string[]) => ({ filter: { _id: { $in: [...ids] } } }),
    example: [['dlv_1', 'dlv_2']],
  }),
  /**
   * The open ones of deliveries by id, sent to each month the ids are in: the heads of the lanes
   * pruneLanes read (≤ batch) or laneStats read (≤ LANE_STATS_LIMIT).
   */
  openDeliveries: planSpec({
    collection: COLLECTIONS.deliveries,
    index: '_id_',
    examines: "the ids given (one month's of ≤ batch or LANE_STATS_LIMIT): point reads of the _id index",
    maxExamined: (n) => n,
    residual: { status: 'open: tested on each document an id found (≤ the ids given)' },
    build: (ids: readonly string[]) => ({ filter: { _id: { $in: [...ids] }, ...OPEN } }),
    example: [['dlv_1', 'dlv_2']],
  }),
  /**
   * The lane's first waiting delivery by sequence in one month: a hand-over seeks every month
   * (the next may be in any) and updates the smallest with it; a prune seeks the months up to
   * the lane's last use.
   */
  nextWaiting: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_lane_wait',
    examines:
      "1 a month: the first key of the lane's range of the month's deliveries_lane_wait (findOne / limit 1), whatever the lane's length; " +
      '≤ months (RETENTION_MONTHS + 1) seeks a hand-over, and 1 update',
    maxExamined: (n) => n,
    build: (endpointId: string, key: string) => ({
      filter: { endpointId, orderingKey: key, ...OPEN, laneWait: true },
      sort: { sequence: 1 },
    }),
    example: ['ep_1', 'k'],
  }),
  /** An endpoint's waiting deliveries, any lane: releaseLanes takes `batch` of them at a time. */
  waitingOfEndpoint: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_lane_wait',
    examines:
      "≤ batch (limit) over all months, oldest first, + a seek a month: the endpoint's range of each month's deliveries_lane_wait; " +
      'those released leave the index (laneWait false)',
    maxExamined: (n) => n,
    build: (endpointId: string) => ({ filter: { endpointId, ...OPEN, laneWait: true } }),
    example: ['ep_1'],
  }),
  /** An endpoint's lanes that still name a head: releaseLanes lets go of `batch` of them at a time. */
  headedOfEndpoint: planSpec({
    collection: COLLECTIONS.deliveryLanes,
    index: 'delivery_lanes_endpoint_head',
    examines: "≤ batch (limit): the endpoint's range of the partial index; a lane let go of leaves it (headId null)",
    maxExamined: (n) => n,
    build: (endpointId: string) => ({ filter: { endpointId, headId: { $type: 'string' } }, sort: { _id: 1 } }),
    example: ['ep_1'],
  }),
  /** Lanes by id that still name a head: the ones headedOfEndpoint read (≤ batch). */
  headedByIds: planSpec({
    collection: COLLECTIONS.deliveryLanes,
    index: '_id_',
    examines: 'the ids given (≤ batch): point reads of the _id index',
    maxExamined: (n) => n,
    residual: { headId: 'still a head: tested on each lane an id found' },
    build: (ids: readonly string[]) => ({ filter: { _id: { $in: [...ids] }, headId: { $type: 'string' } } }),
    example: [['ep_1:k']],
  }),
  /**
   * The metrics' lanes with a head, by head id: delivery ids are stamped with their message's
   * creation, so the oldest heads come first (headId projected; each key's document fetched, below).
   */
  headed: planSpec({
    collection: COLLECTIONS.deliveryLanes,
    index: 'delivery_lanes_open',
    // A `$type: 'string'` range is not exact on the server (symbols share it): each key's document is fetched and checked.
    examines: `≤ LANE_STATS_LIMIT (${LANE_STATS_LIMIT}) index keys from the start of delivery_lanes_open, and their documents`,
    maxExamined: (n) => n,
    // Index keys only: the entries it matched, and a seek or two at its ranges' ends.
    maxKeysExamined: (n) => n + 2,
    build: () => ({ filter: { headId: { $type: 'string' } }, sort: { headId: 1 } }),
    example: [],
  }),
  /**
   * Lanes whose head is a delivery of one month (ids are time-ordered: `[firstIdAt(month's start),
   * firstIdAt(next month's start))`), by head: retention hands them over before it drops the month.
   */
  headedBetween: planSpec({
    collection: COLLECTIONS.deliveryLanes,
    index: 'delivery_lanes_open',
    examines: "≤ batch (limit): the month's range of delivery_lanes_open; a lane handed over leaves it (its head moves to a later month, or none)",
    maxExamined: (n) => n,
    build: (from: string, to: string) => ({ filter: { headId: { $type: 'string', $gte: from, $lt: to } }, sort: { headId: 1 } }),
    example: ['dlv_01', 'dlv_02'],
  }),
  /** A lane's endpoint (its status: whether the next head is held), in the lane's tenant. */
  endpoint: tenantById(COLLECTIONS.endpoints, 'ep_1'),
  /** Lanes last used before `before`, oldest first: retention's prune. */
  idle: planSpec({
    collection: COLLECTIONS.deliveryLanes,
    index: 'delivery_lanes_idle',
    examines: '≤ batch (limit): a range walk of delivery_lanes_idle from its oldest',
    maxExamined: (n) => n + 1,
    build: (before: number) => ({ filter: { lastUsedAt: { $lt: before } }, sort: { lastUsedAt: 1 } }),
    example: [1],
  }),
  /** Idle lanes by id, still idle: prune's delete (a lane joined meanwhile stays). */
  idleByIds: planSpec({
    collection: COLLECTIONS.deliveryLanes,
    index: '_id_',
    examines: 'the ids given (≤ batch): point reads of the _id index',
    maxExamined: (n) => n,
    residual: { lastUsedAt: 'still idle: tested on each lane an id found' },
    build: (ids: readonly string[], before: number) => ({ filter: { _id: { $in: [...ids] }, lastUsedAt: { $lt: before } } }),
    example: [['ep_1:k'], 1],
  }),
});
