import { firstIdAt, MAX_ENDPOINTS_PER_CONSUMER, MAX_PAGE_SIZE, SEARCH_WINDOW_MS, type DeliveryStatus } from '@wirehook/core';
import type { Document } from 'mongodb';
import { SINCE_ID_MARGIN_MS } from '../../ports/message-port.ts';
import { COLLECTIONS } from '../connection.ts';
import { definePlans, pipelineOf, planSpec, tenantById } from './plan.ts';

// Messages (message-create.ts, message-repo.ts, message-list.ts, message-status.ts,
// message-body.ts): a send's reads, a message's page, the message list and the status recounts,
// with the consumers, endpoints, deliveries and attempts they read. Messages, bodies, deliveries
// and attempts are kept one collection per month (months.ts): each plan below on them is sent
// to one month's collection, that of the id it reads by, or once per month a read walks, and
// what it examines is per collection sent to (10⁸ in that month's).

type T = { orgId: string; env: string };
const T_EX = { orgId: 'org_1', env: 'live' as const };
const TENANT = 'orgId and env: the tenant of a document found by its unique _id (a check, never a widening)';
const TENANT_OF_MESSAGE = "orgId and env: a message id is one tenant's, so are its deliveries (a check, never a widening)";
const FANOUT = `a message has at most MAX_ENDPOINTS_PER_CONSUMER (${MAX_ENDPOINTS_PER_CONSUMER}) deliveries`;

/** A list query as the plans read it (MessageQuery without its limit). */
export interface ListQuery {
  consumerId?: string;
  status?: DeliveryStatus;
  eventType?: string;
  q?: string;
  since?: number;
  afterId?: string;
  /** The page's cut (message-list.ts, LIST_SCAN_BUDGET): ids at or after this one only. */
  fromId?: string;
}

const Q_FIELDS = ['_id', 'eventType', 'consumerExternalId', 'idempotencyKey'] as const;

/**
 * The list's filter: the tenant (and the index's own key), the `_id` range (`since` bounds it
 * too: the indexes end in _id; SQLite's message-list.ts says why), then the residuals.
 */
function listFilter(t: T, query: ListQuery, key: ListKey | null): Document {
  const filter: Document = { orgId: t.orgId, env: t.env };
  if (key !== null) filter[key] = query[key];
  for (const field of ['consumerId', 'status', 'eventType'] as const) {
    if (field !== key && query[field] !== undefined) filter[field] = query[field];
  }
  const idRange: { $gte?: string; $lt?: string } = {};
  if (query.since !== undefined) {
    filter['createdAt'] = { $gte: query.since };
    idRange.$gte = firstIdAt('message', query.since - SINCE_ID_MARGIN_MS);
  }
  if (query.afterId !== undefined) idRange.$lt = query.afterId;
  if (query.fromId !== undefined && (idRange.$gte === undefined || query.fromId > idRange.$gte)) idRange.$gte = query.fromId;
  if (Object.keys(idRange).length > 0) filter['_id'] = idRange;
  if (query.q !== undefined && query.q !== '') {
    const pattern = containsIgnoringAsciiCase(query.q);
    filter['$or'] = Q_FIELDS.map((field) => ({ [field]: { $regex: pattern } }));
  }
  return filter;
}

/**
 * A regular expression matching text that contains `q`, every character literal and ASCII
 * letters in either case; other letters match only as given, as SQL LIKE does.
 */
export function containsIgnoringAsciiCase(q: string): string {
  return q.replace(/[\\^$.*+?()[\]{}|/-]/g, (c) => `\\${c}`).replace(/[A-Za-z]/g, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`);
}

// The residuals of the list, and why each fetches a bounded number of documents: the API sends
// `since` (SEARCH_WINDOW_MS, 7 days, unless the caller gives one) with every q, status or
// event_type, so a residual walks at most the index prefix's window back from `afterId`.
const WINDOW =
  `the API sends since (at most SEARCH_WINDOW_MS = ${SEARCH_WINDOW_MS / 86_400_000} days back, unless the caller names an older one) ` +
  'with q, status and event_type';
const SINCE = "createdAt ≥ since: _id is already bounded at since − SINCE_ID_MARGIN_MS, so this rejects only the margin's messages";
const Q =
  'q, a contains-match on four fields (no index can serve it): each message of the walked range is fetched and tested; ' +
  `a page of a rare q walks the prefix's range back to since: ${WINDOW}`;
const LIST_EX: ListQuery = { consumerId: 'con_1', status: 'failed', eventType: 'a.b', q: 'x', since: 1, afterId: 'msg_2' };
/**
 * The most messages one page of the list fetches to test a residual on (a status, an event type
 * or q tested message by message): past it the page ends where it got to, with a cursor there
 * (MessagePage.resumeAfterId), rather than walk a busy tenant's week on the primary. The seeded
 * real-server run's window holds fewer.
 */
export const LIST_SCAN_BUDGET = 5_000;
const LIST_RESIDUAL_BUDGET = LIST_SCAN_BUDGET;
const LIST_EXAMINES = (prefix: string) =>
  `once per month walked (newest first, from afterId's month down to since's, stopped once the page is full), ` +
  `each with the page's remaining limit: ≤ limit + months in all when the query has no residual (a walk of ${prefix}'s _id range, newest first, ` +
  `stopped by the limit); with a residual, the ${prefix} range within [since, afterId), cut at LIST_SCAN_BUDGET (${LIST_SCAN_BUDGET}) ` +
  "messages in all by the window's count and edge (listWindow*)";

/** The list's walked range without its residuals: what the window plans count and cut (message-list.ts). */
function windowFilter(t: T, query: ListQuery, key: ListKey | null): Document {
  const filter = listFilter(t, { since: query.since, afterId: query.afterId, ...(key === null ? {} : { [key]: query[key] }) }, key);
  delete filter['createdAt'];
  return filter;
}

type ListKey = 'consumerId' | 'status' | 'eventType';

/** Whether a list query tests a field message by message on its walked range (a residual past the since margin's). */
export function hasResidual(query: ListQuery, key: ListKey | null): boolean {
  if (query.q !== undefined && query.q !== '') return true;
  return (['consumerId', 'status', 'eventType'] as const).some((field) => field !== key && query[field] !== undefined);
}

/**
 * A window plan: the walked range of a list's index, its keys alone (covered) — counted up to
 * what the budget has left (countDocuments' limit), or its edge, the id `skip` keys in, newest first.
 */
const windowPlan = (index: string, key: ListKey | null, prefix: string, example: ListQuery) =>
  planSpec({
    collection: COLLECTIONS.messages,
    index,
    examines: `≤ LIST_SCAN_BUDGET (${LIST_SCAN_BUDGET}) keys of ${prefix}'s _id range within [since − margin, afterId), no document`,
    maxExamined: () => 0,
    maxKeysExamined: () => LIST_SCAN_BUDGET + 2,
    build: (t: T, query: ListQuery) => ({ filter: windowFilter(t, query, key), sort: { _id: -1 } }),
    example: [T_EX, example],
  });

export const MESSAGES_PLANS = definePlans('messages', {
  /** A message of the tenant by id (its page; a recount's write, also in bulk). */
  byId: tenantById(COLLECTIONS.messages, 'msg_1'),
  /** A message of the tenant by id when it has counts: a completion's move of its counts by one. */
  withCounts: planSpec({
    collection: COLLECTIONS.messages,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { orgId: TENANT, env: TENANT, counts: 'written before counts existed: recounted instead (the one document _id found)' },
    build: (t: T, id: string) => ({ filter: { orgId: t.orgId, env: t.env, _id: id, counts: { $exists: true } } }),
    example: [T_EX, 'msg_1'],
  }),
  /** A message of the tenant by id when it has a status map: a completion's result set in it after its commit. */
  withStatuses: planSpec({
    collection: COLLECTIONS.messages,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { orgId: TENANT, env: TENANT, statuses: 'written before status maps existed: recounted instead (the one document _id found)' },
    build: (t: T, id: string) => ({ filter: { orgId: t.orgId, env: t.env, _id: id, statuses: { $type: 'object' } } }),
    example: [T_EX, 'msg_1'],
  }),
  /** A message's body by the message's id. */
  body: tenantById(COLLECTIONS.messageBodies, 'msg_1'),
  /**
   * The tenant's newest message with the Idempotency-Key created at or after `since`, in one
   * month. The key document (idempotencyKey) serialises a key's sends, so two messages of one
   * key never share a createdAt: createdAt alone orders them.
   */
  idempotent: planSpec({
    collection: COLLECTIONS.messages,
    index: 'messages_idempotency',
    examines:
      '1 per month looked in (findOne: the first key of the (tenant, key) range from `since`): ' +
      "the send's month, those before it to since's (newest first), then the next, until found; ≤ 3 for the intake's window of 24 h",
    maxExamined: (n) => n,
    // The partial filter's `$type` stated beside the key: the server proves none from an equality.
    build: (t: T, key: string, since: number) => ({
      filter: { orgId: t.orgId, env: t.env, idempotencyKey: { $type: 'string', $eq: key }, createdAt: { $gte: since } },
      sort: { createdAt: -1 },
    }),
    example: [T_EX, 'key-1', 1],
  }),
  /** The tenant's Idempotency-Key document: every send with the key writes it. */
  idempotencyKey: planSpec({
    collection: COLLECTIONS.idempotencyKeys,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    build: (t: T, key: string) => ({ filter: { _id: `${t.orgId}:${t.env}:${key}` } }),
    example: [T_EX, 'key-1'],
  }),
  /** A send's consumer by its external id. */
  consumerByExternalId: planSpec({
    collection: COLLECTIONS.consumers,
    index: 'consumers_external_id',
    examines: '1: a unique key',
    maxExamined: () => 1,
    build: (t: T, externalId: string) => ({ filter: { orgId: t.orgId, env: t.env, externalId } }),
    example: [T_EX, 'user-1'],
  }),
  /** Consumers of the tenant by id: a page's (≤ MAX_PAGE_SIZE) or a message's one. */
  consumers: planSpec({
    collection: COLLECTIONS.consumers,
    index: '_id_',
    examines: `the ids given (≤ MAX_PAGE_SIZE = ${MAX_PAGE_SIZE}): point reads of the _id index`,
    maxExamined: (n) => n,
    residual: { orgId: TENANT, env: TENANT },
    build: (t: T, ids: readonly string[]) => ({ filter: { orgId: t.orgId, env: t.env, _id: { $in: [...ids] } } }),
    example: [T_EX, ['con_1', 'con_2']],
  }),
  /** The consumer's endpoints that take `eventType` and are not disabled, by id: a send's fan-out. */
  matchingEndpoints: planSpec({
    collection: COLLECTIONS.endpoints,
    index: 'endpoints_tenant_consumer',
    examines: `the consumer's endpoints: ≤ MAX_ENDPOINTS_PER_CONSUMER (${MAX_ENDPOINTS_PER_CONSUMER}), its range of endpoints_tenant_consumer`,
    maxExamined: () => MAX_ENDPOINTS_PER_CONSUMER,
    residual: {
      status: `active or paused: tested on the consumer's endpoints (≤ ${MAX_ENDPOINTS_PER_CONSUMER})`,
      $or: `takes the event type (eventTypes null or holding it): tested on the consumer's endpoints (≤ ${MAX_ENDPOINTS_PER_CONSUMER})`,
    },
    build: (t: T, consumerId: string, eventType: string) => ({
      // eventTypes null: every type; an array matches when it holds the type exactly.
      filter: { orgId: t.orgId, env: t.env, consumerId, status: { $in: ['active', 'paused'] }, $or: [{ eventTypes: null }, { eventTypes: eventType }] },
      sort: { _id: 1 },
    }),
    example: [T_EX, 'con_1', 'a.b'],
  }),
  /** A trial's one endpoint, whatever event types it takes: when the consumer's and not disabled. */
  trialEndpoint: planSpec({
    collection: COLLECTIONS.endpoints,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { orgId: TENANT, env: TENANT, consumerId: "the send's consumer: a test of the one document _id found", status: 'active or paused' },
    build: (t: T, consumerId: string, endpointId: string) => ({
      filter: { orgId: t.orgId, env: t.env, consumerId, status: { $in: ['active', 'paused'] }, _id: endpointId },
    }),
    example: [T_EX, 'con_1', 'ep_1'],
  }),
  /**
   * Deliveries of the tenant's messages of one month, by id (a message's page, a list page's, a
   * recount's): sent to that month's collection, once per month the ids are of.
   */
  deliveriesOf: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_message',
    examines:
      `the messages' deliveries: ${FANOUT}, so ≤ ${MAX_ENDPOINTS_PER_CONSUMER} × the ids given (≤ MAX_PAGE_SIZE), ` +
      `each a key of deliveries_message; a page spanning months sends each month's ids to its month, the same total`,
    maxExamined: (n) => n,
    residual: { orgId: TENANT_OF_MESSAGE, env: TENANT_OF_MESSAGE },
    build: (t: T, messageIds: readonly string[]) => ({
      filter: { orgId: t.orgId, env: t.env, messageId: { $in: [...messageIds] } },
      // Per message by id (a merge of the ids' ranges, no in-memory sort): a message's first delivery comes first.
      sort: { _id: 1 },
    }),
    example: [T_EX, ['msg_1', 'msg_2']],
  }),
  /**
   * The messages' deliveries in no order: a recount's (message-status.ts), whose map needs none.
   * A walk's batch passes up to ENDPOINT_WALK_BATCH ids, past the server's limit for merging an
   * `$in`'s ranges into one sorted walk (internalQueryMaxScansToExplode, 200): sorted, it would be
   * a blocking sort of up to 20 × the ids in memory, in the walk's transaction.
   */
  recountOf: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_message',
    examines: `the messages' deliveries: ${FANOUT}, so ≤ ${MAX_ENDPOINTS_PER_CONSUMER} × the ids given (a walk's batch), each a key of deliveries_message`,
    maxExamined: (n) => n,
    residual: { orgId: TENANT_OF_MESSAGE, env: TENANT_OF_MESSAGE },
    build: (t: T, messageIds: readonly string[]) => ({ filter: { orgId: t.orgId, env: t.env, messageId: { $in: [...messageIds] } } }),
    example: [T_EX, ['msg_1', 'msg_2']],
  }),
  /** A page's messages by id (≤ MAX_PAGE_SIZE, one month's), for the counts by status each keeps (message-status.ts). */
  countsOf: planSpec({
    collection: COLLECTIONS.messages,
    index: '_id_',
    examines: `the ids given (≤ MAX_PAGE_SIZE = ${MAX_PAGE_SIZE}): point reads of the _id index`,
    maxExamined: (n) => n,
    residual: { orgId: TENANT, env: TENANT },
    build: (t: T, ids: readonly string[]) => ({ filter: { orgId: t.orgId, env: t.env, _id: { $in: [...ids] } } }),
    example: [T_EX, ['msg_1', 'msg_2']],
  }),
  /** Each message's deliveries counted by status: one aggregate per month of a page of messages written before they kept their counts. */
  statusesOf: planSpec({
    collection: COLLECTIONS.deliveries,
    index: 'deliveries_message',
    examines:
      `the messages' deliveries: ${FANOUT}, so ≤ ${MAX_ENDPOINTS_PER_CONSUMER} × MAX_PAGE_SIZE (${MAX_PAGE_SIZE}) ids, ` +
      'summed over the months the ids are of',
    maxExamined: () => MAX_ENDPOINTS_PER_CONSUMER * MAX_PAGE_SIZE,
    residual: { orgId: TENANT_OF_MESSAGE, env: TENANT_OF_MESSAGE },
    build: (t: T, messageIds: readonly string[]) =>
      pipelineOf({ orgId: t.orgId, env: t.env, messageId: { $in: [...messageIds] } }, undefined, [
        { $group: { _id: { messageId: '$messageId', status: '$status' }, n: { $sum: 1 } } },
      ]),
    example: [T_EX, ['msg_1', 'msg_2']],
  }),
  /** The windows of the four list plans below (message-list.ts: a page with a residual is cut at LIST_SCAN_BUDGET). */
  listWindowOfTenant: windowPlan('messages_tenant', null, 'the tenant', { since: 1, afterId: 'msg_2' }),
  listWindowOfConsumer: windowPlan('messages_tenant_consumer', 'consumerId', 'the consumer', LIST_EX),
  listWindowByStatus: windowPlan('messages_tenant_status', 'status', 'the status', { status: 'failed', since: 1, afterId: 'msg_2' }),
  listWindowByEventType: windowPlan('messages_tenant_event_type', 'eventType', 'the event type', { eventType: 'a.b', since: 1, afterId: 'msg_2' }),
  /** The tenant's messages newest first (no consumer, status or event type asked). */
  listOfTenant: planSpec({
    collection: COLLECTIONS.messages,
    index: 'messages_tenant',
    examines: LIST_EXAMINES('the tenant'),
    maxExamined: (n) => n + 1 + LIST_RESIDUAL_BUDGET,
    residual: { createdAt: SINCE, $or: Q },
    build: (t: T, query: ListQuery) => ({ filter: listFilter(t, query, null), sort: { _id: -1 } }),
    example: [T_EX, { q: 'x', since: 1, afterId: 'msg_2' }],
  }),
  /** A consumer's messages newest first (the portal): a quiet consumer's page is its own range, not the tenant's history. */
  listOfConsumer: planSpec({
    collection: COLLECTIONS.messages,
    index: 'messages_tenant_consumer',
    examines: LIST_EXAMINES('the consumer'),
    maxExamined: (n) => n + 1 + LIST_RESIDUAL_BUDGET,
    residual: {
      createdAt: SINCE,
      status: `tested on the consumer's messages in the window: ${WINDOW}`,
      eventType: `tested on the consumer's messages in the window: ${WINDOW}`,
      $or: Q,
    },
    build: (t: T, query: ListQuery) => ({ filter: listFilter(t, query, 'consumerId'), sort: { _id: -1 } }),
    example: [T_EX, LIST_EX],
  }),
  /** The tenant's messages of a status newest first. */
  listByStatus: planSpec({
    collection: COLLECTIONS.messages,
    index: 'messages_tenant_status',
    examines: LIST_EXAMINES('the status'),
    maxExamined: (n) => n + 1 + LIST_RESIDUAL_BUDGET,
    residual: { createdAt: SINCE, eventType: `tested on the status's messages in the window: ${WINDOW}`, $or: Q },
    build: (t: T, query: ListQuery) => ({ filter: listFilter(t, query, 'status'), sort: { _id: -1 } }),
    example: [T_EX, { status: 'failed', eventType: 'a.b', q: 'x', since: 1, afterId: 'msg_2' }],
  }),
  /** The tenant's messages of an event type newest first. */
  listByEventType: planSpec({
    collection: COLLECTIONS.messages,
    index: 'messages_tenant_event_type',
    examines: LIST_EXAMINES('the event type'),
    maxExamined: (n) => n + 1 + LIST_RESIDUAL_BUDGET,
    residual: { createdAt: SINCE, $or: Q },
    build: (t: T, query: ListQuery) => ({ filter: listFilter(t, query, 'eventType'), sort: { _id: -1 } }),
    example: [T_EX, { eventType: 'a.b', q: 'x', since: 1, afterId: 'msg_2' }],
  }),
});
