import { EVENT_TYPE_VERSIONS_PAGE, EVENT_TYPES_ENFORCING_CAP } from '../../ports/event-type-port.ts';
import { MAX_ENDPOINTS_PER_CONSUMER } from '@wirehook/core';
import { COLLECTIONS } from '../connection.ts';
import { UNIQUE_INDEX } from '../indexes.ts';
import { definePlans, planSpec, tenantById } from './plan.ts';

/** The named queries of orgs, API keys, consumers, event types and portal tokens. */

const T = { orgId: 'org_1', env: 'live' as const };
type TenantArg = { orgId: string; env: string };
const TENANT = 'orgId and env: the tenant of a document found by its unique _id (a check, never a widening)';

/** The most event types eventTypes.list returns (the port has no page: TODO: page it like consumers). */
export const EVENT_TYPES_LIST_CAP = 1_000;

export const TENANCY_PLANS = definePlans('tenancy', {
  /** An organization by id (an API key's, or its own). */
  orgById: planSpec({
    collection: COLLECTIONS.orgs,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    build: (id: string) => ({ filter: { _id: id } }),
    example: ['org_1'],
  }),
  /** An API key by the hash of its clear text: every authenticated request. */
  apiKeyByHash: planSpec({
    collection: COLLECTIONS.apiKeys,
    index: UNIQUE_INDEX.apiKeyHash,
    examines: '≤ 1: a unique lookup',
    maxExamined: () => 1,
    build: (hash: string) => ({ filter: { keyHash: hash } }),
    example: ['hash'],
  }),
  /** An API key by id (its revocation). */
  apiKeyById: planSpec({
    collection: COLLECTIONS.apiKeys,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    build: (id: string) => ({ filter: { _id: id } }),
    example: ['key_1'],
  }),
  /** A consumer of the tenant by id. */
  consumerById: tenantById(COLLECTIONS.consumers, 'con_1'),
  /** A consumer below its endpoint cap: an endpoint create's conditional `$inc` (the cap). */
  consumerBelowCap: planSpec({
    collection: COLLECTIONS.consumers,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { orgId: TENANT, env: TENANT, endpointCount: 'below the cap: a condition on the one document _id found' },
    build: (t: TenantArg, id: string, max: number) => ({ filter: { orgId: t.orgId, env: t.env, _id: id, endpointCount: { $lt: max } } }),
    example: [T, 'con_1', MAX_ENDPOINTS_PER_CONSUMER],
  }),
  /** A consumer of the tenant by its external id. */
  consumerByExternalId: planSpec({
    collection: COLLECTIONS.consumers,
    index: UNIQUE_INDEX.consumerExternalId,
    examines: '≤ 1: a unique lookup',
    maxExamined: () => 1,
    build: (t: TenantArg, externalId: string) => ({ filter: { orgId: t.orgId, env: t.env, externalId } }),
    example: [T, 'ext_1'],
  }),
  /** A page of the tenant's consumers, newest first, after a cursor. */
  consumersPage: planSpec({
    collection: COLLECTIONS.consumers,
    index: 'consumers_tenant',
    examines: "≤ limit (≤ MAX_PAGE_SIZE): the tenant's range of consumers_tenant from the cursor",
    maxExamined: (n) => n,
    build: (t: TenantArg, afterId?: string) => ({
      filter: afterId === undefined ? { orgId: t.orgId, env: t.env } : { orgId: t.orgId, env: t.env, _id: { $lt: afterId } },
      sort: { _id: -1 },
    }),
    example: [T, 'con_9'],
  }),
  /** The tenant's event types by name, stopped at EVENT_TYPES_LIST_CAP. */
  eventTypes: planSpec({
    collection: COLLECTIONS.eventTypes,
    index: UNIQUE_INDEX.eventTypeName,
    examines: `≤ ${EVENT_TYPES_LIST_CAP} (EVENT_TYPES_LIST_CAP, the find's limit): the tenant's range of event_types_name in name order`,
    maxExamined: (n) => n,
    build: (t: TenantArg) => ({ filter: { orgId: t.orgId, env: t.env }, sort: { name: 1 } }),
    example: [T],
  }),
  /** One event type by name. */
  eventTypeByName: planSpec({
    collection: COLLECTIONS.eventTypes,
    index: UNIQUE_INDEX.eventTypeName,
    examines: '1: the unique key (orgId, env, name)',
    maxExamined: () => 1,
    build: (t: TenantArg, name: string) => ({ filter: { orgId: t.orgId, env: t.env, name } }),
    example: [T, 'invoice.paid'],
  }),
  /** An update's compare-and-set: the event type by name, only at the revision read. */
  eventTypeUpdate: planSpec({
    collection: COLLECTIONS.eventTypes,
    index: UNIQUE_INDEX.eventTypeName,
    examines: '1: the unique key (orgId, env, name)',
    maxExamined: () => 1,
    residual: { rev: 'the revision the update read: a compare-and-set on the one document the key found' },
    build: (t: TenantArg, name: string, rev: number) => ({
      // Revision 0 is also a document made before the catalog (no rev field).
      filter: { orgId: t.orgId, env: t.env, name, rev: rev === 0 ? { $in: [0, null] } : rev },
    }),
    example: [T, 'invoice.paid', 0],
  }),
  /** One kept version (its times set by the update that replaced it). */
  eventTypeVersion: planSpec({
    collection: COLLECTIONS.eventTypeVersions,
    index: UNIQUE_INDEX.eventTypeVersion,
    examines: '1: the unique key (orgId, env, name, version)',
    maxExamined: () => 1,
    build: (t: TenantArg, name: string, version: number) => ({ filter: { orgId: t.orgId, env: t.env, name, version } }),
    example: [T, 'invoice.paid', 1],
  }),
  /** The tenant's enforcing event types (name and version; covered), stopped at EVENT_TYPES_ENFORCING_CAP. */
  enforcingEventTypes: planSpec({
    collection: COLLECTIONS.eventTypes,
    index: 'event_types_enforcing_keys',
    examines: `≤ ${EVENT_TYPES_ENFORCING_CAP} index keys: the tenant's range of event_types_enforcing_keys (partial: validation enforce); no document`,
    maxExamined: () => 0,
    maxKeysExamined: (n) => n + 1,
    build: (t: TenantArg) => ({ filter: { orgId: t.orgId, env: t.env, validation: 'enforce' }, sort: { name: 1 } }),
    example: [T],
  }),
  /** The catalog's export: the tenant's event types by name after a cursor, a page at a time. */
  eventTypesAfter: planSpec({
    collection: COLLECTIONS.eventTypes,
    index: UNIQUE_INDEX.eventTypeName,
    examines: '≤ limit: the tenant’s range of event_types_name from the cursor, stopped by the page',
    maxExamined: (n) => n,
    build: (t: TenantArg, after: string) => ({ filter: { orgId: t.orgId, env: t.env, name: { $gt: after } }, sort: { name: 1 } }),
    example: [T, 'a'],
  }),
  /** An event type's earlier versions, newest first, stopped at EVENT_TYPE_VERSIONS_PAGE. */
  eventTypeVersions: planSpec({
    collection: COLLECTIONS.eventTypeVersions,
    index: UNIQUE_INDEX.eventTypeVersion,
    examines: `≤ ${EVENT_TYPE_VERSIONS_PAGE} (the find's limit): the event type's range of event_type_versions_key, newest first`,
    maxExamined: (n) => n,
    // Older than the current version: a kept copy of the current one (a PATCH that lost, or crashed) takes no place in the page.
    build: (t: TenantArg, name: string, current: number) => ({
      filter: { orgId: t.orgId, env: t.env, name, version: { $lt: current } },
      sort: { version: -1 },
    }),
    example: [T, 'invoice.paid', 3],
  }),
  /**
   * An event type's versions past the newest EVENT_TYPE_VERSIONS_PAGE (removed as an update keeps
   * one more): 1 in the steady state, each update keeping one and removing one.
   */
  eventTypeVersionsPast: planSpec({
    collection: COLLECTIONS.eventTypeVersions,
    index: UNIQUE_INDEX.eventTypeVersion,
    examines:
      '≤ 1 a change in the steady state (once, the backlog of a type with more than 100 kept): ' +
      'the event type’s range of event_type_versions_key at or below the cut',
    maxExamined: () => 1,
    build: (t: TenantArg, name: string, cut: number) => ({ filter: { orgId: t.orgId, env: t.env, name, version: { $lte: cut } } }),
    example: [T, 'invoice.paid', 1],
  }),
  /** A portal token by its hash. */
  portalToken: planSpec({
    collection: COLLECTIONS.portalTokens,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    build: (hash: string) => ({ filter: { _id: hash } }),
    example: ['hash'],
  }),
  /** Expired portal tokens, oldest first: deleteExpired's batch (the TTL index also removes them an hour later). */
  portalTokensExpired: planSpec({
    collection: COLLECTIONS.portalTokens,
    index: 'portal_tokens_ttl',
    examines: '≤ batch: a range walk of portal_tokens_ttl from its start, stopped by the limit',
    maxExamined: (n) => n + 1,
    build: (before: number) => ({ filter: { expiresAtDate: { $lt: new Date(before) } }, sort: { expiresAtDate: 1 } }),
    example: [1],
  }),
  /** The expired tokens a batch read, removed by id. */
  portalTokensByIds: planSpec({
    collection: COLLECTIONS.portalTokens,
    index: '_id_',
    examines: 'the ids given (≤ batch): point reads of the _id index',
    maxExamined: (n) => n,
    build: (ids: readonly string[]) => ({ filter: { _id: { $in: [...ids] } } }),
    example: [['hash']],
  }),
});
