// Every query the store contract makes the MongoDB adapter run, checked with explain(): none
// may scan a whole collection (COLLSCAN) — the MongoDB counterpart of the SQLite adapter's
// query-plans.test.ts. The contract runs against one database while every find, count,
// update, delete and aggregate is recorded (filter, sort); the plans are then asked of a
// second database with the same indexes (explain is refused inside a transaction, where
// most of these ran). Runs where MONGODB_URL names a replica set (CI's mongodb job, which
// fails when it is skipped), like the contract.
import { randomUUID } from 'node:crypto';
import { Collection, MongoClient, type Document } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { describeStoreContract } from '../../test/contract/store-contract.ts';
import { openMongoStore } from './open-mongo-store.ts';

const url = process.env['MONGODB_URL'];

/** One query as the adapter issued it. */
interface Recorded {
  collection: string;
  kind: 'find' | 'count' | 'update' | 'delete' | 'aggregate';
  filter: Document;
  sort?: Document;
  pipeline?: Document[];
}

/**
 * Queries that may read a collection whole, with why. Run once at a start (leases of a process
 * that is gone), or over collections that hold one document per organization or less.
 */
const ALLOWED: { collection: string; why: string; matches: (r: Recorded) => boolean }[] = [
  {
    collection: 'deliveries',
    why: 'releaseAll: once at an embedded start, when no other dispatcher can hold a lease',
    matches: (r) => r.kind === 'update' && JSON.stringify(r.filter) === '{"leaseUntil":{"$ne":null}}',
  },
  {
    collection: 'recoveries',
    why: 'releaseAll of recoveries: once at an embedded start',
    matches: (r) => r.kind === 'update' && JSON.stringify(r.filter) === '{"leaseUntil":{"$ne":null}}',
  },
];
/**
 * Collections that hold a few documents per organization (or for the installation) at most: a
 * scan of one reads no traffic. egress_changes: one document per change of the fixed IP pool.
 */
const SMALL = new Set(['orgs', 'sealing_key_checks', 'alert_conditions', 'event_types', 'egress_ips', 'egress_changes']);

const recorded = new Map<string, Recorded>();
function record(r: Recorded): void {
  const key = JSON.stringify([r.collection, r.kind, shape(r.filter), r.sort ?? null, r.pipeline?.map((s) => Object.keys(s)[0]) ?? null]);
  if (!recorded.has(key)) recorded.set(key, r);
}

/** A filter with its values left out, so one query of many values is checked once. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shape(value[0])];
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k.startsWith('$') || typeof v === 'object' ? shape(v) : typeof v]));
  }
  return typeof value;
}

const proto = Collection.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
const originals = new Map<string, (...args: unknown[]) => unknown>();
function spy(method: string, kind: Recorded['kind'], describeCall: (args: unknown[]) => Pick<Recorded, 'filter' | 'sort' | 'pipeline'>): void {
  const original = proto[method]!;
  originals.set(method, original);
  proto[method] = function (this: Collection, ...args: unknown[]) {
    record({ collection: this.collectionName, kind, ...describeCall(args) });
    return original.apply(this, args);
  };
}
const options = (args: unknown[], at: number) => (args[at] ?? {}) as { sort?: Document };
spy('find', 'find', (a) => ({ filter: (a[0] ?? {}) as Document, ...(options(a, 1).sort ? { sort: options(a, 1).sort } : {}) }));
spy('findOne', 'find', (a) => ({ filter: (a[0] ?? {}) as Document, ...(options(a, 1).sort ? { sort: options(a, 1).sort } : {}) }));
spy('countDocuments', 'count', (a) => ({ filter: (a[0] ?? {}) as Document }));
for (const m of ['updateOne', 'updateMany', 'findOneAndUpdate', 'replaceOne']) spy(m, 'update', (a) => ({ filter: a[0] as Document }));
for (const m of ['deleteOne', 'deleteMany', 'findOneAndDelete']) spy(m, 'delete', (a) => ({ filter: a[0] as Document }));
spy('aggregate', 'aggregate', (a) => ({ filter: {}, pipeline: (a[0] ?? []) as Document[] }));

describe.skipIf(url === undefined || url === '')('MongoDB query plans (MONGODB_URL)', () => {
  const dbName = `wirehook_plans_${randomUUID().replaceAll('-', '')}`;
  describeStoreContract('mongodb (query plans)', async () => openMongoStore({ url: url as string, dbName }));

  afterAll(async () => {
    for (const [method, original] of originals) proto[method] = original;
  });

  it('scans no collection whole in any query the contract runs', async () => {
    const plansDb = `${dbName}_explain`;
    const store = await openMongoStore({ url: url as string, dbName: plansDb });
    const client = new MongoClient(url as string);
    try {
      // The metrics' and alerting's reads, which the contract has no case for.
      await store.deliveries.backlog(Date.now());
      await store.alerts.retryingCounts(1);
      await store.deliveries.laneStats();
      const db = client.db(plansDb);
      const scans: string[] = [];
      const queries = [...recorded.values()].filter((r) => !SMALL.has(r.collection) && !ALLOWED.some((a) => a.collection === r.collection && a.matches(r)));
      expect(queries.length, 'the contract ran (a handful of queries would mean it did not)').toBeGreaterThan(50);
      for (const r of queries) {
        const collection = db.collection(r.collection);
        const explained =
          r.kind === 'aggregate'
            ? await collection.aggregate(r.pipeline ?? []).explain('queryPlanner')
            : await collection.find(r.filter, r.sort ? { sort: r.sort } : {}).explain('queryPlanner');
        if (JSON.stringify(explained).includes('"COLLSCAN"'))
          scans.push(`${r.collection} ${r.kind} ${JSON.stringify(r.filter)}${r.pipeline ? ` ${JSON.stringify(r.pipeline)}` : ''}`);
      }
      expect(scans).toEqual([]);
    } finally {
      await store.close();
      await client.db(plansDb).dropDatabase();
      await client.db(dbName).dropDatabase();
      await client.close();
    }
  });
});
