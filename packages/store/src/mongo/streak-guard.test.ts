// The streak guard (streak-guard.ts) against a real server, where MONGODB_URL is set: an endpoint failing for more than
// 5 days, a success of its since the streak began (its clear lost) among its newest attempts or, older than those, in
// its rollups; then a failure that would disable it. The endpoint stays active, its streak begun again where
// streak-window.ts says (streak-window.test.ts holds the decision's limits without a server). Attempts and rollups are
// written straight into their collections, as completions and the rollups' flush leave them.
import { randomUUID } from 'node:crypto';
import { ManualClock, type DeliveryId, type Tenant } from '@wirehook/core';
import { MongoClient } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { Fixtures } from '../../test/contract/fixtures.ts';
import { MessageFixtures } from '../../test/contract/message-fixtures.ts';
import { claimRef } from '../ports/delivery-port.ts';
import type { Store } from '../store.ts';
import { bucketName, COLLECTIONS } from './connection.ts';
import type { AttemptDoc, EndpointRollupDoc } from './documents.ts';
import { monthOfId } from './months.ts';
import { openMongoStore } from './open-mongo-store.ts';
import { DELIVERIES_PLANS } from './plans/deliveries.ts';
import { ENDPOINTS_PLANS } from './plans/endpoints.ts';

const url = process.env['MONGODB_URL'];
const SECOND = 1_000;
const MINUTE = 60_000;
const FIVE_MINUTES = 300_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

interface Scene {
  store: Store;
  t: Tenant;
  endpointId: string;
  /** When the streak began (the endpoint's failingSince). */
  since: number;
  /** When the failure that would disable the endpoint is made: more than 5 days on. */
  later: number;
  /** Attempts of the endpoint's, written as completions leave them (500 unless `status` says). */
  attempts: (list: { at: number; status?: number }[]) => Promise<void>;
  /** A rollup of the endpoint's that counted one success. */
  rollup: (grainMs: 300_000 | 3_600_000, at: number) => Promise<void>;
  /** The failure at `later` that would disable the endpoint; @returns whether it did. */
  disabling: () => Promise<boolean>;
}

describe.skipIf(url === undefined || url === '')('MongoDB: the streak guard keeps an endpoint that succeeded since its streak began (MONGODB_URL)', () => {
  async function scene(run: (s: Scene) => Promise<void>) {
    const dbName = `wirehook_guard_${randomUUID().replaceAll('-', '')}`;
    const store = await openMongoStore({ url: url as string, dbName });
    const client = new MongoClient(url as string);
    try {
      const m = new MessageFixtures(new Fixtures(() => store, new ManualClock()));
      const { t, endpoint } = await m.scene();
      const deliveryId: DeliveryId = (await m.send(t)).deliveryIds[0]!;
      const since = m.f.clock.now();
      await store.endpoints.update(t, endpoint.id, { failingSince: since });
      const later = since + 6 * DAY;
      const db = client.db(dbName);
      await run({
        store,
        t,
        endpointId: endpoint.id,
        since,
        later,
        attempts: async (list) => {
          const docs: AttemptDoc[] = list.map(({ at, status = 500 }) => ({
            _id: `att_${randomUUID()}`,
            orgId: t.orgId,
            env: t.env,
            deliveryId,
            endpointId: endpoint.id,
            at,
            responseStatus: status,
            responseHead: null,
            durationMs: 10,
            error: null,
            via: 'direct',
            sourceIp: null,
          }));
          // In the month of the endpoint's delivery: a month the guard reads.
          await db.collection<AttemptDoc>(bucketName(COLLECTIONS.attempts, monthOfId(deliveryId))).insertMany(docs);
        },
        rollup: async (grainMs, at) => {
          await db.collection<EndpointRollupDoc>(COLLECTIONS.endpointRollups).insertOne({
            _id: `${endpoint.id}:${grainMs}:${at}`,
            orgId: t.orgId,
            env: t.env,
            endpointId: endpoint.id,
            grainMs,
            at,
            expiresAt: at + grainMs + 8 * DAY,
            attempts: 1,
            succeeded: 1,
          });
        },
        disabling: async () => {
          const job = await m.claim(deliveryId, later);
          const outcome = m.failed(job, later, later + HOUR, { disableIfFailingSince: later - 5 * DAY, disabledReason: 'failing for 5 days' });
          return (await store.deliveries.complete(claimRef(job), outcome)).endpointDisabled;
        },
      });
    } finally {
      await store.close();
      await client.db(dbName).dropDatabase();
      await client.close();
    }
  }

  /** `n` failures a second apart, the newest a second before `newest`. */
  const failuresBefore = (newest: number, n: number) => Array.from({ length: n }, (_, i) => ({ at: newest - (i + 1) * SECOND }));

  it('a success among its 64 newest attempts: active, the streak begun again at the first failure after it', async () => {
    await scene(async ({ store, t, endpointId, later, attempts, disabling }) => {
      await attempts([{ at: later - 50 * SECOND }, { at: later - 30 * SECOND, status: 204 }, { at: later - 20 * SECOND }, { at: later - 10 * SECOND }]);
      expect(await disabling()).toBe(false);
      expect(await store.endpoints.get(t, endpointId as never)).toMatchObject({ status: 'active', failingSince: later - 20 * SECOND });
    });
  });

  it('a success older than its 64 newest, counted in a five-minute rollup: active, the streak begun again at the oldest attempt read', async () => {
    await scene(async ({ store, t, endpointId, later, attempts, rollup, disabling }) => {
      const success = later - 10 * MINUTE;
      // 64 failures after it: with the disabling's own, the newest 64 reach back 63 s; the success is not among them.
      await attempts([{ at: success, status: 204 }, ...failuresBefore(later, 64)]);
      await rollup(FIVE_MINUTES, Math.floor(success / FIVE_MINUTES) * FIVE_MINUTES);
      expect(await disabling()).toBe(false);
      expect(await store.endpoints.get(t, endpointId as never)).toMatchObject({ status: 'active', failingSince: later - 63 * SECOND });
    });
  });

  it('a success older than its 64 newest, counted in an hourly rollup two days back: active, the streak begun again as well', async () => {
    await scene(async ({ store, t, endpointId, later, attempts, rollup, disabling }) => {
      const success = later - 2 * DAY;
      await attempts([{ at: success, status: 204 }, ...failuresBefore(later, 64)]);
      await rollup(HOUR, Math.floor(success / HOUR) * HOUR);
      expect(await disabling()).toBe(false);
      expect(await store.endpoints.get(t, endpointId as never)).toMatchObject({ status: 'active', failingSince: later - 63 * SECOND });
    });
  });

  it('a success only in the rollup that holds the streak’s start (it may be the one before it), or in none: disabled', async () => {
    await scene(async ({ store, t, endpointId, since, later, attempts, rollup, disabling }) => {
      await attempts(failuresBefore(later, 64));
      await rollup(HOUR, Math.floor(since / HOUR) * HOUR);
      expect(await disabling()).toBe(true);
      expect(await store.endpoints.get(t, endpointId as never)).toMatchObject({ status: 'disabled' });
    });
  });

  it('the rollups’ read (newestSucceededRollup) walks its endpoint’s range of the grain newest first: a day’s 289 at most, no sort', async () => {
    const client = new MongoClient(url as string);
    const dbName = `wirehook_rollups_${randomUUID().replaceAll('-', '')}`;
    try {
      const rollups = client.db(dbName).collection<EndpointRollupDoc>(COLLECTIONS.endpointRollups);
      await rollups.createIndex({ endpointId: 1, grainMs: 1, at: 1 }, { name: 'endpoint_rollups_endpoint' });
      const t = { orgId: 'org_1', env: 'live' } as Tenant;
      const from = Date.UTC(2026, 11, 1);
      const bucket = (endpointId: string, at: number, succeeded: number) => ({
        _id: `${endpointId}:300000:${at}`,
        ...t,
        endpointId,
        grainMs: 300_000,
        at,
        expiresAt: at + FIVE_MINUTES + DAY,
        attempts: 1,
        ...(succeeded > 0 ? { succeeded } : {}),
      });
      // A day of five-minute buckets (289 bucket starts): a success only in the oldest; a neighbour's buckets all succeeded.
      const day = Array.from({ length: 289 }, (_, i) => from + i * FIVE_MINUTES);
      await rollups.insertMany([...day.map((at, i) => bucket('ep_1', at, i === 0 ? 1 : 0)), ...day.map((at) => bucket('ep_2', at, 1))]);
      const q = ENDPOINTS_PLANS.newestSucceededRollup(t, 'ep_1', FIVE_MINUTES, from, from + DAY);
      expect(await rollups.findOne(q.filter, { ...q.options, projection: { _id: 0, at: 1 } })).toEqual({ at: from });
      const explained = await rollups.find(q.filter, q.options).limit(1).explain('executionStats');
      const text = JSON.stringify(explained);
      expect(text).toContain('"indexName":"endpoint_rollups_endpoint"');
      expect(text).not.toContain('"stage":"SORT"');
      expect(explained['executionStats']['totalDocsExamined']).toBeLessThanOrEqual(289);
      // Its newest success first: one examined when the newest bucket counted one.
      const newest = ENDPOINTS_PLANS.newestSucceededRollup(t, 'ep_2', FIVE_MINUTES, from, from + DAY);
      expect((await rollups.find(newest.filter, newest.options).limit(1).explain('executionStats'))['executionStats']['totalDocsExamined']).toBe(1);
    } finally {
      await client.db(dbName).dropDatabase();
      await client.close();
    }
  });

  it('the streak’s compare-and-set (streakRestart) matches the streak read, never another nor none', async () => {
    const client = new MongoClient(url as string);
    const dbName = `wirehook_restart_${randomUUID().replaceAll('-', '')}`;
    try {
      const endpoints = client.db(dbName).collection<{ _id: string; orgId: string; env: string; failingSince: number | null }>('endpoints');
      const t = { orgId: 'org_1', env: 'live' };
      await endpoints.insertMany([
        { _id: 'ep_read', ...t, failingSince: 100 },
        { _id: 'ep_moved', ...t, failingSince: 300 },
        { _id: 'ep_cleared', ...t, failingSince: null },
      ]);
      const restart = (id: string) => DELIVERIES_PLANS.streakRestart(t, id, 100).filter as never;
      expect((await endpoints.updateOne(restart('ep_read'), { $set: { failingSince: 200 } })).modifiedCount).toBe(1);
      expect((await endpoints.updateOne(restart('ep_moved'), { $set: { failingSince: 200 } })).matchedCount).toBe(0);
      expect((await endpoints.updateOne(restart('ep_cleared'), { $set: { failingSince: 200 } })).matchedCount).toBe(0);
      expect(await endpoints.find({}, { sort: { _id: 1 } }).toArray()).toEqual([
        { _id: 'ep_cleared', ...t, failingSince: null },
        { _id: 'ep_moved', ...t, failingSince: 300 },
        { _id: 'ep_read', ...t, failingSince: 200 },
      ]);
    } finally {
      await client.db(dbName).dropDatabase();
      await client.close();
    }
  });
});
