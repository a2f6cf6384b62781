// A resume's (or delete's) recheck without a server: stand-in collections keep documents in Maps
// and answer the calls held-recheck.ts makes, as the indexes its plans name would. A send that
// holds a delivery of a paused endpoint writes nothing a resume writes (no write conflict for
// the resume to meet); a delivery such a send commits after the resume's walk is released when
// the walk runs again, HELD_RECHECK_MS later (the real-server case: mongo-store.test.ts).
import type { EndpointId, OrgId, Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { MongoConnection } from './connection.ts';
import type { EndpointRecheckDoc } from './documents.ts';
import { HELD_RECHECK_MS, RECHECKS_PAGE, scheduleRecheck, startDueRechecks } from './held-recheck.ts';

const t: Tenant = { orgId: 'org_1' as OrgId, env: 'live' };
const session = { id: 'session' } as unknown as ClientSession;
const NOW = Date.UTC(2026, 11, 2, 12);

type Update = { $set?: Record<string, unknown>; $max?: { at: number }; $setOnInsert?: Record<string, unknown> };

function stand() {
  const rechecks = new Map<string, EndpointRecheckDoc>();
  const walks = new Map<string, Record<string, unknown>>();
  const status = new Map<string, string>();
  const calls = { options: [] as Record<string, unknown>[], limits: [] as number[], transactions: 0 };
  const endpointRechecks = {
    updateOne: async (filter: { _id: string }, update: Update, options: Record<string, unknown>) => {
      calls.options.push(options);
      const doc = rechecks.get(filter._id) ?? ({ _id: filter._id, ...update.$setOnInsert, at: Number.NEGATIVE_INFINITY } as EndpointRecheckDoc);
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
    deleteOne: async (filter: { _id: string; at: number }) => {
      const doc = rechecks.get(filter._id);
      if (doc === undefined || doc.at !== filter.at) return { deletedCount: 0 };
      rechecks.delete(filter._id);
      return { deletedCount: 1 };
    },
  };
  const endpointWalks = {
    updateOne: async (filter: { _id: string }, update: { $set?: Record<string, unknown>; $max?: Record<string, unknown> }) => {
      walks.set(filter._id, { ...walks.get(filter._id), ...update.$set, ...update.$max });
    },
  };
  const endpoints = { findOne: async (filter: { _id: string }) => (status.has(filter._id) ? { status: status.get(filter._id) } : null) };
  const conn = {
    endpointRechecks,
    endpointWalks,
    endpoints,
    transaction: async <T>(fn: (s: ClientSession) => Promise<T>): Promise<T> => {
      calls.transactions++;
      return fn(session);
    },
  } as unknown as MongoConnection;
  return { conn, rechecks, walks, status, calls };
}

const ep = (n: number) => `ep_${n}` as EndpointId;

describe("a resume's recheck (MongoDB): the walk runs again once every send that read the endpoint paused has ended", () => {
  it('is due HELD_RECHECK_MS (3 minutes) after the resume, not a millisecond before; then it records the release again', async () => {
    expect(HELD_RECHECK_MS).toBe(180_000);
    const { conn, walks, status, rechecks } = stand();
    status.set('ep_1', 'active');
    await scheduleRecheck(conn, session, t, ep(1), { heldSince: 42 }, NOW);
    expect(rechecks.get('ep_1')).toEqual({ _id: 'ep_1', orgId: 'org_1', env: 'live', fail: false, heldSince: 42, at: NOW + 180_000 });
    expect(await startDueRechecks(conn, NOW + 179_999)).toBe(0);
    expect(walks.size).toBe(0);
    expect(await startDueRechecks(conn, NOW + 180_000)).toBe(1);
    expect(walks.get('ep_1')).toMatchObject({ hold: 'release', heldSince: 42, month: null });
    // Started once: gone from the rechecks.
    expect(rechecks.size).toBe(0);
    expect(await startDueRechecks(conn, NOW + 10 * 180_000)).toBe(0);
  });

  it("a second resume moves it on, never back (the later resume's window is the one left)", async () => {
    const { conn, rechecks } = stand();
    await scheduleRecheck(conn, session, t, ep(1), { heldSince: 1 }, NOW + 60_000);
    await scheduleRecheck(conn, session, t, ep(1), { heldSince: 2 }, NOW); // a clock behind the first
    expect(rechecks.get('ep_1')).toMatchObject({ at: NOW + 60_000 + HELD_RECHECK_MS, heldSince: 2 });
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
    const find = conn.endpointRechecks.find.bind(conn.endpointRechecks);
    // A resume between the page's read and its start.
    (conn.endpointRechecks as unknown as { find: typeof find }).find = ((...args: Parameters<typeof find>) => {
      const cursor = find(...args);
      const toArray = cursor.toArray.bind(cursor);
      return Object.assign(cursor, {
        toArray: async () => {
          const page = await toArray();
          await scheduleRecheck(conn, session, t, ep(1), { heldSince: 0 }, NOW + 1_000);
          return page;
        },
      });
    }) as typeof find;
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
});
