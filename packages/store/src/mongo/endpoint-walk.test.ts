// An endpoint's walk across months without a server: stand-in collections keep the walk's
// document and each month's deliveries in Maps and answer the calls endpoint-walk.ts makes for a
// hold, as the plans' indexes would (the endpoint's due range of a month, in id order). The
// real-server cases are the store contract's (endpoint-walk-contract.ts, mongo-store.test.ts),
// whose months always include the next one (made ahead): a batch that stopped at each month's
// end left those walks pending there, a round a month.
import type { EndpointId } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { acrossMonths, walkBatch } from './endpoint-walk.ts';
import { refreshMessageStatuses } from './message-status.ts';
import { type Month, monthStartOf } from './months.ts';
import { matches } from '../../test/mongo/walk-collection.ts';

// A fail refreshes its messages' statuses (message-status.ts, tested with its own stand-ins):
// here only which messages each batch asks for.
vi.mock('./message-status.ts', () => ({ refreshMessageStatuses: vi.fn(async () => {}) }));
const refreshed = vi.mocked(refreshMessageStatuses);
beforeEach(() => refreshed.mockClear());

const session = { id: 'session' } as unknown as ClientSession;
const ENDPOINT = 'ep_1' as EndpointId;
/** Retained months and the next, made ahead (month-buckets.ts), as `meta` lists them. */
const MONTHS: Month[] = ['202609', '202610', '202611', '202612', '202701'];

type Delivery = {
  _id: string;
  endpointId: string;
  messageId: string;
  status: string;
  held: boolean;
  laneWait: boolean;
  createdAt: number;
};
type Stand = {
  walk?: Record<string, unknown>;
  status?: string;
  laneWait?: Partial<Record<Month, boolean>>;
  /** When each month's deliveries were made (1,000 unless told). */
  createdAt?: Partial<Record<Month, number>>;
  /** The list a read again finds (another process made a month since); MONTHS unless told. */
  relisted?: Month[];
};

/**
 * A walk (a hold unless `walk` says otherwise) and `counts` open deliveries a month, held when
 * the walk is a release; `find` answers failBatch (a `createdAt` bound), holdBatch (not held) or
 * releaseBatch (held) as their indexes would, in id order.
 */
function stand(counts: Partial<Record<Month, number>>, opts: Stand = {}) {
  let walkDoc: Record<string, unknown> | null = {
    _id: ENDPOINT,
    orgId: 'org_1',
    env: 'live',
    hold: 'hold',
    heldSince: null,
    failBefore: null,
    month: null,
    ...opts.walk,
  };
  const releasing = walkDoc['hold'] === 'release';
  const byMonth = new Map<Month, Delivery[]>();
  for (const [month, n] of Object.entries(counts)) {
    byMonth.set(
      month,
      Array.from({ length: n ?? 0 }, (_, i) => ({
        _id: `dlv_${month}_${String(i).padStart(3, '0')}`,
        endpointId: ENDPOINT,
        messageId: `msg_${month}_${i}`,
        status: 'pending',
        held: releasing,
        laneWait: opts.laneWait?.[month] === true,
        createdAt: opts.createdAt?.[month] ?? 1_000,
      })),
    );
  }
  /** Each month read, with the limit it was read for; the walk document's writes after its first. */
  const reads: { month: Month; limit: number }[] = [];
  const walkWrites: Record<string, unknown>[] = [];
  let listed = MONTHS;
  let refreshed = 0;
  const conn = {
    legacyMonth: null,
    months: async () => listed,
    refreshMonths: async () => {
      refreshed++;
      listed = opts.relisted ?? MONTHS;
      return listed;
    },
    endpoints: { findOne: async () => ({ status: opts.status ?? 'paused' }) },
    endpointWalks: {
      findOneAndUpdate: async (filter: Record<string, unknown>) => (walkDoc !== null && matches(walkDoc, filter) ? { ...walkDoc } : null),
      updateOne: async (filter: Record<string, unknown>, update: { $set: Record<string, unknown> }) => {
        walkWrites.push(update.$set);
        if (walkDoc !== null && matches(walkDoc, filter)) Object.assign(walkDoc, update.$set);
      },
      deleteOne: async (filter: Record<string, unknown>) => {
        if (walkDoc !== null && matches(walkDoc, filter)) walkDoc = null;
      },
    },
    bucket: (month: Month) => ({
      month,
      deliveries: {
        find: (filter: { endpointId: string; held?: boolean; createdAt?: { $lt: number } }) => ({
          limit: (n: number) => ({
            toArray: async () => {
              reads.push({ month, limit: n });
              const bound = filter.createdAt;
              return (byMonth.get(month) ?? [])
                .filter((d) => d.endpointId === filter.endpointId && d.status === 'pending')
                .filter((d) => (bound !== undefined ? d.createdAt < bound.$lt : d.held === filter.held && (filter.held || !d.laneWait)))
                .slice(0, n)
                .map((d) => ({ ...d }));
            },
          }),
        }),
        // A hold's or a fail's $set, or a release's pipeline ([{ $set: { held: false, … } }]).
        updateMany: async (filter: { _id: { $in: string[] } }, update: { $set: Partial<Delivery> } | [{ $set: { held: boolean } }]) => {
          const set = Array.isArray(update) ? { held: update[0].$set.held } : update.$set;
          for (const d of byMonth.get(month) ?? []) {
            if (!filter._id.$in.includes(d._id)) continue;
            if (set.held !== undefined) d.held = set.held;
            if (set.status !== undefined) d.status = set.status;
          }
        },
      },
    }),
  } as unknown as MongoConnection;
  const heldIn = (month: Month) => (byMonth.get(month) ?? []).filter((d) => d.held).length;
  const failedIn = (month: Month) => (byMonth.get(month) ?? []).filter((d) => d.status === 'failed').length;
  return { conn, reads, heldIn, failedIn, walkWrites, walkDoc: () => walkDoc, refreshes: () => refreshed };
}

describe('acrossMonths: one batch over the months from the one a walk has reached', () => {
  it('reads each month for what the batch has left and stops in the month that filled it', async () => {
    const asked: [Month, number][] = [];
    const found: Record<Month, number> = { '202610': 3, '202611': 0, '202612': 7, '202701': 9 };
    const stopped = await acrossMonths(MONTHS, '202610', 10, async (m, limit) => {
      asked.push([m, limit]);
      return Math.min(limit, found[m] ?? 0);
    });
    // 202609 is before the month reached: not read. 3 + 0 + 7 = 10 fills the batch in 202612.
    expect(asked).toEqual([
      ['202610', 10],
      ['202611', 7],
      ['202612', 7],
    ]);
    expect(stopped).toBe('202612');
  });

  it('is done (undefined) when every month had fewer than was left, one short of the batch', async () => {
    const asked: Month[] = [];
    const stopped = await acrossMonths(MONTHS, null, 10, async (m, limit) => {
      asked.push(m);
      return m === '202610' ? Math.min(limit, 9) : 0;
    });
    expect(asked).toEqual(MONTHS);
    expect(stopped).toBeUndefined();
  });
});

describe("a hold walk's batch (MongoDB) across months", () => {
  it('holds what is left in every month in one batch when it fits, and the walk is gone', async () => {
    const s = stand({ '202609': 3, '202612': 2 });
    const done = await walkBatch(s.conn, session, ENDPOINT, 0, 10);
    expect(done.held).toBe(5);
    expect([s.heldIn('202609'), s.heldIn('202612')]).toEqual([3, 2]);
    expect(s.walkDoc(), 'the walk ended in this batch').toBeNull();
    // One read a month, each for what the batch had left: ≤ 10 deliveries in all.
    expect(s.reads).toEqual([
      { month: '202609', limit: 10 },
      { month: '202610', limit: 7 },
      { month: '202611', limit: 7 },
      { month: '202612', limit: 7 },
      { month: '202701', limit: 5 },
    ]);
  });

  it('stops in the month that filled the batch, records it, and the next batch starts there', async () => {
    const s = stand({ '202609': 4, '202611': 8 });
    expect((await walkBatch(s.conn, session, ENDPOINT, 0, 10)).held).toBe(10);
    expect(s.walkDoc()).toMatchObject({ hold: 'hold', month: '202611' });
    expect([s.heldIn('202609'), s.heldIn('202611')]).toEqual([4, 6]);
    s.reads.length = 0;
    expect((await walkBatch(s.conn, session, ENDPOINT, 0, 10)).held).toBe(2);
    // 202609 and 202610 are behind the month recorded: not read again.
    expect(s.reads.map((r) => r.month)).toEqual(['202611', '202612', '202701']);
    expect(s.heldIn('202611')).toBe(8);
    expect(s.walkDoc()).toBeNull();
  });

  it('a month holding exactly what was left stops the batch there: the next finds it empty and ends', async () => {
    const s = stand({ '202610': 10 });
    expect((await walkBatch(s.conn, session, ENDPOINT, 0, 10)).held).toBe(10);
    expect(s.walkDoc()).toMatchObject({ month: '202610' });
    expect((await walkBatch(s.conn, session, ENDPOINT, 0, 10)).held).toBe(0);
    expect(s.walkDoc()).toBeNull();
  });

  it('starts at the first month listed from the one recorded (a month retention dropped), and writes no month when it stops where it was', async () => {
    const s = stand({ '202609': 12 }, { walk: { month: '202608' } });
    expect((await walkBatch(s.conn, session, ENDPOINT, 0, 10)).held).toBe(10);
    expect(s.reads.map((r) => r.month)).toEqual(['202609']);
    expect(s.walkDoc()).toMatchObject({ month: '202609' });
    const t = stand({ '202609': 25 }, { walk: { month: '202609' } });
    expect((await walkBatch(t.conn, session, ENDPOINT, 0, 10)).held).toBe(10);
    expect(t.walkWrites, 'the month recorded already: no write of it').toEqual([]);
  });

  it('a batch of 0 reads nothing (limit(0) would be no limit) and leaves the walk as it was', async () => {
    const s = stand({ '202609': 3 });
    expect(await walkBatch(s.conn, session, ENDPOINT, 0, 0)).toEqual({ released: 0, failed: 0, held: 0, due: [] });
    expect(s.reads).toEqual([]);
    expect(s.walkDoc()).toMatchObject({ hold: 'hold', month: null });
  });
});

describe("a release walk's batch (MongoDB) across months", () => {
  const NOW = Date.UTC(2026, 11, 2, 12);

  it('releases every month in one batch and notes each month with a release due, not one whose released all wait in their lanes', async () => {
    const s = stand({ '202609': 3, '202611': 2, '202612': 1 }, { walk: { hold: 'release', heldSince: 0 }, status: 'active', laneWait: { '202611': true } });
    const done = await walkBatch(s.conn, session, ENDPOINT, NOW, 10);
    expect(done).toMatchObject({ released: 6, failed: 0, held: 0 });
    expect([s.heldIn('202609'), s.heldIn('202611'), s.heldIn('202612')]).toEqual([0, 0, 0]);
    expect(done.due).toEqual([
      { orgId: 'org_1', env: 'live', endpointId: ENDPOINT, month: '202609', dueAt: NOW },
      { orgId: 'org_1', env: 'live', endpointId: ENDPOINT, month: '202612', dueAt: NOW },
    ]);
    expect(s.walkDoc()).toBeNull();
  });

  it('releases nothing while the endpoint is not active: the release part ends, its deliveries held', async () => {
    const s = stand({ '202609': 3 }, { walk: { hold: 'release', heldSince: 0 }, status: 'paused' });
    expect((await walkBatch(s.conn, session, ENDPOINT, NOW, 10)).released).toBe(0);
    expect(s.reads).toEqual([]);
    expect(s.heldIn('202609')).toBe(3);
    expect(s.walkDoc(), 'the part ended (a later resume records its own)').toBeNull();
  });
});

describe("a fail walk's batch (MongoDB) across months", () => {
  it('fails every month in one batch when it fits, refreshes each month’s messages, and the walk is gone', async () => {
    const s = stand({ '202609': 3, '202612': 2 }, { walk: { hold: null, failBefore: Number.MAX_SAFE_INTEGER } });
    const done = await walkBatch(s.conn, session, ENDPOINT, 0, 10);
    expect(done).toMatchObject({ failed: 5, released: 0, held: 0 });
    expect([s.failedIn('202609'), s.failedIn('202612')]).toEqual([3, 2]);
    expect(refreshed.mock.calls.map((c) => c[3])).toEqual([
      ['msg_202609_0', 'msg_202609_1', 'msg_202609_2'],
      ['msg_202612_0', 'msg_202612_1'],
    ]);
    expect(s.walkDoc()).toBeNull();
  });

  it('reads no month that starts at or after its bound (a disabling ended by an enabling in 202611)', async () => {
    const s = stand({ '202609': 2, '202611': 4, '202612': 1 }, { walk: { hold: null, failBefore: monthStartOf('202611') } });
    expect((await walkBatch(s.conn, session, ENDPOINT, 0, 10)).failed).toBe(2);
    expect(s.reads.map((r) => r.month)).toEqual(['202609', '202610']);
    expect([s.failedIn('202611'), s.failedIn('202612')]).toEqual([0, 0]);
  });
});

describe("a release walk's batch (MongoDB): held before heldSince fails, after it is released", () => {
  it('splits each month by heldSince: the older failed with their messages, the newer released and noted due', async () => {
    const NOW = Date.UTC(2026, 11, 2, 12);
    const s = stand(
      { '202609': 2, '202612': 3 },
      { walk: { hold: 'release', heldSince: 1_000 }, status: 'active', createdAt: { '202609': 500, '202612': 2_000 } },
    );
    const done = await walkBatch(s.conn, session, ENDPOINT, NOW, 10);
    expect(done).toMatchObject({ released: 3, failed: 2 });
    expect([s.failedIn('202609'), s.heldIn('202609'), s.failedIn('202612'), s.heldIn('202612')]).toEqual([2, 2, 0, 0]);
    expect(done.due.map((d) => d.month)).toEqual(['202612']);
    expect(refreshed.mock.calls.map((c) => c[3])).toEqual([['msg_202609_0', 'msg_202609_1']]);
  });
});

describe('a walk recorded in a month this process has not listed yet', () => {
  it('reads the list again and walks that month, not taking the part for done', async () => {
    const s = stand({ '202702': 3 }, { walk: { month: '202702' }, relisted: [...MONTHS, '202702'] });
    expect((await walkBatch(s.conn, session, ENDPOINT, 0, 10)).held).toBe(3);
    expect(s.refreshes()).toBe(1);
    expect(s.reads.map((r) => r.month)).toEqual(['202702']);
  });

  it('leaves the walk as it was when the list read again still lacks a month newer than any it lists', async () => {
    const s = stand({ '202702': 3 }, { walk: { month: '202702' } });
    expect(await walkBatch(s.conn, session, ENDPOINT, 0, 10)).toEqual({ released: 0, failed: 0, held: 0, due: [] });
    expect(s.reads).toEqual([]);
    expect(s.walkDoc()).toMatchObject({ hold: 'hold', month: '202702' });
  });
});
