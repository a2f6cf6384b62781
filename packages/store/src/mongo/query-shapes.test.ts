// Every named query of the MongoDB adapter against the index it declares, without a server
// (plans/plan-check.ts says what is checked): runs in `./dev test`. query-plans.test.ts asks a
// real server the same of the same plans where MONGODB_URL is set.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Document, type IndexDescription, ObjectId } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { COLLECTIONS } from './connection.ts';
import { INDEXES } from './indexes.ts';
import { OPERATIONS_PLANS } from './plans/operations.ts';
import { DELIVERIES_PLANS } from './plans/deliveries.ts';
import { MESSAGES_PLANS } from './plans/messages.ts';
import { ALERTS_PLANS, RETRYING_COUNT_CAP } from './plans/alerts.ts';
import { ENDPOINTS_PAGE_SIZE, PENDING_RETRIES_THRESHOLDS } from '@wirehook/core';
import { ENDPOINTS_LIST_CAP } from './plans/endpoints.ts';
import { allPlans } from './plans/index.ts';
import { checkPlan } from './plans/plan-check.ts';
import { commandShape, explainedOnceKey } from './plans/query-shape.ts';
import type { AnyPlan } from './plans/plan.ts';

const plans = [...allPlans().values()] as AnyPlan[];

function problems(indexes: Readonly<Record<string, readonly IndexDescription[]>>): string[] {
  return plans.flatMap((plan) => checkPlan(plan(...plan.spec.example), plan.spec, indexes));
}

/** INDEXES with `change` applied to the index named `name`. */
function withIndex(name: string, change: (i: IndexDescription) => IndexDescription | null): Record<string, IndexDescription[]> {
  return Object.fromEntries(
    Object.entries(INDEXES).map(([collection, list]) => [collection, list.flatMap((i) => (i.name === name ? [change(i)].filter((x) => x !== null) : [i]))]),
  );
}

describe('MongoDB query shapes', () => {
  it('sends the due queue’s reads to the primary, whatever MONGODB_URL’s readPreference (they move bounds and leases)', () => {
    const reads = [
      'dueHead',
      'dueOfEndpoint',
      'nextEndpointWithWork',
      'dueTenants',
      'dueTenantsTied',
      'tenantDueEndpoints',
      'tenantDueEndpointsTied',
      'endpointStatuses',
      'walksOf',
      'messageStale',
      'healCursors',
    ] as const;
    for (const name of reads) {
      const plan = DELIVERIES_PLANS[name] as AnyPlan;
      expect([name, plan(...plan.spec.example).options.readPreference?.mode]).toEqual([name, 'primary']);
    }
    // An API read keeps the URL's choice (an operator may send those to secondaries).
    expect(MESSAGES_PLANS.byId({ orgId: 'org_1', env: 'live' } as never, 'msg_1').options.readPreference).toBeUndefined();
  });

  it('holds every named query to its declared index', () => {
    expect(plans.length).toBeGreaterThan(10);
    expect(problems(INDEXES)).toEqual([]);
  });

  it('holds a plan that examines no document to filter on its index’s keys alone (a covered count)', () => {
    // Without dueAt in deliveries_due_queue's key, the metrics' due count would read each document's.
    const withoutDueAt = withIndex('deliveries_due_queue', (i) => ({ ...i, key: Object.fromEntries(Object.entries(i.key).filter(([k]) => k !== 'dueAt')) }));
    expect(problems(withoutDueAt)).toContain('deliveries.dueCount: examines no document, yet filters on dueAt, not a key of deliveries_due_queue');
    // A key tested in a way its bounds cannot hold ($exists) is read from each document too.
    const tests = checkPlan({ ...DELIVERIES_PLANS.retrying(), filter: { status: { $exists: true } } }, DELIVERIES_PLANS.retrying.spec, INDEXES);
    expect(tests).toContain("deliveries.retrying: examines no document, yet tests status in a way deliveries_retrying's bounds cannot");
  });

  it('has an equality or a range beside a `$type` partial filter state the `$type` too: the server proves none from a comparison', () => {
    // MongoDB's isSubsetOf (expression_algo.cpp) has no rule from a comparison to a `$type`: a query
    // without it cannot use the index (hinted, it fails or walks the whole index).
    const key = MESSAGES_PLANS.idempotent({ orgId: 'org_1', env: 'live' } as never, 'key-1', 1);
    expect(key.filter['idempotencyKey']).toEqual({ $type: 'string', $eq: 'key-1' });
    const bare = { ...key, filter: { ...key.filter, idempotencyKey: 'key-1' } };
    expect(checkPlan(bare, MESSAGES_PLANS.idempotent.spec, INDEXES)).toEqual([
      'messages.idempotent: does not repeat messages_idempotency\'s partial filter on idempotencyKey ({"$type":"string"})',
    ]);
    const due = ALERTS_PLANS.nextNoticeOrg('org_1', 5);
    expect(checkPlan(due, ALERTS_PLANS.nextNoticeOrg.spec, INDEXES)).toEqual([]);
    const range = { ...due, filter: { ...due.filter, nextAttemptAt: { $lte: 5 } } };
    expect(checkPlan(range, ALERTS_PLANS.nextNoticeOrg.spec, INDEXES)).toEqual([
      'alerts.nextNoticeOrg: does not repeat alert_notices_org_due\'s partial filter on nextAttemptAt ({"$type":"number"})',
    ]);
  });

  it('lists up to one endpoint past the API’s largest page (1,000), which the API asks for to tell that another page follows', () => {
    expect(ENDPOINTS_PAGE_SIZE).toBe(1_000);
    expect(ENDPOINTS_LIST_CAP).toBe(1_001);
  });

  it('counts retrying deliveries one past the largest pending-retries threshold (10,000), so that it can be crossed', () => {
    expect(RETRYING_COUNT_CAP).toBe(10_001);
    expect(RETRYING_COUNT_CAP).toBe(Math.max(...PENDING_RETRIES_THRESHOLDS) + 1);
  });

  it('the listener janitor’s index holds listeners alone and covers the page (never an http endpoint, no document read)', () => {
    const index = INDEXES[COLLECTIONS.endpoints]!.find((i) => i.name === 'endpoints_listeners');
    expect(index?.partialFilterExpression).toEqual({ type: 'listen' });
    // The page's filter (type, _id) and projection (_id, orgId, env) are all keys of it.
    expect(Object.keys(index?.key ?? {})).toEqual(['type', '_id', 'orgId', 'env']);
  });

  it('the header sealing walk’s index holds endpoints with headers alone, walked by _id', () => {
    const index = INDEXES[COLLECTIONS.endpoints]!.find((i) => i.name === 'endpoints_headers');
    expect(index?.partialFilterExpression).toEqual({ 'headers.sealed': { $type: 'string' } });
    expect(Object.keys(index?.key ?? {})[0]).toBe('_id');
  });

  it('gives each index a key pattern of its own in its collection, never the _id index’s ({ _id: 1 } alone)', () => {
    // Plans hint by key pattern, which must name one index: a pattern two indexes share matches
    // both ("must hint by index name"). And MongoDB refuses a partial index on { _id: 1 } ("_id
    // index cannot be a partial index"): its collection's whole createIndexes fails at start.
    const faults = Object.entries(INDEXES).flatMap(([collection, list]) => {
      const seen = new Set<string>();
      return list.flatMap((i) => {
        const fields = Object.entries(i.key);
        const onId = fields.length === 1 && fields[0]![0] === '_id' && Math.abs(Number(fields[0]![1])) === 1;
        const pattern = JSON.stringify(i.key);
        const shared = seen.has(pattern);
        seen.add(pattern);
        return onId || shared ? [`${collection}.${i.name}`] : [];
      });
    });
    expect(faults).toEqual([]);
  });

  it('pins a claim to a majority in 5 s, a release and the backlog count to the primary, a plain completion to a majority in 10 s, the upgrade in 30 s', () => {
    // (A transaction has its own.)
    // One rolled back in a failover would hand what it claimed to a second claimant: a delivery
    // sent twice, an alert notice sent twice, a job or a recovery run by two holders. A release waiting for a
    // majority with no time limit (the server's default) would hang a failing upgrade's end. The
    // backlog count's lease and its write: lost, a second process counts once (backlog-read.ts).
    // The layout upgrade's batches and its record of them: a batch rolled back under a record kept
    // would leave its documents never brought up to date (plans/upgrade.ts). A completion outside a
    // transaction: a commit's majority and its 10 s, not the default's wait without end (plan.ts).
    expect(
      Object.fromEntries(
        plans
          .filter((p) => p.spec.writeConcern !== undefined)
          .map((p) => [p.planName, p.spec.writeConcern])
          .sort(([a], [b]) => String(a).localeCompare(String(b))),
      ),
    ).toEqual({
      'alerts.claimNoticeOfOrg': { w: 'majority', wtimeoutMS: 5_000 },
      'deliveries.backlogCountLease': { w: 1 },
      'deliveries.backlogCountLeaseRaise': { w: 1 },
      'deliveries.backlogCountRelease': { w: 1 },
      'deliveries.backlogSnapshotWrite': { w: 1 },
      'deliveries.claim': { w: 'majority', wtimeoutMS: 5_000 },
      'deliveries.currentUnordered': { w: 'majority', wtimeoutMS: 10_000 },
      'deliveries.healCursorMove': { w: 1 },
      'operations.jobLease': { w: 'majority', wtimeoutMS: 5_000 },
      'operations.jobLeaseRelease': { w: 1 },
      'recoveries.claimable': { w: 'majority', wtimeoutMS: 5_000 },
      'recoveries.release': { w: 1 },
      'upgrade.deliveriesBatch': { w: 'majority', wtimeoutMS: 30_000 },
      'upgrade.holdRange': { w: 'majority', wtimeoutMS: 30_000 },
      'upgrade.lanesBatch': { w: 'majority', wtimeoutMS: 30_000 },
      'upgrade.layout': { w: 'majority', wtimeoutMS: 30_000 },
      'upgrade.legacyMonth': { w: 'majority', wtimeoutMS: 30_000 },
      'upgrade.record': { w: 'majority', wtimeoutMS: 30_000 },
      'upgrade.noticesBatch': { w: 'majority', wtimeoutMS: 30_000 },
    });
    expect(DELIVERIES_PLANS.claim('dlv_1', 1).options.writeConcern).toEqual({ w: 'majority', wtimeoutMS: 5_000 });
    expect(DELIVERIES_PLANS.current({ orgId: 'org_1', env: 'live' }, 'dlv_1', 1).options).not.toHaveProperty('writeConcern');
  });

  it("takes a job's lease by _id alone (the rule is the update's: no $expr in an upsert's filter); releases only the holder's", () => {
    expect(OPERATIONS_PLANS.jobLease('retention').filter).toEqual({ _id: 'retention' });
    expect(OPERATIONS_PLANS.jobLeaseRelease('retention', 'h1').filter).toEqual({ _id: 'retention', holder: 'h1' });
  });

  it('keeps the portal tokens’ TTL at 3,600 s: an index an existing database has cannot change its options in place', () => {
    // createIndexes of the same name with another expireAfterSeconds fails every start (IndexOptionsConflict): changing
    // PORTAL_TOKEN_KEPT_AFTER_EXPIRY_MS needs a collMod of portal_tokens_ttl first (packages/core/src/limits.ts says why).
    const ttl = INDEXES[COLLECTIONS.portalTokens]?.find((i) => i.name === 'portal_tokens_ttl');
    expect(ttl?.expireAfterSeconds).toBe(3_600);
  });

  it('uses every index that is not there for uniqueness or expiry', () => {
    const used = new Set(plans.map((p) => `${p.spec.collection}.${p.spec.index}`));
    const unused = Object.entries(INDEXES).flatMap(([collection, list]) =>
      list.filter((i) => i.unique !== true && i.expireAfterSeconds === undefined && !used.has(`${collection}.${i.name}`)).map((i) => `${collection}.${i.name}`),
    );
    expect(unused, 'an index no query uses costs every write and serves no read').toEqual([]);
  });

  // The check can fail: each index a plan names, removed or with its keys reversed, fails it.
  const named = [...new Set(plans.map((p) => p.spec.index).filter((i) => i !== '_id_'))];
  it.each(named)('fails when %s is removed', (name) => {
    expect(problems(withIndex(name, () => null)).join('\n')).toContain(`no index ${name}`);
  });
  // Reordering matters where a plan sorts or bounds a range on the index (an index of equality
  // fields only answers in any order, and the check rightly lets that pass).
  const ordered = named.filter(
    (name) =>
      Object.keys(
        Object.values(INDEXES)
          .flat()
          .find((i) => i.name === name)!.key,
      ).length > 1 &&
      plans.some((p) => {
        if (p.spec.index !== name) return false;
        const sent = p(...p.spec.example);
        return (
          sent.sort !== undefined ||
          Object.values(sent.filter).some(
            (c) => c !== null && typeof c === 'object' && Object.keys(c).some((op) => ['$gt', '$gte', '$lt', '$lte'].includes(op)),
          )
        );
      }),
  );
  it.each(ordered)('fails when the keys of %s are reordered', (name) => {
    const reversed = withIndex(name, (i) => ({ ...i, key: Object.fromEntries(Object.entries(i.key).reverse()) }));
    expect(problems(reversed).length).toBeGreaterThan(problems(INDEXES).length);
  });

  it('sends every query of the adapter as a named plan', () => {
    // A call on a collection whose first argument is not a plan's filter or pipeline is a query
    // nobody checked. (Inserts need no plan: they read nothing.)
    const dir = import.meta.dirname;
    // `conn.endpoints.find(`, `bucket.deliveries.find(`, `conn.bucketOf(id).messages.findOne(`,
    // a destructured `deliveries.find(` …: any collection of the connection or of a month's
    // bucket, by its property name.
    const collection = Object.keys(COLLECTIONS).join('|');
    const call = new RegExp(
      `(?<![\\w$#])(${collection})\\s*\\.\\s*` +
        '(find|findOne|countDocuments|updateOne|updateMany|findOneAndUpdate|findOneAndDelete|replaceOne|deleteOne|deleteMany|aggregate|distinct|bulkWrite)' +
        '\\s*(?:<[^>]*>)?\\s*\\(\\s*([^,)]*)',
      'g',
    );
    const unplanned: string[] = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
      const text = readFileSync(join(dir, file), 'utf8');
      for (const m of text.matchAll(call)) {
        const first = m[3]!.trim();
        if (m[2] === 'bulkWrite' || /^[\w.#]+\.(filter|pipeline)!?$/.test(first)) continue;
        unplanned.push(`${file}:${text.slice(0, m.index).split('\n').length} ${m[1]}.${m[2]}(${first})`);
      }
    }
    expect(unplanned).toEqual([]);
  });
});

describe('a command’s query shape (what query-plans.test.ts explains once)', () => {
  const find = (filter: Document, extra: Document = {}) => commandShape({ find: 'deliveries_202612', filter, comment: 'p', ...extra }, 'find');

  it('is one for commands that differ in values alone: ids, times, an $in’s length, an $or’s number of like clauses', () => {
    const at = new Date(Date.UTC(2026, 11, 7));
    expect(find({ orgId: 'o1', dueAt: { $lte: 5 }, _id: { $in: ['a'] } })).toBe(find({ _id: { $in: ['b', 'c', 'd'] }, dueAt: { $lte: at }, orgId: 'o2' }));
    const tenant = (orgId: string) => ({ orgId, env: 'live' });
    expect(find({ $or: [tenant('a')] })).toBe(find({ $or: [tenant('b'), tenant('c'), tenant('d')] }));
    expect(find({ _id: new ObjectId() })).toBe(find({ _id: 'dlv_1' }));
  });

  it('is another for another condition, another kind of $or clause, a sort, a hint, or an update that is multi or an upsert', () => {
    const base = find({ _id: 'e1', status: 'active' });
    // A compare-and-set's second condition.
    expect(find({ _id: 'e1', status: 'active', failingSince: null })).not.toBe(base);
    // An operator for an equality.
    expect(find({ _id: 'e1', status: { $in: ['active'] } })).not.toBe(base);
    expect(find({ $or: [{ orgId: 'a' }] })).not.toBe(find({ $or: [{ orgId: 'a' }, { endpointId: 'e' }] }));
    expect(find({ _id: 'e1', status: 'active' }, { sort: { at: -1 } })).not.toBe(base);
    expect(find({ _id: 'e1', status: 'active' }, { hint: 'due' })).not.toBe(base);
    const update = (statement: Document) =>
      commandShape({ update: 'endpoints', updates: [{ q: { _id: 'e1' }, u: { $set: { a: 1 } }, ...statement }] }, 'update');
    expect(update({ multi: true })).not.toBe(update({}));
    expect(update({ upsert: true })).not.toBe(update({}));
    // What an update writes is not its query's shape.
    expect(commandShape({ update: 'endpoints', updates: [{ q: { _id: 'e1' }, u: { $set: { b: 2 } } }] }, 'update')).toBe(update({}));
  });

  it('keys what is explained once by plan, command, collection and shape: a compare-and-set’s second shape explained too', () => {
    const cas = (q: Document, comment = 'deliveries.dueEndpoint') => explainedOnceKey({ update: 'dueEndpoints', updates: [{ q, u: {} }], comment }, 'update');
    expect(cas({ _id: 'a' })).toBe(cas({ _id: 'b' }));
    expect(cas({ _id: 'a', dueAt: 5 })).not.toBe(cas({ _id: 'a' }));
    expect(cas({ _id: 'a' }, 'deliveries.other')).not.toBe(cas({ _id: 'a' }));
    const inMonth = (month: string) => explainedOnceKey({ find: `deliveries_${month}`, filter: { _id: 'd' }, comment: 'p' }, 'find');
    expect(inMonth('202611')).not.toBe(inMonth('202612'));
  });

  it('reads an aggregate’s pipeline, stage by stage, a $sort’s keys and directions with it', () => {
    const agg = (pipeline: Document[]) => commandShape({ aggregate: 'deliveries_202612', pipeline, cursor: {} }, 'aggregate');
    expect(agg([{ $match: { orgId: 'a' } }, { $limit: 5 }])).toBe(agg([{ $match: { orgId: 'b' } }, { $limit: 100 }]));
    expect(agg([{ $match: { orgId: 'a' } }, { $limit: 5 }])).not.toBe(agg([{ $match: { orgId: 'a' } }, { $skip: 5 }]));
    expect(agg([{ $match: { orgId: 'a' } }, { $sort: { at: 1 } }])).not.toBe(agg([{ $match: { orgId: 'a' } }, { $sort: { at: -1 } }]));
  });

  it('reads a sort as the driver sends it (a Map), a projection, and whether a limit was given', () => {
    const sorted = (sort: Map<string, number>) => find({ endpointId: 'e' }, { sort });
    expect(sorted(new Map([['at', -1]]))).not.toBe(sorted(new Map([['dueAt', 1]])));
    expect(sorted(new Map([['at', -1]]))).toBe(sorted(new Map([['at', -1]])));
    expect(find({ endpointId: 'e' }, { projection: { _id: 0, at: 1 } })).not.toBe(find({ endpointId: 'e' }, { projection: { status: 1 } }));
    expect(find({ endpointId: 'e' }, { limit: 1 })).toBe(find({ endpointId: 'f' }, { limit: 64 }));
    expect(find({ endpointId: 'e' }, { limit: 1 })).not.toBe(find({ endpointId: 'e' }));
  });

  it('takes bytes and regexes as values, and keeps the fields an $expr compares', () => {
    expect(find({ key: Buffer.from('ab') })).toBe(find({ key: Buffer.from('abcdef') }));
    expect(find({ url: /^https:/ })).toBe(find({ url: /^http:/ }));
    const expr = (a: string, b: string) => find({ _id: 'd1', $expr: { $lt: [a, b] } });
    expect(expr('$leaseUntil', '$dueAt')).toBe(expr('$leaseUntil', '$dueAt'));
    expect(expr('$leaseUntil', '$dueAt')).not.toBe(expr('$attemptCount', '$policyAttempts'));
  });
});
