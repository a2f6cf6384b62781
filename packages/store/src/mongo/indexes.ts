import type { Db, IndexDescription } from 'mongodb';
import { PORTAL_TOKEN_KEPT_AFTER_EXPIRY_MS } from '@wirehook/core';
import { ATTEMPTS_KEPT_S, NOTICES_KEPT_S } from './alert-documents.ts';
import { COLLECTIONS, MONTHLY, type MonthBucket } from './connection.ts';

/** Names of the unique indexes whose duplicate-key errors the repos turn into API errors. */
export const UNIQUE_INDEX = {
  consumerExternalId: 'consumers_external_id',
  eventTypeName: 'event_types_name',
  eventTypeVersion: 'event_type_versions_key',
  apiKeyHash: 'api_keys_key_hash',
  recoveryRunning: 'recoveries_one_running',
} as const;

// MongoDB's error code for creating a collection that exists.
const NAMESPACE_EXISTS = 48;

export const OPEN = { status: { $in: ['pending', 'retrying'] } };
/** Open, not held, not waiting in an ordered lane: what may be due. */
export const DUE = { ...OPEN, held: false, laneWait: false, dueAt: { $type: 'number' } };

/**
 * DUE with a range on `dueAt`: the `$type` stays beside the range, so the query repeats the
 * partial filter literally (no server version has to prove that a comparison implies a type).
 */
export function dueWhere(range: { $lte?: number; $lt?: number; $gt?: number; $gte?: number }): typeof DUE & { dueAt: Record<string, unknown> } {
  return { ...DUE, dueAt: { $type: 'number', ...range } };
}

/**
 * Every index the store needs, by collection (for a monthly family, every month's collection
 * of it): declared here, created at start-up (a month's, when the month is made). Change
 * an index by adding one with a new name (and dropping the old by hand): createIndexes
 * refuses a different definition under an existing name.
 */
export const INDEXES: Readonly<Record<string, IndexDescription[]>> = {
  [COLLECTIONS.apiKeys]: [{ key: { keyHash: 1 }, name: UNIQUE_INDEX.apiKeyHash, unique: true }],
  [COLLECTIONS.consumers]: [
    { key: { orgId: 1, env: 1, externalId: 1 }, name: UNIQUE_INDEX.consumerExternalId, unique: true },
    // Paging newest first by id within a tenant.
    { key: { orgId: 1, env: 1, _id: -1 }, name: 'consumers_tenant' },
  ],
  [COLLECTIONS.endpoints]: [
    // Active endpoints in a failure streak, by organization then streak start: alerting's
    // failingOrgs seeks one organization at a time (never reading the failing endpoints of the
    // ones it passes), and failingEndpoints walks one organization's window. Replaces
    // endpoints_failing {failingSince} and endpoints_failing_org (no status in their filter: a
    // paused or disabled endpoint's streak was fetched to be skipped); those two are dropped by hand.
    {
      key: { orgId: 1, failingSince: 1, _id: 1 },
      name: 'endpoints_failing_active',
      partialFilterExpression: { failingSince: { $type: 'number' }, status: 'active' },
    },
    { key: { orgId: 1, env: 1, consumerId: 1, _id: 1 }, name: 'endpoints_tenant_consumer' },
    { key: { orgId: 1, env: 1, _id: 1 }, name: 'endpoints_tenant' },
    // The walk over organizations with fixed_ip endpoints (a pool change's notices): one seek each.
    { key: { orgId: 1 }, name: 'endpoints_fixed_ip', partialFilterExpression: { fixedIp: true } },
    // The listener janitor's page (every tenant's `wirehook listen` endpoints by id): listeners
    // only, a handful; covering, so a page reads no document.
    { key: { type: 1, _id: 1, orgId: 1, env: 1 }, name: 'endpoints_listeners', partialFilterExpression: { type: 'listen' } },
    // The sealing walk over endpoints' custom headers (`secrets reseal`): those with headers only,
    // by id, so a page reads no endpoint without them. Not covering: a copy of every sealed set
    // (up to 4 KB of names and values each) in the index would serve only this rare walk, whose
    // page reads each of its endpoints once. orgId is a key only so the pattern is not `{ _id: 1 }`
    // alone: MongoDB refuses a partial index on the _id index's pattern, and plans hint `_id_` by it.
    { key: { _id: 1, orgId: 1 }, name: 'endpoints_headers', partialFilterExpression: { 'headers.sealed': { $type: 'string' } } },
    // The sealing walk over endpoints' client certificate keys (`secrets reseal`): those with a
    // certificate only, by id, so a page reads no endpoint without one. Not covering, as for
    // headers: the sealed key is read from the document, once per endpoint of the page. env is a
    // key only to give it a pattern of its own: `{ _id: 1 }` alone is the _id index's (MongoDB
    // refuses a partial index on it), and `{ _id: 1, orgId: 1 }` is endpoints_headers' — plans
    // hint by key pattern, which must name one index of the collection (two partial indexes of one
    // pattern would make the hint ambiguous and the command fail).
    { key: { _id: 1, env: 1 }, name: 'endpoints_tls', partialFilterExpression: { 'tls.sealedKey': { $type: 'string' } } },
    // The sealing walk over endpoints' OAuth client secrets, as endpoints_tls: those with
    // credentials only, by id; consumerId is a key only to give it a pattern of its own.
    { key: { _id: 1, consumerId: 1 }, name: 'endpoints_auth', partialFilterExpression: { 'auth.sealedSecret': { $type: 'string' } } },
    // The certificate-expiry notices' walk: endpoints with a client certificate by its notAfter,
    // then id (the walk's cursor), so a walk reads the certificates expiring in its window only.
    // Covering (orgId, env): the walk reads no document, only the keys of certificates in its window.
    {
      key: { 'tls.info.notAfter': 1, _id: 1, orgId: 1, env: 1 },
      name: 'endpoints_tls_expiry',
      partialFilterExpression: { 'tls.info.notAfter': { $type: 'number' } },
    },
    // One certificate-expiry notice's list: a tenant's endpoints with a client certificate by its
    // notAfter, then id, so the notice reads that tenant's certificates in the window and no other.
    {
      key: { orgId: 1, env: 1, 'tls.info.notAfter': 1, _id: 1 },
      name: 'endpoints_tls_tenant_expiry',
      partialFilterExpression: { 'tls.sealedKey': { $type: 'string' } },
    },
  ],
  [COLLECTIONS.eventTypes]: [
    { key: { orgId: 1, env: 1, name: 1 }, name: UNIQUE_INDEX.eventTypeName, unique: true },
    // Which of a tenant's event types the intake checks: the enforcing ones alone, covering (name, version).
    { key: { orgId: 1, env: 1, validation: 1, name: 1, version: 1 }, name: 'event_types_enforcing_keys', partialFilterExpression: { validation: 'enforce' } },
  ],
  // An event type's earlier schemas, newest first: a page is one range of the key. Unique, so a
  // PATCH retried after a crash between its two writes keeps one copy of the version it replaced.
  [COLLECTIONS.eventTypeVersions]: [{ key: { orgId: 1, env: 1, name: 1, version: -1 }, name: UNIQUE_INDEX.eventTypeVersion, unique: true }],
  [COLLECTIONS.messages]: [
    { key: { orgId: 1, env: 1, _id: -1 }, name: 'messages_tenant' },
    { key: { orgId: 1, env: 1, status: 1, _id: -1 }, name: 'messages_tenant_status' },
    { key: { orgId: 1, env: 1, eventType: 1, _id: -1 }, name: 'messages_tenant_event_type' },
    // A consumer's messages newest first (the portal): a quiet consumer's page reads its own
    // range, not the tenant's history.
    { key: { orgId: 1, env: 1, consumerId: 1, _id: -1 }, name: 'messages_tenant_consumer' },
    {
      key: { orgId: 1, env: 1, idempotencyKey: 1, createdAt: 1 },
      name: 'messages_idempotency',
      partialFilterExpression: { idempotencyKey: { $type: 'string' } },
    },
  ],
  [COLLECTIONS.deliveries]: [
    // The due queue (delivery-claim.ts): open, not held, not waiting in an ordered lane, by
    // `dueAt` — the next attempt's time while free, the lease's end while leased, so a leased
    // delivery leaves the head by index (no fetch) and comes back by itself if its dispatcher
    // dies. The store-wide head (the healer's and the metrics' oldest due), then each endpoint's.
    // The partial filter's fields are keys too (equality, before dueAt), so a count over these is
    // answered from the index alone, without fetching a document per entry.
    { key: { held: 1, laneWait: 1, status: 1, dueAt: 1, _id: 1 }, name: 'deliveries_due_queue', partialFilterExpression: DUE },
    { key: { endpointId: 1, held: 1, laneWait: 1, status: 1, dueAt: 1, _id: 1 }, name: 'deliveries_endpoint_due_queue', partialFilterExpression: DUE },
    // A lane's waiting deliveries by sequence: a hand-over's one seek for the next (ordered-lanes.ts).
    { key: { endpointId: 1, orderingKey: 1, sequence: 1 }, name: 'deliveries_lane_wait', partialFilterExpression: { ...OPEN, laneWait: true } },
    // An endpoint's held deliveries only: a resume's walk releases them batch by batch without
    // reading those already released.
    { key: { endpointId: 1, _id: 1 }, name: 'deliveries_endpoint_held', partialFilterExpression: { ...OPEN, held: true } },
    // An endpoint's failed deliveries oldest first: a recovery counts its targets on it at the
    // start and reads them batch by batch after a cursor (recovery-repo.ts).
    // status is a key too (its one value), so a start's count of targets reads index keys only.
    { key: { endpointId: 1, status: 1, createdAt: 1, _id: 1 }, name: 'deliveries_endpoint_failed', partialFilterExpression: { status: 'failed' } },
    // Retrying deliveries by tenant: the metrics' store-wide count and alerting's per-environment
    // counts read these entries only (a plain {status} match would scan the collection).
    { key: { status: 1, orgId: 1, env: 1 }, name: 'deliveries_retrying', partialFilterExpression: { status: 'retrying' } },
    { key: { messageId: 1, _id: 1 }, name: 'deliveries_message' },
    // Completions whose message has not been told their result yet (message-status.ts): normally
    // empty, an entry living the milliseconds between a commit and the message's update.
    // messageStale leads only so the pattern is not `{ _id: 1 }` alone: the earlier one could never
    // be created ("_id index cannot be a partial index": each month's createIndexes failed), so no
    // server holds this name with it.
    { key: { messageStale: 1, _id: 1 }, name: 'deliveries_message_stale', partialFilterExpression: { messageStale: true } },
    { key: { orgId: 1, env: 1, endpointId: 1, status: 1 }, name: 'deliveries_endpoint_status' },
    // An endpoint's open deliveries oldest first: its stats' oldest_pending_at is the first entry.
    { key: { orgId: 1, env: 1, endpointId: 1, createdAt: 1 }, name: 'deliveries_endpoint_open_created', partialFilterExpression: OPEN },
  ],
  // Ordered lanes: an endpoint's that still name a head (a release when it stops
  // ordering lets go of them batch by batch; replaces delivery_lanes_endpoint, which walked
  // the lanes let go of already), those with a head (the metrics), and by last use
  // (retention's pruneLanes, oldest first).
  [COLLECTIONS.deliveryLanes]: [
    { key: { endpointId: 1, _id: 1 }, name: 'delivery_lanes_endpoint_head', partialFilterExpression: { headId: { $type: 'string' } } },
    { key: { headId: 1 }, name: 'delivery_lanes_open', partialFilterExpression: { headId: { $type: 'string' } } },
    { key: { lastUsedAt: 1 }, name: 'delivery_lanes_idle' },
  ],
  // The due queue's two levels (due-queue.ts): one document per tenant, by the earliest `dueAt`
  // its endpoints may have; one per endpoint and month, by tenant, then the earliest `dueAt` it may
  // have. A sweep reads a page of tenants, then a batch of each one's endpoints, never the backlog.
  [COLLECTIONS.dueTenants]: [{ key: { dueAt: 1, _id: 1 }, name: 'due_tenants_due' }],
  [COLLECTIONS.dueEndpoints]: [{ key: { orgId: 1, env: 1, dueAt: 1, _id: 1 }, name: 'due_endpoints_tenant' }],
  // The walks asked to run again, by when (held-recheck.ts): a few a minute, each removed when it starts.
  [COLLECTIONS.endpointRechecks]: [{ key: { at: 1, _id: 1 }, name: 'endpoint_rechecks_at' }],
  [COLLECTIONS.attempts]: [
    { key: { deliveryId: 1, at: 1, _id: 1 }, name: 'attempts_delivery' },
    { key: { orgId: 1, env: 1, endpointId: 1, at: -1, _id: -1 }, name: 'attempts_endpoint' },
  ],
  // An endpoint's rollups of a grain in time order (a window's read); the expired ones, oldest
  // first, for the retention job's bounded prune (no TTL index: rows go when the job says, as
  // in SQLite, never in the middle of a read by a clock of the server's own).
  [COLLECTIONS.endpointRollups]: [
    { key: { endpointId: 1, grainMs: 1, at: 1 }, name: 'endpoint_rollups_endpoint' },
    { key: { expiresAt: 1 }, name: 'endpoint_rollups_expires' },
  ],
  [COLLECTIONS.recoveries]: [
    // One running recovery per endpoint: two concurrent starts get one 202 and one 409.
    { key: { endpointId: 1 }, name: UNIQUE_INDEX.recoveryRunning, unique: true, partialFilterExpression: { status: 'running' } },
    { key: { orgId: 1, env: 1, endpointId: 1, _id: -1 }, name: 'recoveries_endpoint' },
    // Running recoveries oldest first: a claim takes the first whose lease is free or expired
    // (replaces recoveries_running {status, leaseUntil}, whose claim sorted by _id in memory).
    { key: { status: 1, _id: 1 }, name: 'recoveries_running_id', partialFilterExpression: { status: 'running' } },
  ],
  // Expired tokens go by themselves (an hour after: the portal says "expired" meanwhile).
  [COLLECTIONS.portalTokens]: [{ key: { expiresAtDate: 1 }, name: 'portal_tokens_ttl', expireAfterSeconds: PORTAL_TOKEN_KEPT_AFTER_EXPIRY_MS / 1000 }],
  [COLLECTIONS.alertTargets]: [
    { key: { orgId: 1, _id: 1 }, name: 'alert_targets_org' },
    { key: { orgId: 1, env: 1, _id: 1 }, name: 'alert_targets_env' },
    // Targets with a sealed secret by id: the sealing walk's pages read no target without one.
    // orgId is a key only so the pattern is not `{ _id: 1 }` alone (see endpoints_headers). The
    // earlier `{ _id: 1 }` could never be created ("_id index cannot be a partial index": the
    // collection's createIndexes failed at start), so no server holds this name with it.
    { key: { _id: 1, orgId: 1 }, name: 'alert_targets_sealed', partialFilterExpression: { sealedSecret: { $type: 'string' } } },
  ],
  // Each organization's queued events in order; an endpoint's queued event of a kind found to collapse a repeat into it.
  [COLLECTIONS.alertEvents]: [
    { key: { orgId: 1, seq: 1 }, name: 'alert_events_org_seq' },
    { key: { endpointId: 1, kind: 1 }, name: 'alert_events_endpoint' },
  ],
  [COLLECTIONS.alertState]: [{ key: { windowEnd: 1 }, name: 'alert_state_due', partialFilterExpression: { hasPending: true } }],
  [COLLECTIONS.egressChanges]: [{ key: { at: 1, _id: 1 }, name: 'egress_changes_pending', partialFilterExpression: { done: false } }],
  // Notices with an attempt to come by organization and target (a fair claim's seeks); done ones
  // go NOTICES_KEPT_S (a week) after they were done.
  [COLLECTIONS.alertNotices]: [
    // Any notice due at all (one key): a claim with nothing due stops there, before the walk
    // below would pass every (organization, target) with notices to come.
    { key: { nextAttemptAt: 1 }, name: 'alert_notices_due', partialFilterExpression: { nextAttemptAt: { $type: 'number' } } },
    // The fair claim's walk: organizations, then targets, each with notices to come (not done).
    {
      key: { orgId: 1, targetId: 1, nextAttemptAt: 1 },
      name: 'alert_notices_org_due',
      partialFilterExpression: { nextAttemptAt: { $type: 'number' } },
    },
    { key: { doneAt: 1 }, name: 'alert_notices_done_ttl', expireAfterSeconds: NOTICES_KEPT_S },
  ],
  // A target's attempts newest first; each goes ATTEMPTS_KEPT_S (30 days) after it was made.
  [COLLECTIONS.alertNoticeAttempts]: [
    { key: { orgId: 1, targetId: 1, at: -1 }, name: 'alert_notice_attempts_target' },
    { key: { atDate: 1 }, name: 'alert_notice_attempts_ttl', expireAfterSeconds: ATTEMPTS_KEPT_S },
  ],
  // The key ring's checks oldest first (a handful: the read is in index order, no sort in memory).
  [COLLECTIONS.keyChecks]: [{ key: { createdAt: 1, _id: 1 }, name: 'sealing_key_checks_created' }],
  // Counters and idempotency keys are looked up by _id; these only remove them once over.
  [COLLECTIONS.counters]: [{ key: { expiresAt: 1 }, name: 'usage_counters_ttl', expireAfterSeconds: 0 }],
  [COLLECTIONS.idempotencyKeys]: [{ key: { expiresAt: 1 }, name: 'idempotency_keys_ttl', expireAfterSeconds: 0 }],
};

/** Indexes of earlier layouts no query hints any more, dropped at every start once the layout is this one's (dropRetiredIndexes). */
export const RETIRED_INDEXES: readonly (readonly [string, string])[] = [[COLLECTIONS.dueEndpoints, 'due_endpoints_due']];

/**
 * Drops RETIRED_INDEXES, each gone already or not: an older binary started against this database
 * makes one again (its createIndexes runs before it refuses the newer layout), and each write of
 * its collection would keep it. Called after the layout upgrade, not before: a process of the
 * older layout still running while it goes on keeps the index its sweep hints.
 */
export async function dropRetiredIndexes(db: Db): Promise<void> {
  for (const [collection, name] of RETIRED_INDEXES) {
    await db
      .collection(collection)
      .dropIndex(name)
      .catch((err: unknown) => {
        const codeName = (err as { codeName?: unknown }).codeName;
        if (codeName !== 'IndexNotFound' && codeName !== 'NamespaceNotFound') throw err;
      });
  }
}

/**
 * Creates every collection's indexes (and so the collections; the monthly families' are made
 * month by month: ensureMonths, which transactions need to
 * exist). Idempotent: an index that exists with the same definition is left alone.
 * @throws MongoServerError when an index exists under the same name with another definition.
 */
export async function ensureIndexes(db: Db): Promise<void> {
  const monthly: readonly string[] = MONTHLY;
  for (const name of Object.values(COLLECTIONS)) {
    // One collection per month, made ahead with these indexes by month-buckets.ts.
    if (monthly.includes(name)) continue;
    const indexes = INDEXES[name] ?? [];
    if (indexes.length > 0) {
      await db.collection(name).createIndexes(indexes);
      continue;
    }
    // Orgs need only their _id index, but every collection should exist before a
    // transaction writes to it. Another process may create it first.
    await db.createCollection(name).catch((err: unknown) => {
      if ((err as { code?: unknown }).code !== NAMESPACE_EXISTS) throw err;
    });
  }
}

/**
 * Creates a month's collections with their families' indexes (month-buckets.ts; the adopted
 * single collections of older layouts, layout-upgrade.ts). The same definitions again (another
 * process, a retry) change nothing.
 */
export async function ensureBucketIndexes(bucket: MonthBucket): Promise<void> {
  const collections = {
    [COLLECTIONS.messages]: bucket.messages,
    [COLLECTIONS.messageBodies]: bucket.messageBodies,
    [COLLECTIONS.deliveries]: bucket.deliveries,
    [COLLECTIONS.attempts]: bucket.attempts,
  };
  for (const family of MONTHLY) await collections[family].createIndexes([...(INDEXES[family] ?? [])]);
}
