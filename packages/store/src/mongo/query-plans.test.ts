// Every query the store contract makes the MongoDB adapter send, explained by a real server
// against representative documents: each command must carry the name of a plan (plans/), use
// that plan's index, sort nothing in memory (a SORT stage), scan no collection (COLLSCAN) and
// examine no more documents than the plan's maxExamined allows. The contract runs with every
// command recorded as sent (filter, sort, hint, limit, projection: the whole cursor); after it,
// representative documents are added (tenants, endpoints, deliveries in every state, attempts,
// due-queue entries), and each recorded command is explained with executionStats. Runs where
// MONGODB_URL names a replica set (CI's mongodb job, which fails when it is skipped).
// What makes it fail, one mutation each: a plan whose hint is dropped and whose filter suits
// another index (index name differs); an index with its sort key reordered (SORT stage); a
// removed index (the hint fails: the command errors); a filter that leaves its index (COLLSCAN
// or docsExamined beyond the bound); a query sent without a plan (no comment); a plan sent to
// another collection than its own (plan-collections.test.ts checks that without a server).
import { randomUUID } from 'node:crypto';
import { MongoClient, type Document } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { describeStoreContract } from '../../test/contract/store-contract.ts';
import { bucketName, COLLECTIONS } from './connection.ts';
import type { EndpointRecheckDoc, EndpointWalkDoc } from './documents.ts';
import { dueEntryId } from './due-queue.ts';
import { REQUEST_WALK_BATCH } from './endpoint-walk.ts';
import { type Month, monthOf } from './months.ts';
import { openMongoStore } from './open-mongo-store.ts';
import { allPlans } from './plans/index.ts';
import { commandShape, explainedOnceKey } from './plans/query-shape.ts';
import { UPGRADE_BATCH, UPGRADE_PLANS } from './plans/upgrade.ts';

const url = process.env['MONGODB_URL'];

const QUERY_COMMANDS = new Set(['find', 'aggregate', 'count', 'update', 'delete', 'findAndModify', 'distinct']);
/** Fields of a command as sent that belong to its session or transaction, not to the query. */
const SESSION_FIELDS = [
  'lsid',
  'txnNumber',
  '$clusterTime',
  '$db',
  'autocommit',
  'startTransaction',
  'readConcern',
  'writeConcern',
  '$readPreference',
  'apiVersion',
];

/** One command of each (plan, command, collection, query shape), as sent. */
const recorded = new Map<string, { name: string; commandName: string; command: Document }>();
const unnamed: string[] = [];

function record(command: Document, commandName: string): void {
  if (!QUERY_COMMANDS.has(commandName)) return;
  // estimatedDocumentCount (a month's drop): a count without a query reads the collection's metadata.
  if (commandName === 'count' && command['query'] === undefined) return;
  const comment = command['comment'];
  if (typeof comment !== 'string') {
    const query = command['filter'] ?? command['query'] ?? command['updates'] ?? command['pipeline'] ?? '';
    unnamed.push(`${commandName} ${JSON.stringify(command[commandName])} ${JSON.stringify(query)}`.slice(0, 400));
    return;
  }
  // A bulk write of several statements is explained one statement at a time (explain takes one).
  const statements = (commandName === 'update' ? command['updates'] : commandName === 'delete' ? command['deletes'] : undefined) as Document[] | undefined;
  const each = statements === undefined ? [command] : statements.map((one) => ({ ...command, [commandName === 'update' ? 'updates' : 'deletes']: [one] }));
  for (const one of each) {
    // Each shape of a plan's query (plans/query-shape.ts): a compare-and-set's second condition, another branch's
    // `$or`, are explained too, not only the first command the plan sent.
    const key = explainedOnceKey(one, commandName);
    if (!recorded.has(key)) recorded.set(key, { name: comment, commandName, command: one });
  }
}

/** Every stage of a plan tree. */
function stages(plan: Document | undefined): Document[] {
  if (plan === undefined || plan === null) return [];
  const children = [plan['inputStage'], ...(plan['inputStages'] ?? []), plan['queryPlan']].filter((c) => c !== undefined);
  return [plan, ...children.flatMap(stages)];
}

describe.skipIf(url === undefined || url === '')('MongoDB query plans (MONGODB_URL)', () => {
  const dbName = `wirehook_plans_${randomUUID().replaceAll('-', '')}`;
  describeStoreContract(
    'mongodb (query plans)',
    async () => openMongoStore({ url: url as string, dbName, onCommand: record }),
    async (store) => store.close(),
    'server',
    { requestBatch: REQUEST_WALK_BATCH, completedFailedApart: true },
  );

  afterAll(async () => {
    const client = new MongoClient(url as string);
    await client.db(dbName).dropDatabase();
    await client.close();
  });

  it('sends every query as a named plan that uses its index, sorts nothing and examines what it declares', async () => {
    const plans = allPlans();
    const store = await openMongoStore({ url: url as string, dbName, onCommand: record });
    const client = new MongoClient(url as string);
    try {
      // The metrics' count and read, and the sweep, which the contract has no case for.
      expect(await store.deliveries.countBacklog!(Date.now())).toBe(true);
      await store.deliveries.backlog(Date.now());
      await store.deliveries.laneStats();
      await store.deliveries.due(Date.now(), 64, 8);
      // The healing that due started beside it (its plans recorded and explained too).
      await (store.deliveries as { settle?: () => Promise<void> }).settle?.();
      const db = client.db(dbName);
      const seeded = await seed(db);
      // The rechecks after a resume (held-recheck.ts), five minutes on, which the contract cannot
      // wait for, started by the walk job's read (a fresh store: its first read is not held back).
      // Three due now: a resumed endpoint's release (ep_seed0_19, paused by the seed with 24 open
      // deliveries held, made active here as its resume would); a still paused one's nothing
      // (ep_seed0_9, whose hold walk is still going: three of its open deliveries not held yet,
      // which a release recorded over that walk would leave so); a deleted one's fail. And one
      // not due for an hour, which stays.
      const deliveries = db.collection(bucketName(COLLECTIONS.deliveries, seeded.month));
      await db.collection<Document & { _id: string }>('endpoints').updateOne({ _id: 'ep_seed0_19' }, { $set: { status: 'active' } });
      // Typed as the adapter's documents: a field they gain is a type error here, not a stale test.
      await db
        .collection<EndpointWalkDoc>(COLLECTIONS.endpointWalks)
        .insertOne({ _id: 'ep_seed0_9', orgId: 'org_seed0', env: 'live', hold: 'hold', heldSince: null, failBefore: null, month: null });
      await deliveries.updateMany({ _id: { $in: ['dlv_seed0_9_1', 'dlv_seed0_9_2', 'dlv_seed0_9_5'] } } as Document, { $set: { held: false } });
      const due = Date.now() - 1_000;
      // Held since before the seed's oldest delivery: all 24 are released, none failed.
      const heldSince = seeded.now - 60_000;
      const rechecks = db.collection<EndpointRecheckDoc>(COLLECTIONS.endpointRechecks);
      const ours = ['ep_seed0_19', 'ep_seed0_9', 'ep_seed0_gone', 'ep_seed1_0'];
      await rechecks.insertMany([
        { _id: 'ep_seed0_19', orgId: 'org_seed0', env: 'live', at: due, heldSince, fail: false },
        { _id: 'ep_seed0_9', orgId: 'org_seed0', env: 'live', at: due, heldSince, fail: false },
        { _id: 'ep_seed0_gone', orgId: 'org_seed0', env: 'live', at: due, heldSince: null, fail: true },
        { _id: 'ep_seed1_0', orgId: 'org_seed1', env: 'live', at: due + 3_600_000, heldSince, fail: false },
      ]);
      const round = await store.deliveries.walkEndpoints(Date.now(), 100, 10);
      expect(round.leftForLater, 'no recheck failed').toBeUndefined();
      // The walks, to their end: a batch a round, month after month (oldest first) within it.
      let more = round.pending;
      for (let rounds = 0; more && rounds < 50; rounds++) more = (await store.deliveries.walkEndpoints(Date.now(), 100, 10)).pending;
      expect(more, 'the walks ended').toBe(false);
      // (The contract's own resumes left rechecks of their own, due later: not these.)
      const left = await rechecks.find({ _id: { $in: ours } }, { projection: { _id: 1 } }).toArray();
      expect(
        left.map((r) => r._id),
        'the due ones started, the later one left',
      ).toEqual(['ep_seed1_0']);
      const open = (endpointId: string, held: boolean) => deliveries.countDocuments({ endpointId, held, status: { $in: ['pending', 'retrying'] } });
      expect(await open('ep_seed0_19', false), 'the resumed endpoint’s held deliveries released, none failed').toBe(24);
      expect(await open('ep_seed0_9', true), 'the paused endpoint’s held, its hold walk not ended by a release').toBe(24);
      expect(
        [...recorded.values()].some((r) => r.name === 'endpoints.recheckAsRead'),
        'endpoints.recheckAsRead was sent',
      ).toBe(true);
      // The layout upgrade's hold (layouts 1–2 only: the contract never runs it), as it sends them, explained with the
      // rest: a page of a paused endpoint's open deliveries past a creation time, and the range it holds.
      const tenant = { orgId: 'org_seed0', env: 'live' };
      const bucket = bucketName(COLLECTIONS.deliveries, seeded.month);
      const page = UPGRADE_PLANS.holdPage(tenant, 'ep_seed0_9', seeded.now - 3_600_000);
      record(
        {
          find: bucket,
          filter: page.filter,
          sort: page.options.sort,
          hint: page.options.hint,
          comment: page.options.comment,
          projection: { _id: 0, createdAt: 1 },
          limit: UPGRADE_BATCH,
        },
        'find',
      );
      const newest = UPGRADE_PLANS.holdNewest(tenant, 'ep_seed0_9');
      record(
        {
          find: bucket,
          filter: newest.filter,
          sort: newest.options.sort,
          hint: newest.options.hint,
          comment: newest.options.comment,
          projection: { _id: 0, createdAt: 1 },
          limit: 1,
        },
        'find',
      );
      // Two of its open deliveries as a layout before `held` left them: the range matches some, not all.
      await deliveries.updateMany({ _id: { $in: ['dlv_seed0_9_0', 'dlv_seed0_9_1'] } } as Document, { $unset: { held: '' } });
      const range = UPGRADE_PLANS.holdRange(tenant, 'ep_seed0_9', null, seeded.now);
      const majority = { w: range.options.writeConcern?.w, wtimeout: range.options.writeConcern?.wtimeoutMS };
      record(
        {
          update: bucket,
          updates: [{ q: range.filter, u: { $set: { held: true } }, multi: true, hint: range.options.hint }],
          comment: range.options.comment,
          writeConcern: majority,
        },
        'update',
      );
      expect(unnamed, 'queries sent without a plan').toEqual([]);
      expect(recorded.size, 'the contract ran (a handful of plans would mean it did not)').toBeGreaterThan(40);
      const faults: string[] = [];
      // How many shapes each plan was sent in: a fault names the shape where there are several.
      const shapesOf = new Map<string, number>();
      for (const { name, commandName } of recorded.values()) shapesOf.set(`${name} (${commandName})`, (shapesOf.get(`${name} (${commandName})`) ?? 0) + 1);
      for (const { name, commandName, command } of recorded.values()) {
        const what =
          (shapesOf.get(`${name} (${commandName})`) ?? 0) > 1 ? `${name} (${commandName} ${commandShape(command, commandName)})` : `${name} (${commandName})`;
        const plan = plans.get(name);
        // A pinned write concern reaches the server as the plan says (a call that builds its
        // own options, or runs in a session, would drop it).
        const pinned = plan?.spec.writeConcern;
        if (pinned !== undefined) {
          const sentConcern = command['writeConcern'] as Document | undefined;
          if (sentConcern?.['w'] !== pinned.w || sentConcern?.['wtimeout'] !== pinned.wtimeoutMS) {
            faults.push(`${what}: sent with write concern ${JSON.stringify(sentConcern)}, not ${JSON.stringify(pinned)}`);
          }
        }
        if (plan === undefined) {
          faults.push(`${name}: no such plan`);
          continue;
        }
        // Its own collection, or a month's of its family (`deliveries_202611`): never another's.
        const collection = String(command[commandName]);
        if (collection !== plan.spec.collection && !new RegExp(`^${plan.spec.collection}_\\d{6}$`).test(collection)) {
          faults.push(`${what}: sent to ${collection}, a plan of ${plan.spec.collection}`);
        }
        const sent = Object.fromEntries(Object.entries(command).filter(([k]) => !SESSION_FIELDS.includes(k)));
        const explained = await db.command({ explain: sent, verbosity: 'executionStats' });
        const text = JSON.stringify(explained);
        const all = [
          ...stages(explained['queryPlanner']?.['winningPlan']),
          ...((explained['stages'] ?? []) as Document[]).flatMap((s) => stages(s['$cursor']?.['queryPlanner']?.['winningPlan'])),
        ];
        if (text.includes('"COLLSCAN"')) faults.push(`${what}: COLLSCAN`);
        if (all.some((s) => s['stage'] === 'SORT')) faults.push(`${what}: an in-memory SORT`);
        const indexes = new Set(all.map((s) => s['indexName']).filter((n) => typeof n === 'string'));
        const byId = all.some(
          (s) => s['stage'] === 'IDHACK' || s['stage'] === 'EXPRESS_IXSCAN' || s['stage'] === 'EXPRESS_UPDATE' || s['stage'] === 'EXPRESS_DELETE',
        );
        // A partial index whose filter the query does not state (a range where the index holds a
        // `$type`, say) is walked whole when hinted: bounds of [MinKey, MaxKey] on a field the query bounds.
        const filter = sentFilter(command, commandName);
        for (const scan of all.filter((st) => st['stage'] === 'IXSCAN' && st['isPartial'] === true)) {
          for (const [field, bounds] of Object.entries((scan['indexBounds'] ?? {}) as Record<string, string[]>)) {
            const bounded = filter?.[field] !== undefined && !(typeof filter[field] === 'object' && filter[field] !== null && '$exists' in filter[field]);
            if (bounded && bounds.length === 1 && bounds[0] === '[MinKey, MaxKey]') {
              faults.push(`${what}: walks ${String(scan['indexName'])} whole on ${field}, which the query bounds (its partial filter not stated?)`);
            }
          }
        }
        if (plan.spec.index === '_id_' ? !(byId || indexes.has('_id_')) : !indexes.has(plan.spec.index)) {
          faults.push(`${what}: used ${[...indexes].join(', ') || 'no index'}, not ${plan.spec.index}`);
        }
        const stats = explained['executionStats'] ?? explained['stages']?.[0]?.['$cursor']?.['executionStats'] ?? {};
        const examined = Number(stats['totalDocsExamined'] ?? 0);
        const keys = Number(stats['totalKeysExamined'] ?? 0);
        // What the query matched: a read's documents returned, a write's documents matched.
        const write = stages(stats['executionStages']).find((s) => s['nMatched'] !== undefined || s['nWouldDelete'] !== undefined);
        let returned = Math.max(Number(stats['nReturned'] ?? 0), Number(write?.['nMatched'] ?? 0), Number(write?.['nWouldDelete'] ?? 0));
        // A count (countDocuments: an aggregate ending in $group) returns one document: what it
        // matched is the count itself, read by running it.
        const pipeline = command['pipeline'] as Document[] | undefined;
        if (commandName === 'aggregate' && pipeline?.some((stage) => '$group' in stage)) {
          const [counted] = await db.collection(String(command['aggregate'])).aggregate(pipeline, { hint: command['hint'] }).toArray();
          returned = Math.max(returned, Number(counted?.['n'] ?? 0));
        }
        const bound = plan.spec.maxExamined(returned);
        if (examined > bound) faults.push(`${what}: examined ${examined} documents, more than its bound ${bound} (matched ${returned})`);
        const keyBound = plan.spec.maxKeysExamined?.(returned);
        if (keyBound !== undefined && keys > keyBound) faults.push(`${what}: examined ${keys} index keys, more than its bound ${keyBound}`);
      }
      expect(faults).toEqual([]);
    } finally {
      await store.close();
      await client.close();
    }
  });
});

/** The filter a recorded command sends: a find's, a findAndModify's, the first update's or delete's, an aggregate's first $match. */
function sentFilter(command: Document, commandName: string): Document | undefined {
  if (commandName === 'find' || commandName === 'count') return (command['filter'] ?? command['query']) as Document | undefined;
  if (commandName === 'findAndModify') return command['query'] as Document | undefined;
  if (commandName === 'update') return (command['updates'] as Document[] | undefined)?.[0]?.['q'] as Document | undefined;
  if (commandName === 'delete') return (command['deletes'] as Document[] | undefined)?.[0]?.['q'] as Document | undefined;
  if (commandName === 'aggregate') return (command['pipeline'] as Document[] | undefined)?.[0]?.['$match'] as Document | undefined;
  return undefined;
}

/**
 * Representative documents beside the contract's: 4 tenants × 25 endpoints, 40 deliveries each
 * in every state (due, leased, retrying later, held, waiting in a lane, failed, succeeded), an
 * attempt each, and due-queue entries — so an index that filters less than its plan says, or a
 * plan that walks past its page, examines visibly more than it returns. @returns when they were made, and the month they are in.
 */
async function seed(db: ReturnType<MongoClient['db']>): Promise<{ now: number; month: Month }> {
  const now = Date.now();
  // This month's collections: where the contract's own documents (made now) are too.
  const month = monthOf(now);
  const statuses = ['pending', 'retrying', 'retrying', 'failed', 'success'] as const;
  const deliveries: Document[] = [];
  const attempts: Document[] = [];
  const endpoints: Document[] = [];
  const due: Document[] = [];
  for (let o = 0; o < 4; o++) {
    const orgId = `org_seed${o}`;
    for (let e = 0; e < 25; e++) {
      const endpointId = `ep_seed${o}_${e}`;
      endpoints.push({
        _id: endpointId,
        orgId,
        env: 'live',
        consumerId: `con_seed${o}`,
        url: 'https://example.test/',
        status: e % 10 === 9 ? 'paused' : 'active',
        secrets: [],
        failingSince: e % 5 === 0 ? now - 60_000 : null,
        createdAt: now,
        fixedIp: false,
      });
      due.push({ _id: dueEntryId(month, endpointId), orgId, env: 'live', endpointId, month, dueAt: e % 3 === 0 ? now + 60_000 : now - e });
      for (let d = 0; d < 40; d++) {
        const status = statuses[d % statuses.length]!;
        const id = `dlv_seed${o}_${e}_${d}`;
        const leased = d % 7 === 0;
        deliveries.push({
          _id: id,
          orgId,
          env: 'live',
          messageId: `msg_seed${o}_${d}`,
          endpointId,
          url: 'https://example.test/',
          status,
          attemptCount: 1,
          policyAttempts: 1,
          nextAttemptAt: now - d * 1000,
          dueAt: leased ? now + 30_000 : now + (status === 'retrying' ? 60_000 : -d * 1000),
          leaseUntil: leased ? now + 30_000 : null,
          held: e % 10 === 9,
          laneWait: d % 11 === 0,
          manual: false,
          createdAt: now - d * 1000,
          lastAttemptAt: now,
        });
        attempts.push({
          _id: `att_seed${o}_${e}_${d}`,
          orgId,
          env: 'live',
          deliveryId: id,
          endpointId,
          at: now - d,
          responseStatus: 500,
          responseHead: null,
          durationMs: 10,
          error: null,
          via: 'direct',
          sourceIp: null,
        });
      }
    }
  }
  await db.collection('endpoints').insertMany(endpoints);
  await db.collection('due_endpoints').insertMany(due);
  // Each tenant's bound, its entries' least (as noteDue leaves it).
  const tenants = new Map<string, { _id: string; orgId: unknown; env: unknown; dueAt: number }>();
  for (const e of due) {
    const key = `${String(e['orgId'])}/${String(e['env'])}`;
    const seen = tenants.get(key);
    if (seen === undefined || (e['dueAt'] as number) < seen.dueAt)
      tenants.set(key, { _id: key, orgId: e['orgId'], env: e['env'], dueAt: e['dueAt'] as number });
  }
  await db.collection<{ _id: string }>('due_tenants').insertMany([...tenants.values()]);
  await db.collection(bucketName(COLLECTIONS.deliveries, month)).insertMany(deliveries);
  await db.collection(bucketName(COLLECTIONS.attempts, month)).insertMany(attempts);
  return { now, month };
}
