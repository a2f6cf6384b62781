// A resume's (or delete's) recheck without a server: stand-in collections keep documents in Maps
// and answer the calls held-recheck.ts makes, as the indexes its plans name would. A send that
// holds a delivery of a paused endpoint writes nothing a resume writes (no write conflict for
// the resume to meet); a delivery such a send commits after the resume's walk is released when
// the walk runs again, HELD_RECHECK_MS later (the real-server case: mongo-store.test.ts).
import type { EndpointId, OrgId, Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import { describe, expect, it, vi } from 'vitest';
import type { MongoConnection } from './connection.ts';
import type { EndpointRecheckDoc } from './documents.ts';
import { MongoDeliveryRepo } from './delivery-repo.ts';
import { MongoEndpointRepo } from './endpoint-repo.ts';
import {
  FAILED_RECHECK_WAIT_MS,
  HELD_RECHECK_MS,
  RECHECKS_PAGE,
  RECHECKS_TIME_BOX_MS,
  scheduleRecheck,
  startDueRechecks,
  warnLongTransactions,
} from './held-recheck.ts';

const t: Tenant = { orgId: 'org_1' as OrgId, env: 'live' };
const session = { id: 'session' } as unknown as ClientSession;
const NOW = Date.UTC(2026, 11, 2, 12);

type Update = { $set?: Record<string, unknown>; $max?: { at: number }; $setOnInsert?: Record<string, unknown> };

function stand() {
  const rechecks = new Map<string, EndpointRecheckDoc>();
  const walks = new Map<string, Record<string, unknown>>();
  const status = new Map<string, string | { status: string; disabledReason: string | null }>();
  const calls = { options: [] as Record<string, unknown>[], limits: [] as number[], transactions: 0 };
  const endpointRechecks = {
    updateOne: async (filter: { _id: string; at?: number }, update: Update, options: Record<string, unknown>) => {
      calls.options.push(options);
      const found = rechecks.get(filter._id);
      if (found === undefined ? options['upsert'] !== true : filter.at !== undefined && found.at !== filter.at) return;
      const doc = found ?? ({ _id: filter._id, ...update.$setOnInsert, at: Number.NEGATIVE_INFINITY } as EndpointRecheckDoc);
      Object.assign(doc, update.$set);
      doc.at = Math.max(doc.at, update.$max?.at ?? doc.at);
      rechecks.set(filter._id, doc);
    },
    find: (filter: { at: { $lte: number } }, options: Record<string, unknown>) => {
      calls.options.push(options);
      let limit = Number.POSITIVE_INFINITY;
      const cursor = {
        limit: (n: number) => {
          limit = n;
          calls.limits.push(n);
          return cursor;
        },
        toArray: async () =>
          [...rechecks.values()]
            .filter((d) => d.at <= filter.at.$lte)
            .sort((a, b) => a.at - b.at || a._id.localeCompare(b._id))
            .slice(0, limit)
            .map((d) => ({ ...d })),
      };
      return cursor;
    },
    findOneAndDelete: async (filter: { _id: string; at: number }) => {
      const doc = rechecks.get(filter._id);
      if (doc === undefined || doc.at !== filter.at) return null;
      rechecks.delete(filter._id);
      return { ...doc };
    },
  };
  const endpointWalks = {
    updateOne: async (filter: { _id: string }, update: { $set?: Record<string, unknown>; $max?: Record<string, unknown> }) => {
      walks.set(filter._id, { ...walks.get(filter._id), ...update.$set, ...update.$max });
    },
    // The walks themselves are not run here: no walk is listed as pending, and a batch finds none.
    deleteOne: async () => ({ deletedCount: 0 }),
    findOneAndUpdate: async () => null,
    find: () => ({ limit: () => ({ toArray: async () => [] }) }),
  };
  const endpoints = {
    findOne: async (filter: { _id: string }) => {
      const found = status.get(filter._id);
      return found === undefined ? null : typeof found === 'string' ? { status: found, disabledReason: null } : found;
    },
    findOneAndUpdate: async (filter: { _id: string }, update: { $set: { status?: string } }) => {
      if (!status.has(filter._id)) return null;
      if (update.$set.status !== undefined) status.set(filter._id, update.$set.status);
      return { _id: filter._id, consumerId: 'con_1', status: update.$set.status ?? 'active' };
    },
    findOneAndDelete: async (filter: { _id: string }) => {
      const found = status.get(filter._id);
      status.delete(filter._id);
      return found === undefined ? null : { _id: filter._id, consumerId: 'con_1', status: typeof found === 'string' ? found : found.status };
    },
  };
  const failing = new Set<string>();
  const conn = {
    endpointRechecks,
    endpointWalks,
    endpoints,
    consumers: { updateOne: async () => ({}) },
    months: async () => [],
    transaction: async <T>(fn: (s: ClientSession) => Promise<T>): Promise<T> => {
      calls.transactions++;
      // A transaction the driver gave up on (its 120 s of write conflicts spent), for one endpoint.
      const result = await fn(session);
      const last = [...walks.keys()].at(-1);
      if (last !== undefined && failing.has(last)) {
        walks.delete(last);
        throw new Error(`write conflict on ${last}`);
      }
      return result;
    },
  } as unknown as MongoConnection;
  return { conn, rechecks, walks, status, calls, failing };
}

const ep = (n: number) => `ep_${n}` as EndpointId;

/** Runs `meanwhile` once a page of rechecks due has been read, before any of it starts. */
function betweenReadAndStart(conn: MongoConnection, meanwhile: () => Promise<void>): void {
  const find = conn.endpointRechecks.find.bind(conn.endpointRechecks);
  (conn.endpointRechecks as unknown as { find: typeof find }).find = ((...args: Parameters<typeof find>) => {
    const cursor = find(...args);
    const toArray = cursor.toArray.bind(cursor);
    return Object.assign(cursor, {
      toArray: async () => {
        const page = await toArray();
        await meanwhile();
        return page;
      },
    });
  }) as typeof find;
}

describe("a resume's recheck (MongoDB): the walk runs again once every send that read the endpoint paused has ended", () => {
  it('is due HELD_RECHECK_MS (5 minutes) after the resume, not a millisecond before; then it records the release again', async () => {
    expect(HELD_RECHECK_MS).toBe(300_000);
    const { conn, walks, status, rechecks } = stand();
    status.set('ep_1', 'active');
    await scheduleRecheck(conn, session, t, ep(1), { heldSince: 42 }, NOW);
    expect(rechecks.get('ep_1')).toEqual({ _id: 'ep_1', orgId: 'org_1', env: 'live', fail: false, heldSince: 42, at: NOW + 300_000 });
    expect(await startDueRechecks(conn, NOW + 299_999)).toBe(0);
    expect(walks.size).toBe(0);
    expect(await startDueRechecks(conn, NOW + 300_000)).toBe(1);
    expect(walks.get('ep_1')).toMatchObject({ hold: 'release', heldSince: 42, month: null });
    // Started once: gone from the rechecks.
    expect(rechecks.size).toBe(0);
    expect(await startDueRechecks(conn, NOW + 10 * 300_000)).toBe(0);
  });

  it("a second resume moves it on, never back (the later resume's window is the one left)", async () => {
    const { conn, rechecks } = stand();
    await scheduleRecheck(conn, session, t, ep(1), { heldSince: 1 }, NOW + 60_000);
    await scheduleRecheck(conn, session, t, ep(1), { heldSince: 2 }, NOW); // a clock behind the first
    expect(rechecks.get('ep_1')).toMatchObject({ at: NOW + 60_000 + HELD_RECHECK_MS, heldSince: 2 });
  });

  it('starts with the bound as removed, not as its page read it (a resume between them left `at` and moved the bound)', async () => {
    const { conn, walks, status } = stand();
    status.set('ep_1', 'active');
    await scheduleRecheck(conn, session, t, ep(1), { heldSince: 1 }, NOW);
    betweenReadAndStart(conn, () => scheduleRecheck(conn, session, t, ep(1), { heldSince: 2 }, NOW - 1_000)); // `at` stays (a $max)
    expect(await startDueRechecks(conn, NOW + HELD_RECHECK_MS)).toBe(1);
    expect(walks.get('ep_1')).toMatchObject({ hold: 'release', heldSince: 2 });
  });

  it('an endpoint deleted, or stopped for its failures, since the resume fails what is left; one disabled by hand holds it', async () => {
    const { conn, walks, status } = stand();
    status.set('ep_2', { status: 'disabled', disabledReason: 'failing_5_days' });
    status.set('ep_3', { status: 'disabled', disabledReason: null });
    for (const n of [1, 2, 3]) await scheduleRecheck(conn, session, t, ep(n), { heldSince: 0 }, NOW);
    // ep_1 is gone (deleted while active, after the resume: its delete asked for no recheck of its own).
    expect(await startDueRechecks(conn, NOW + HELD_RECHECK_MS)).toBe(2);
    for (const id of ['ep_1', 'ep_2']) expect(walks.get(id)).toMatchObject({ failBefore: Number.MAX_SAFE_INTEGER, month: null });
    expect(walks.has('ep_3')).toBe(false);
  });

  it('one that fails is left for the next read while the others start; the first error is told once all were tried', async () => {
    const { conn, walks, status, rechecks, failing } = stand();
    for (const n of [1, 2, 3]) {
      status.set(`ep_${n}`, 'active');
      await scheduleRecheck(conn, session, t, ep(n), { heldSince: 0 }, NOW);
    }
    failing.add('ep_2');
    const due = NOW + HELD_RECHECK_MS;
    // The stand-in undoes nothing of a failed transaction: its delete is put back as the abort would.
    const abort = (at: number) => rechecks.set('ep_2', { _id: 'ep_2', orgId: 'org_1', env: 'live', at, heldSince: 0, fail: false });
    const take = conn.endpointRechecks.findOneAndDelete.bind(conn.endpointRechecks);
    (conn.endpointRechecks as unknown as { findOneAndDelete: typeof take }).findOneAndDelete = (async (filter: { _id: string; at: number }) => {
      const taken = await take(filter as never);
      if (filter._id === 'ep_2' && failing.has('ep_2')) abort(filter.at);
      return taken;
    }) as typeof take;
    await expect(startDueRechecks(conn, due)).rejects.toThrow('write conflict on ep_2');
    expect([...walks.keys()].sort()).toEqual(['ep_1', 'ep_3']);
    // Behind the line for a minute (FAILED_RECHECK_WAIT_MS): not read again before then.
    expect(FAILED_RECHECK_WAIT_MS).toBe(60_000);
    expect(rechecks.get('ep_2')?.at).toBe(due + 60_000);
    expect(await startDueRechecks(conn, due + 59_999)).toBe(0);
    failing.clear();
    expect(await startDueRechecks(conn, due + 60_000)).toBe(1);
    expect(walks.has('ep_2')).toBe(true);
  });

  it('an endpoint paused again by its time releases nothing (its next resume asks for its own); a deleted one fails what is left', async () => {
    const { conn, walks, status } = stand();
    status.set('ep_1', 'paused');
    status.set('ep_2', 'active');
    await scheduleRecheck(conn, session, t, ep(1), { heldSince: 0 }, NOW);
    await scheduleRecheck(conn, session, t, ep(2), { heldSince: 0 }, NOW);
    await scheduleRecheck(conn, session, t, ep(2), { fail: true }, NOW);
    expect(await startDueRechecks(conn, NOW + HELD_RECHECK_MS)).toBe(1);
    expect(walks.has('ep_1')).toBe(false);
    // The delete's fail, though the endpoint reads active here: a delete's recheck never releases.
    expect(walks.get('ep_2')).toMatchObject({ failBefore: Number.MAX_SAFE_INTEGER, month: null });
    expect(walks.get('ep_2')?.['hold']).toBeUndefined();
  });

  it('a recheck moved on after the page read it is left for its new time (removed only as read)', async () => {
    const { conn, rechecks, walks, status } = stand();
    status.set('ep_1', 'active');
    await scheduleRecheck(conn, session, t, ep(1), { heldSince: 0 }, NOW);
    // A resume between the page's read and its start.
    betweenReadAndStart(conn, () => scheduleRecheck(conn, session, t, ep(1), { heldSince: 0 }, NOW + 1_000));
    expect(await startDueRechecks(conn, NOW + HELD_RECHECK_MS)).toBe(0);
    expect(walks.size).toBe(0);
    expect(rechecks.get('ep_1')?.at).toBe(NOW + 1_000 + HELD_RECHECK_MS);
  });

  it('reads at most RECHECKS_PAGE (100) a call, soonest first, through endpoint_rechecks_at; every write in the caller’s session', async () => {
    expect(RECHECKS_PAGE).toBe(100);
    const { conn, walks, status, calls } = stand();
    for (let i = 0; i < 101; i++) {
      status.set(`ep_${i}`, 'active');
      await scheduleRecheck(conn, session, t, ep(i), { heldSince: 0 }, NOW + i);
    }
    expect(calls.options.every((o) => o['session'] === session && o['upsert'] === true)).toBe(true);
    expect(await startDueRechecks(conn, NOW + 1_000_000)).toBe(100);
    expect(calls.limits).toEqual([100]);
    expect(walks.has('ep_99')).toBe(true);
    expect(walks.has('ep_100')).toBe(false); // the soonest 100: the last one waits for the next read
    const read = calls.options.at(-1)!;
    expect(read['hint']).toEqual({ at: 1, _id: 1 });
    expect(read['comment']).toBe('endpoints.rechecksDue');
    expect(read['sort']).toEqual({ at: 1, _id: 1 });
    expect(await startDueRechecks(conn, NOW + 1_000_000)).toBe(1);
  });

  it('starts rechecks for at most RECHECKS_TIME_BOX_MS (5 s) a read; those not reached stay due for the next', async () => {
    expect(RECHECKS_TIME_BOX_MS).toBe(5_000);
    const { conn, walks, status } = stand();
    for (let i = 0; i < 4; i++) {
      status.set(`ep_${i}`, 'active');
      await scheduleRecheck(conn, session, t, ep(i), { heldSince: 0 }, NOW);
    }
    // Each recheck's transaction takes 2 s (write conflicts with the walks, retried): the third
    // starts at 4 s, the fourth would start at 6 s, past the box.
    const transaction = conn.transaction.bind(conn);
    (conn as unknown as { transaction: typeof transaction }).transaction = async (fn) => {
      const result = await transaction(fn);
      vi.advanceTimersByTime(2_000);
      return result;
    };
    vi.useFakeTimers({ toFake: ['Date'], now: NOW + HELD_RECHECK_MS });
    try {
      expect(await startDueRechecks(conn, Date.now())).toBe(3);
      expect(walks.size).toBe(3);
      expect(await startDueRechecks(conn, Date.now())).toBe(1);
      expect(walks.size).toBe(4);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('who asks for a recheck, and who starts it (MongoDB, the repos on stand-ins)', () => {
  const resume = { status: 'active' as const, changedAt: NOW, releaseHeldSince: 7 };

  it('a resume from paused or disabled asks for one; a PATCH to active of an active endpoint, or a pause, does not', async () => {
    const { conn, rechecks, status } = stand();
    const repo = new MongoEndpointRepo(conn);
    status.set('ep_1', 'paused');
    status.set('ep_2', { status: 'disabled', disabledReason: 'failing_5_days' });
    status.set('ep_3', 'active');
    status.set('ep_4', 'active');
    const before = Date.now();
    for (const n of [1, 2, 3]) await repo.update(t, ep(n), resume);
    await repo.update(t, ep(4), { status: 'paused', changedAt: NOW });
    expect([...rechecks.keys()].sort()).toEqual(['ep_1', 'ep_2']);
    // On the real clock, whatever the request's: what it waits out is the server's transactions.
    expect(rechecks.get('ep_1')).toMatchObject({ heldSince: 7, fail: false });
    expect(rechecks.get('ep_1')!.at).toBeGreaterThanOrEqual(before + HELD_RECHECK_MS);
    expect(rechecks.get('ep_1')!.at).toBeLessThanOrEqual(Date.now() + HELD_RECHECK_MS);
  });

  it("a paused endpoint's delete asks for a fail; an active one's asks for none (its sends hold nothing)", async () => {
    const { conn, rechecks, status } = stand();
    const repo = new MongoEndpointRepo(conn);
    status.set('ep_1', 'paused');
    status.set('ep_2', 'active');
    expect(await repo.delete(t, ep(1))).toBe(true);
    expect(await repo.delete(t, ep(2))).toBe(true);
    expect([...rechecks.keys()]).toEqual(['ep_1']);
    expect(rechecks.get('ep_1')).toMatchObject({ fail: true, heldSince: null });
  });

  it('the walk job starts the rechecks due by the real clock, at most once a second a process (again at once after its clock stepped back)', async () => {
    const { conn, walks, status, calls } = stand();
    const repo = new MongoDeliveryRepo(conn);
    status.set('ep_1', 'active');
    await scheduleRecheck(conn, session, t, ep(1), { heldSince: 0 }, NOW);
    const reads = () => calls.limits.length;
    // The job's own clock (a test cluster's shifted one, say) does not decide which are due: the real one does.
    vi.useFakeTimers({ toFake: ['Date'], now: NOW });
    try {
      await repo.walkEndpoints(NOW + 10 * HELD_RECHECK_MS, 1_000, 1);
      expect(reads()).toBe(1);
      expect(walks.size).toBe(0);
      await repo.walkEndpoints(NOW + 10 * HELD_RECHECK_MS + 999, 1_000, 1);
      expect(reads()).toBe(1);
      vi.setSystemTime(NOW + HELD_RECHECK_MS);
      await repo.walkEndpoints(NOW + 10 * HELD_RECHECK_MS + 1_000, 1_000, 1);
      expect(reads()).toBe(2);
      expect(walks.get('ep_1')).toMatchObject({ hold: 'release' });
      await repo.walkEndpoints(NOW, 1_000, 1); // the job's clock stepped back
      expect(reads()).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a recheck that fails comes back with the round's result; the round's walks are not held up by it", async () => {
    const { conn, status, failing } = stand();
    const repo = new MongoDeliveryRepo(conn);
    status.set('ep_1', 'active');
    await scheduleRecheck(conn, session, t, ep(1), { heldSince: 0 }, Date.now() - HELD_RECHECK_MS);
    failing.add('ep_1');
    const round = await repo.walkEndpoints(NOW, 1_000, 1);
    expect(round).toMatchObject({ changed: 0, pending: false });
    expect(String(round.leftForLater)).toContain('write conflict on ep_1');
  });
});

describe("the server's transaction lifetime, read at start (MongoDB)", () => {
  const serverWith = (answer: () => Promise<Record<string, unknown>>) => ({ db: { admin: () => ({ command: answer }) } }) as unknown as MongoConnection;

  it('tells of a limit over 60 s (the recheck is reckoned for 60), not of 60 or less, nor when the parameter cannot be read', async () => {
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);
    await warnLongTransactions(
      serverWith(async () => ({ transactionLifetimeLimitSeconds: 60 })),
      log,
    );
    await warnLongTransactions(
      serverWith(async () => {
        throw new Error('not authorized on admin to execute command { getParameter: 1 }');
      }),
      log,
    );
    expect(lines).toEqual([]);
    await warnLongTransactions(
      serverWith(async () => ({ transactionLifetimeLimitSeconds: 61 })),
      log,
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("MongoDB's transactionLifetimeLimitSeconds is 61");
  });
});
