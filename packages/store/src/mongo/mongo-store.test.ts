import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { ENDPOINT_WALK_BATCH, ManualClock, type DeliveryId, type OrgId, type Tenant } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { Fixtures } from '../../test/contract/fixtures.ts';
import { MessageFixtures } from '../../test/contract/message-fixtures.ts';
import { describeStoreContract } from '../../test/contract/store-contract.ts';
import { claimRef } from '../ports/delivery-port.ts';
import type { Store } from '../store.ts';
import { bucketName, COLLECTIONS } from './connection.ts';
import { DELIVERIES_PLANS } from './plans/deliveries.ts';
import { HELD_RECHECK_MS } from './held-recheck.ts';
import { REQUEST_WALK_BATCH } from './endpoint-walk.ts';
import { monthOfId } from './months.ts';
import { mongoClientOptions, openMongoStore } from './open-mongo-store.ts';

// The contract runs only where a MongoDB replica set is reachable (MONGODB_URL, as in
// .github/workflows/ci.yml); without one it is reported as skipped, never as passed.
const url = process.env['MONGODB_URL'];

describe.skipIf(url === undefined || url === '')('MongoDB store (MONGODB_URL)', () => {
  // Each run gets a database of its own, dropped after.
  const dbName = `wirehook_contract_${randomUUID().replaceAll('-', '')}`;
  describeStoreContract(
    'mongodb',
    async () => openMongoStore({ url: url as string, dbName }),
    async (store: Store) => {
      await store.close();
      const client = new MongoClient(url as string);
      try {
        await client.db(dbName).dropDatabase();
      } finally {
        await client.close();
      }
    },
    'server',
    { requestBatch: REQUEST_WALK_BATCH, completedFailedApart: true },
  );
});

describe.skipIf(url === undefined || url === '')('MongoDB alert conditions from before they were per environment (MONGODB_URL)', () => {
  it("an organization's old document stands for each environment until that environment's own is written", async () => {
    const dbName = `wirehook_conditions_${randomUUID().replaceAll('-', '')}`;
    const store = await openMongoStore({ url: url as string, dbName });
    const client = new MongoClient(url as string);
    try {
      const chosen = { delivery_failure: '5m', automatic_stop: false, pending_retries: 100, usage: 50 } as const;
      // As written before conditions were per environment: one document per organization, `_id` the org id.
      await client
        .db(dbName)
        .collection<{ _id: string; conditions: unknown; updatedAt: number }>('alert_conditions')
        .insertOne({ _id: 'org_old', conditions: chosen, updatedAt: 1 });
      const live: Tenant = { orgId: 'org_old' as OrgId, env: 'live' };
      const test: Tenant = { orgId: 'org_old' as OrgId, env: 'test' };
      expect(await store.alerts.conditions(live)).toEqual(chosen);
      expect(await store.alerts.conditions(test)).toEqual(chosen);
      await store.alerts.setConditions(test, { ...chosen, automatic_stop: true }, 2);
      expect(await store.alerts.conditions(test)).toEqual({ ...chosen, automatic_stop: true });
      expect(await store.alerts.conditions(live)).toEqual(chosen);
    } finally {
      await store.close();
      await client.db(dbName).dropDatabase();
      await client.close();
    }
  });
});

describe.skipIf(url === undefined || url === '')("MongoDB: a resume's or delete's walk runs again (MONGODB_URL)", () => {
  // A send whose transaction read the endpoint paused and commits after the resume's (or
  // delete's) walk went past leaves its delivery held. The race itself needs a send held open
  // across a commit; here its outcome is written as it would land (held: true, open), after the
  // walk. Rechecks are due by the real clock (held-recheck.ts): the test moves a recheck's time
  // into the past, as five minutes would, and each round passes the job's once-a-second read.
  interface Scene {
    store: Store;
    m: MessageFixtures;
    t: Tenant;
    endpointId: string;
    late: (id: DeliveryId) => Promise<void>;
    recheckAt: () => Promise<number | undefined>;
    fiveMinutesOn: () => Promise<void>;
    drain: () => Promise<void>;
  }
  async function scene(run: (s: Scene) => Promise<void>) {
    const dbName = `wirehook_recheck_${randomUUID().replaceAll('-', '')}`;
    const store = await openMongoStore({ url: url as string, dbName });
    const client = new MongoClient(url as string);
    try {
      const f = new Fixtures(() => store, new ManualClock());
      const m = new MessageFixtures(f);
      const { t, endpoint } = await m.scene();
      const rechecks = client.db(dbName).collection<{ _id: string; at: number }>(COLLECTIONS.endpointRechecks);
      const late = async (id: DeliveryId) => {
        const deliveries = client.db(dbName).collection<{ _id: string }>(bucketName(COLLECTIONS.deliveries, monthOfId(id)));
        const done = await deliveries.updateOne({ _id: id }, { $set: { status: 'pending', held: true, nextAttemptAt: 0, dueAt: 0, leaseUntil: null } });
        expect(done.matchedCount).toBe(1);
      };
      let round = 0;
      await run({
        store,
        m,
        t,
        endpointId: endpoint.id,
        late,
        recheckAt: async () => (await rechecks.findOne({ _id: endpoint.id }))?.at,
        fiveMinutesOn: async () => {
          expect((await rechecks.updateOne({ _id: endpoint.id }, { $inc: { at: -HELD_RECHECK_MS } })).matchedCount).toBe(1);
        },
        // Each round a second on by the job's clock, so its read of the rechecks due is not skipped.
        drain: async () => {
          round++;
          while ((await store.deliveries.walkEndpoints(m.f.clock.now() + round * 1_000, ENDPOINT_WALK_BATCH, 16)).pending);
        },
      });
    } finally {
      await store.close();
      await client.db(dbName).dropDatabase();
      await client.close();
    }
  }

  it("a delivery held after the resume's walk is released by the walk run again five minutes on, not before", async () => {
    await scene(async ({ store, m, t, endpointId, late, recheckAt, fiveMinutesOn, drain }) => {
      await store.endpoints.update(t, endpointId as never, { status: 'paused', changedAt: m.f.clock.now() });
      const [id] = (await m.send(t)).deliveryIds;
      const resumedAt = Date.now();
      await store.endpoints.update(t, endpointId as never, { status: 'active', changedAt: m.f.clock.now(), releaseHeldSince: 0 });
      expect(await recheckAt()).toBeGreaterThanOrEqual(resumedAt + HELD_RECHECK_MS);
      await drain();
      expect(await m.dueOf(Date.now() + HELD_RECHECK_MS, [id!])).toEqual([id]); // released by the resume's walk
      await late(id!);
      await drain(); // within the five minutes: the recheck waits, the delivery stays held
      expect(await recheckAt()).toBeDefined();
      expect(await m.dueOf(Date.now() + HELD_RECHECK_MS, [id!])).toEqual([]);
      await fiveMinutesOn();
      await drain();
      expect(await recheckAt()).toBeUndefined();
      expect(await m.dueOf(Date.now() + HELD_RECHECK_MS, [id!])).toEqual([id]);
    });
  });

  it("a delivery held after the resume's walk, its endpoint deleted since (active), is failed by the walk run again", async () => {
    await scene(async ({ store, m, t, endpointId, late, fiveMinutesOn, drain }) => {
      await store.endpoints.update(t, endpointId as never, { status: 'paused', changedAt: m.f.clock.now() });
      const [id] = (await m.send(t)).deliveryIds;
      await store.endpoints.update(t, endpointId as never, { status: 'active', changedAt: m.f.clock.now(), releaseHeldSince: 0 });
      expect(await store.endpoints.delete(t, endpointId as never)).toBe(true);
      await drain();
      expect((await m.delivery(t, id!)).status).toBe('failed');
      await late(id!);
      await fiveMinutesOn();
      await drain();
      expect((await m.delivery(t, id!)).status).toBe('failed');
    });
  });

  it("a delivery left open after a paused endpoint's delete is failed by the walk run again", async () => {
    await scene(async ({ store, m, t, endpointId, late, fiveMinutesOn, drain }) => {
      await store.endpoints.update(t, endpointId as never, { status: 'paused', changedAt: m.f.clock.now() });
      const [id] = (await m.send(t)).deliveryIds;
      expect(await store.endpoints.delete(t, endpointId as never)).toBe(true);
      await drain();
      expect((await m.delivery(t, id!)).status).toBe('failed');
      await late(id!);
      await drain();
      expect((await m.delivery(t, id!)).status).toBe('pending');
      await fiveMinutesOn();
      await drain();
      expect((await m.delivery(t, id!)).status).toBe('failed');
    });
  });
});

describe.skipIf(url === undefined || url === '')('MongoDB: a plain completion commits no transaction (MONGODB_URL)', () => {
  // What the server was sent during each completion (delivery-complete.ts): a plain one is its attempt's insert and its
  // delivery's findAndModify, outside any transaction; one that ends a streak, a transaction as before.
  async function scene(run: (s: { store: Store; m: MessageFixtures; t: Tenant; endpointId: string; sent: () => string[] }) => Promise<void>) {
    const dbName = `wirehook_plain_${randomUUID().replaceAll('-', '')}`;
    const commands: string[] = [];
    const store = await openMongoStore({
      url: url as string,
      dbName,
      onCommand: (command, name) => commands.push(command['autocommit'] === false ? `${name} (txn)` : name),
    });
    try {
      const f = new Fixtures(() => store, new ManualClock());
      const m = new MessageFixtures(f);
      const { t, endpoint } = await m.scene();
      await run({ store, m, t, endpointId: endpoint.id, sent: () => commands.splice(0) });
    } finally {
      await store.close();
      const client = new MongoClient(url as string);
      await client.db(dbName).dropDatabase();
      await client.close();
    }
  }

  it('a success of an endpoint not failing: the attempt and the delivery written, no transaction; one ending a streak none either', async () => {
    await scene(async ({ store, m, t, endpointId, sent }) => {
      const [first, second] = [(await m.send(t)).deliveryIds[0]!, (await m.send(t)).deliveryIds[0]!];
      const job = await m.claim(first);
      sent();
      expect(await store.deliveries.complete(claimRef(job), m.succeeded(job, m.f.clock.now()))).toEqual({ applied: true, endpointDisabled: false });
      const plain = sent();
      expect(plain).toContain('insert');
      expect(plain).toContain('findAndModify');
      expect(plain.filter((c) => c.endsWith('(txn)') || c.startsWith('commitTransaction'))).toEqual([]);
      expect(await m.delivery(t, first)).toMatchObject({ status: 'success', attemptCount: 1 });
      expect((await store.deliveries.attempts(t, first, { limit: 10 }))?.attempts).toHaveLength(1);

      await store.endpoints.update(t, endpointId as never, { failingSince: m.f.clock.now() - 60_000 });
      const again = await m.claim(second);
      sent();
      await store.deliveries.complete(claimRef(again), m.succeeded(again, m.f.clock.now()));
      // The streak cleared by a write of its own after the delivery's (delivery-complete.ts, moveStreak).
      expect(sent().filter((c) => c.endsWith('(txn)') || c.startsWith('commitTransaction'))).toEqual([]);
      expect((await store.endpoints.get(t, endpointId as never))?.failingSince ?? null).toBeNull();
      expect((await store.deliveries.attempts(t, second, { limit: 10 }))?.attempts).toHaveLength(1);
    });
  });

  it('a success whose streak clear was lost is found before the next failure disables the endpoint (streak-guard.ts)', async () => {
    await scene(async ({ store, m, t, endpointId }) => {
      const [d1, d2, d3] = [(await m.send(t)).deliveryIds[0]!, (await m.send(t)).deliveryIds[0]!, (await m.send(t)).deliveryIds[0]!];
      const t0 = m.f.clock.now();
      const first = await m.claim(d1, t0);
      await store.deliveries.complete(claimRef(first), m.failed(first, t0, t0 + 3_600_000));
      expect((await store.endpoints.get(t, endpointId as never))?.failingSince).toBe(t0);
      const DAY = 86_400_000;
      const worked = t0 + 6 * DAY - 60_000;
      const success = await m.claim(d2, worked);
      await store.deliveries.complete(claimRef(success), m.succeeded(success, worked));
      // Its clear lost (refused in an overload, or a failure's start written behind it): the streak back as it was.
      await store.endpoints.update(t, endpointId as never, { failingSince: t0 });
      const later = t0 + 6 * DAY;
      const third = await m.claim(d3, later);
      const disabling = { disableIfFailingSince: later - 5 * DAY, disabledReason: 'failing for 5 days' };
      expect(await store.deliveries.complete(claimRef(third), m.failed(third, later, later + 3_600_000, disabling))).toEqual({
        applied: true,
        endpointDisabled: false,
      });
      expect(await store.endpoints.get(t, endpointId as never)).toMatchObject({ status: 'active', failingSince: later });
    });
  });
});

describe('openMongoStore', () => {
  it('rejects quickly with a clear error when the server cannot be reached', async () => {
    const started = performance.now();
    const opening = openMongoStore({ url: 'mongodb://wirehook:s3cret@127.0.0.1:1/?serverSelectionTimeoutMS=500' });
    const err: unknown = await opening.then(
      () => expect.fail('openMongoStore resolved for an unreachable server'),
      (e: unknown) => e,
    );
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(err).toBeInstanceOf(Error);
    // Names the server, leaves the password out.
    expect((err as Error).message).toMatch(/^cannot connect to MongoDB at mongodb:\/\/…@127\.0\.0\.1:1\//);
    expect((err as Error).message).not.toContain('s3cret');
  });

  it("waits poolWaitMs for a pooled connection unless the URL sets its own wait (in any case, 0 for none); the driver's default else", () => {
    const waitOf = (url: string, poolWaitMs?: number) =>
      new MongoClient(url, mongoClientOptions({ url, ...(poolWaitMs === undefined ? {} : { poolWaitMs }) })).options.waitQueueTimeoutMS;
    expect(waitOf('mongodb://db-0:27017/wirehook?replicaSet=rs0', 10_000)).toBe(10_000);
    expect(waitOf('mongodb://db-0:27017/wirehook', 10_000)).toBe(10_000);
    expect(waitOf('mongodb://db-0:27017/wirehook?replicaSet=rs0&waitQueueTimeoutMS=2500', 10_000)).toBe(2_500);
    expect(waitOf('mongodb://db-0:27017/?waitqueuetimeoutms=0', 10_000)).toBe(0);
    expect(waitOf('mongodb://db-0:27017/wirehook?replicaSet=rs0')).toBe(0); // the driver's: no limit
    expect(waitOf('mongodb://db-0:27017/wirehook?replicaSet=rs0#&waitQueueTimeoutMS=5', 10_000)).toBe(10_000); // a fragment is no option
  });
});

describe.skipIf(url === undefined || url === '')('MongoDB: the compare-and-set filters as the server reads them (MONGODB_URL)', () => {
  it("a due entry's count absent matches $exists: false and $inc makes it; a streak's end matches a number at or before it, never null", async () => {
    const client = new MongoClient(url as string);
    const dbName = `wirehook_filters_${randomUUID().replaceAll('-', '')}`;
    try {
      const entries = client.db(dbName).collection<{ _id: string; dueAt: number; seq?: number }>('due_endpoints');
      await entries.insertOne({ _id: '202612:ep_1', dueAt: 5 });
      const take = (seq: number | null) => DELIVERIES_PLANS.dueEndpoint('202612:ep_1', 5, seq).filter as never;
      expect((await entries.updateOne(take(null), { $set: { dueAt: 5 }, $inc: { seq: 1 } })).modifiedCount).toBe(1);
      expect(await entries.findOne({ _id: '202612:ep_1' })).toEqual({ _id: '202612:ep_1', dueAt: 5, seq: 1 });
      // Moved back to the value read (5), but counted: a compare-and-set from the count read before fails.
      expect((await entries.updateOne(take(null), { $set: { dueAt: 9 } })).matchedCount).toBe(0);
      expect((await entries.updateOne(take(1), { $set: { dueAt: 9 }, $inc: { seq: 1 } })).modifiedCount).toBe(1);
      const endpoints = client.db(dbName).collection<{ _id: string; orgId: string; env: string; failingSince: number | null }>('endpoints');
      const t = { orgId: 'org_1', env: 'live' };
      await endpoints.insertMany([
        { _id: 'ep_null', ...t, failingSince: null },
        { _id: 'ep_old', ...t, failingSince: 100 },
        { _id: 'ep_new', ...t, failingSince: 300 },
      ]);
      const end = (id: string) => DELIVERIES_PLANS.streakEnd(t, id, 200).filter as never;
      expect((await endpoints.updateOne(end('ep_null'), { $set: { failingSince: null } })).matchedCount).toBe(0);
      expect((await endpoints.updateOne(end('ep_old'), { $set: { failingSince: null } })).matchedCount).toBe(1);
      expect((await endpoints.updateOne(end('ep_new'), { $set: { failingSince: null } })).matchedCount).toBe(0);
    } finally {
      await client.db(dbName).dropDatabase();
      await client.close();
    }
  });
});
