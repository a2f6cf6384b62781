// Usage counters' give-backs without a server: a stand-in `counters` collection that keeps the
// shards in a Map and fails the calls a test tells it to, with the driver's own error classes.
import { PlanLimitError } from '@wirehook/core';
import { createRequire } from 'node:module';
import { MongoNetworkError, MongoServerError } from 'mongodb';
import { describe, expect, it, vi } from 'vitest';
import type { UsageCounter } from '../ports/message-port.ts';
import type { MongoConnection } from './connection.ts';
import { createMessage, readCounters } from './message-create.ts';
import { monthOf } from './months.ts';
import { giveBack, OWED_MAX, takeCounts } from './usage-counters.ts';
import { aSend } from '../../test/mongo/send-input.ts';

const poolErrors = createRequire(import.meta.url)('mongodb/lib/cmap/errors.js') as Record<string, new (...args: unknown[]) => Error>;
const poolTimeout = () => new poolErrors['WaitQueueTimeoutError']!('Timed out while checking out a connection from connection pool', 'db-0:27017');
const lost = () => new MongoNetworkError('connection 4 to db-0:27017 closed');

const NOW = Date.UTC(2026, 11, 2);
const MONTH: UsageCounter = { key: 'live:org_1:2026-12', limit: 3, increment: true, expiresAt: Date.UTC(2027, 1, 1) };

/** Shards by id, their value; `fail` answers the next calls of a kind with an error instead (null: that call passes). */
function countersOf() {
  const shards = new Map<string, number>();
  const fail = { increment: [] as ((() => Error) | null)[], read: [] as (() => Error)[], giveBack: [] as (() => Error)[] };
  const calls = { giveBacks: 0, given: [] as string[], hold: null as Promise<void> | null };
  const counters = {
    updateOne: async (filter: { _id: string }, update: unknown) => {
      if (Array.isArray(update)) {
        const err = fail.increment.shift();
        if (err) throw err();
        shards.set(filter._id, (shards.get(filter._id) ?? 0) + 1);
      } else {
        calls.giveBacks++;
        if (calls.hold !== null) await calls.hold;
        const err = fail.giveBack.shift();
        if (err) throw err();
        calls.given.push(filter._id);
        const value = shards.get(filter._id) ?? 0;
        if (value > 0) shards.set(filter._id, value - 1);
      }
      return { matchedCount: 1, modifiedCount: 1 };
    },
    find: (filter: { _id: { $in: string[] } }) => ({
      toArray: async () => {
        const err = fail.read.shift();
        if (err) throw err();
        return filter._id.$in.filter((id) => shards.has(id)).map((id) => ({ _id: id, value: shards.get(id)!, expiresAt: new Date(MONTH.expiresAt) }));
      },
    }),
  };
  const total = () => [...shards.values()].reduce((a, b) => a + b, 0);
  return { conn: { counters } as unknown as MongoConnection, fail, calls, total };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A live send of one counter (the month's), new consumer 'acme'. */
const liveSend = () => aSend(NOW, { eventType: 'a.b', newConsumerId: 'con_1' as never, idempotencySince: 0, counters: [MONTH] });

describe('usage counters (MongoDB): counts given back', () => {
  it('takes one count a send, and refuses the send past the limit of 3 with its count given back', async () => {
    const { conn, total } = countersOf();
    for (let i = 1; i <= 3; i++) expect((await takeCounts(conn, [MONTH], NOW)).values[MONTH.key]).toBe(i);
    await expect(takeCounts(conn, [MONTH], NOW)).rejects.toBeInstanceOf(PlanLimitError);
    expect(total()).toBe(3);
  });

  it('gives the count back when the read after its increment fails, and throws that error as it came', async () => {
    const { conn, fail, total } = countersOf();
    fail.read.push(lost);
    await expect(takeCounts(conn, [MONTH], NOW)).rejects.toBeInstanceOf(MongoNetworkError);
    expect(total()).toBe(0);
  });

  it('gives back the first counter’s count when the second’s increment fails', async () => {
    const { conn, fail, total } = countersOf();
    const day: UsageCounter = { ...MONTH, key: 'test:org_1:2026-12-02', limit: null };
    await takeCounts(conn, [MONTH], NOW); // a count that stays taken
    fail.increment.push(null, poolTimeout); // the day's increment passes, the month's fails
    await expect(takeCounts(conn, [day, MONTH], NOW).catch((e: unknown) => e)).resolves.toMatchObject({ name: 'MongoWaitQueueTimeoutError' });
    expect(total()).toBe(1); // the day's count given back, the first send's month count kept
  });

  it('never throws from a give-back: one refused before it was sent is owed and written after the next send takes its count', async () => {
    const { conn, fail, calls, total } = countersOf();
    const { taken } = await takeCounts(conn, [MONTH], NOW);
    fail.giveBack.push(poolTimeout, poolTimeout); // its own try, and the payer's at once
    await expect(giveBack(conn, taken, NOW)).resolves.toBeUndefined();
    await settle();
    expect(total()).toBe(1); // not given back yet: owed
    await takeCounts(conn, [MONTH], NOW); // 2 now; its take pays what is owed
    await settle();
    expect(total()).toBe(1);
    expect(calls.giveBacks).toBe(3);
  });

  it('does not give back again one whose outcome is unknown (a lost connection): twice could count one low', async () => {
    const { conn, fail, calls, total } = countersOf();
    const { taken } = await takeCounts(conn, [MONTH], NOW);
    fail.giveBack.push(lost);
    await giveBack(conn, taken, NOW);
    await takeCounts(conn, [MONTH], NOW);
    await settle();
    expect(calls.giveBacks).toBe(1);
    expect(total()).toBe(2); // one high, as after a process killed between its increment and its commit
  });

  it('waits for one refusal at most: the rest of the send’s counts are owed at once, and paid without the send waiting', async () => {
    const { conn, fail, calls } = countersOf();
    const taken = ['a', 'b', 'c'].map((shardId) => ({ key: MONTH.key, shardId }));
    fail.giveBack.push(poolTimeout, poolTimeout);
    await giveBack(conn, taken, NOW);
    // Its own try (refused), then the payer's first (refused too: it stops there) — not a try a count.
    expect(calls.giveBacks).toBe(2);
    await settle();
    await giveBack(conn, [], NOW);
    await settle();
    expect(calls.given).toEqual(['a', 'b', 'c']);
  });

  it('pays each owed give-back once however many calls kick the payer meanwhile, and no send waits for it', async () => {
    const { conn, fail, calls } = countersOf();
    fail.giveBack.push(poolTimeout, poolTimeout);
    await giveBack(conn, [{ key: MONTH.key, shardId: 'owed' }], NOW); // refused, and refused again by the payer
    await settle();
    let release!: () => void;
    calls.hold = new Promise((resolve) => (release = resolve));
    await giveBack(conn, [], NOW); // kicks the payer, which waits on the hold
    await giveBack(conn, [], NOW);
    await takeCounts(conn, [MONTH], NOW); // resolves with the payer still waiting
    expect(calls.giveBacks).toBe(3);
    release();
    await settle();
    expect(calls.given).toEqual(['owed']);
  });

  it(`keeps at most ${OWED_MAX} owed give-backs, the newest, and pays them oldest first until one is refused again`, async () => {
    const { conn, fail, calls } = countersOf();
    const taken = Array.from({ length: OWED_MAX + 5 }, (_, i) => ({ key: MONTH.key, shardId: `s${i}` }));
    fail.giveBack.push(poolTimeout, poolTimeout); // the send's own try, then the payer's first
    await giveBack(conn, taken, NOW);
    await settle();
    expect(calls.given).toEqual([]);
    await giveBack(conn, [], NOW);
    await settle();
    expect(calls.given).toHaveLength(OWED_MAX);
    expect(calls.given[0]).toBe('s5'); // the five oldest dropped
    expect(calls.given.at(-1)).toBe(`s${OWED_MAX + 4}`);
    expect(new Set(calls.given).size).toBe(OWED_MAX);
  });

  it.each([
    ['a commit given up on unconfirmed (it may have stored the message): the count stays taken', ['UnknownTransactionCommitResult'], 1],
    ['a write conflict the driver gave up on (nothing stored): the count is given back', ['TransientTransactionError'], 0],
  ])('a send whose transaction fails, %s', async (_what, errorLabels, counted) => {
    const { conn, total } = countersOf();
    Object.assign(conn, {
      bucketMonthOf: () => monthOf(NOW),
      months: async () => [monthOf(NOW)],
      // A consumer new to the send (read before the transaction): the transaction makes it.
      consumers: { findOne: async () => null },
      transaction: async () => {
        throw new MongoServerError({ code: 91, errmsg: 'shutting down', errorLabels });
      },
    });
    await expect(createMessage(conn, { orgId: 'org_1', env: 'live' } as never, liveSend() as never)).rejects.toMatchObject({ code: 91 });
    expect(total()).toBe(counted);
  });

  it('a send whose reads beside its count fail goes on: its transaction reads them (one that then fails gives the count back)', async () => {
    const { conn, total } = countersOf();
    let transactions = 0;
    Object.assign(conn, {
      bucketMonthOf: () => monthOf(NOW),
      months: async () => [monthOf(NOW)],
      consumers: {
        findOne: async () => {
          throw new MongoServerError({ code: 189, errmsg: 'primary stepped down' });
        },
      },
      transaction: async () => {
        transactions++;
        throw new MongoServerError({ code: 91, errmsg: 'shutting down' });
      },
    });
    await expect(createMessage(conn, { orgId: 'org_1', env: 'live' } as never, liveSend() as never)).rejects.toMatchObject({ code: 91 });
    expect(transactions).toBe(1);
    expect(total()).toBe(0);
  });

  it('a send refused its count while its reads are still out: refused, and their later failure heard by no one', async () => {
    const { conn } = countersOf();
    let failRead = () => {};
    const readFails = new Promise<void>((resolve) => (failRead = resolve));
    Object.assign(conn, {
      bucketMonthOf: () => monthOf(NOW),
      months: async () => [monthOf(NOW)],
      consumers: {
        findOne: async () => {
          await readFails;
          throw new MongoServerError({ code: 189, errmsg: 'primary stepped down' });
        },
      },
    });
    const full = { ...MONTH, key: `live:org_full_${NOW}:2026-12`, limit: 0 };
    await expect(createMessage(conn, { orgId: 'org_1', env: 'live' } as never, { ...liveSend(), counters: [full] } as never)).rejects.toBeInstanceOf(
      PlanLimitError,
    );
    // Told as a warning (readsFailed), not thrown: an unhandled rejection would fail the run on the turns that follow.
    const told = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      failRead();
      await new Promise((resolve) => setImmediate(resolve));
      expect(told).toHaveBeenCalledTimes(1);
    } finally {
      told.mockRestore();
    }
  });
});

describe('usage counters (MongoDB): what a send reads in its transaction', () => {
  const session = {} as never;
  const reads = (conn: MongoConnection) => {
    const counters = conn.counters as unknown as { find: (filter: { _id: { $in: string[] } }) => unknown };
    const find = counters.find;
    const asked: string[][] = [];
    counters.find = (filter) => (asked.push(filter._id.$in), find(filter));
    return asked;
  };

  it('a live send’s one counter, taken before the transaction: its value as the increment read it, and no read', async () => {
    const { conn } = countersOf();
    const asked = reads(conn);
    expect(await readCounters(conn, session, { counters: [MONTH], createdAt: NOW }, { [MONTH.key]: 7 })).toEqual({ [MONTH.key]: 7 });
    expect(asked).toEqual([]);
  });

  it('a test send: the day it took as taken, the month (read only) read — its shards alone', async () => {
    const { conn } = countersOf();
    await takeCounts(conn, [MONTH], NOW);
    const asked = reads(conn);
    const day: UsageCounter = { key: 'test:org_1:2026-12-02', limit: 1_000, increment: true, expiresAt: Date.UTC(2026, 11, 4) };
    const month: UsageCounter = { ...MONTH, increment: false, limit: null };
    expect(await readCounters(conn, session, { counters: [month, day], createdAt: NOW }, { [day.key]: 2 })).toEqual({ [MONTH.key]: 1, [day.key]: 2 });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.every((id) => id.endsWith(MONTH.key))).toBe(true);
    // A replay takes nothing: every counter read.
    expect(await readCounters(conn, session, { counters: [month, day], createdAt: NOW })).toEqual({ [MONTH.key]: 1, [day.key]: 0 });
  });
});
