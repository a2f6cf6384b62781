// The end of a Retry-After hold (endHold) without a server: stand-in collections answer the
// reads endpoint-put-off.ts makes of the endpoint's due index (one month's entries at the hold's
// end, newest month first) and record its writes. A request asks for REQUEST_WALK_BATCH (100:
// request-walk-batch.test.ts); beyond it, the endpoint's walk is told the rest (`putOffUntil`).
// The real-server cases are the store contract's (endpoint-hold-contract.ts).
import type { EndpointId, Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { endHold } from './endpoint-put-off.ts';
import { REQUEST_WALK_BATCH, walkBatch } from './endpoint-walk.ts';
import type { Month } from './months.ts';

const session = { id: 'session' } as unknown as ClientSession;
const t = { orgId: 'org_1', env: 'live' } as Tenant;
const NOW = Date.UTC(2026, 11, 3, 12); // in 202612, the newest month of most stands
const HELD_UNTIL = NOW + 3_600_000;

/**
 * Each month's put-off entries, the first `leased` of the newest month being sent (leased past
 * NOW); `walk`: the hold ends the endpoint's walk has already (none: no walk).
 */
function stand(
  counts: Partial<Record<Month, number>>,
  leased = 0,
  walk: { putOffUntil: number; putOffMore?: number[] } | null = null,
  /** Per hold end, the newest month's entries at it (of them the first `leased` being sent), in place of `counts`. */
  atEnd: Record<number, { count: number; leased: number }> = {},
) {
  const reads: { month: Month; limit: number }[] = [];
  const madeDue: { month: Month; ids: string[]; dueAt: number }[] = [];
  const walkWrites: Record<string, unknown>[] = [];
  const months = Object.keys(counts).sort() as Month[];
  const newest = months.at(-1);
  const conn = {
    legacyMonth: null,
    months: async () => months,
    endpoints: { findOne: async () => ({ _id: 'ep_1', heldUntil: null }) },
    endpointWalks: {
      findOneAndUpdate: async (_filter: unknown, update: Record<string, unknown>) => {
        walkWrites.push(update);
        return walk === null ? null : { _id: 'ep_1', orgId: 'org_1', env: 'live', hold: null, heldSince: null, failBefore: null, month: null, ...walk };
      },
      updateOne: async (_filter: unknown, update: Record<string, unknown>) => {
        walkWrites.push(update);
      },
      deleteOne: async () => {},
    },
    bucket: (month: Month) => ({
      deliveries: {
        find: (filter: { dueAt: { $gte: number } }) => ({
          limit: (n: number) => ({
            batchSize: () => {
              reads.push({ month, limit: n });
              const at = month === newest ? atEnd[filter.dueAt.$gte] : undefined;
              const docs = Array.from({ length: Math.min(at?.count ?? counts[month] ?? 0, n) }, (_, i) => ({
                _id: `dlv_${month}_${i}`,
                leaseUntil: month === newest && i < (at?.leased ?? leased) ? NOW + 30_000 : null,
              }));
              return (async function* () {
                yield* docs;
              })();
            },
          }),
        }),
        updateMany: async (filter: { _id: { $in: string[] } }, update: { $set: { dueAt: number } }) => {
          madeDue.push({ month, ids: filter._id.$in, dueAt: update.$set.dueAt });
        },
      },
    }),
  } as unknown as MongoConnection;
  return { conn, reads, madeDue, walkWrites };
}

describe('ending a Retry-After hold (MongoDB)', () => {
  it('makes 100 of 150 put off due in its transaction, newest month first, and leaves the other 50 to the walk', async () => {
    const s = stand({ '202611': 50, '202612': 100 });
    const due = await endHold(s.conn, session, t, 'ep_1', NOW, HELD_UNTIL, REQUEST_WALK_BATCH);
    expect(s.madeDue.map((m) => [m.month, m.ids.length, m.dueAt])).toEqual([['202612', 100, NOW]]);
    // One month read, for at most 5 × the batch (leased entries come first in a busy endpoint's range).
    expect(s.reads).toEqual([{ month: '202612', limit: 500 }]);
    expect(due).toEqual([{ orgId: 'org_1', env: 'live', endpointId: 'ep_1', month: '202612', dueAt: NOW }]);
    // The walk's document: bumped first (a walk batch conflicts at once), then told the rest.
    expect(s.walkWrites).toEqual([{ $inc: { version: 1 } }, expect.objectContaining({ $set: { putOffUntil: HELD_UNTIL, putOffMore: null } })]);
  });

  it('makes all of 99 due across months and leaves the walk nothing; sends in flight are not counted', async () => {
    const s = stand({ '202611': 40, '202612': 62 }, 3);
    await endHold(s.conn, session, t, 'ep_1', NOW, HELD_UNTIL, REQUEST_WALK_BATCH);
    expect(s.madeDue.map((m) => [m.month, m.ids.length])).toEqual([
      ['202612', 59],
      ['202611', 40],
    ]);
    expect(s.madeDue[0]!.ids).not.toContain('dlv_202612_0');
    expect(s.walkWrites).toEqual([{ $inc: { version: 1 } }]);
  });

  it('reads no month that starts after the hold’s end (plus a minute of clocks disagreeing): nothing there was put off by it', async () => {
    const lastOfMonth = Date.UTC(2026, 11, 31, 23, 30);
    const s = stand({ '202612': 10, '202701': 10 });
    await endHold(s.conn, session, t, 'ep_1', lastOfMonth - 3_600_000, lastOfMonth, REQUEST_WALK_BATCH);
    expect(s.reads.map((r) => r.month)).toEqual(['202612']);
    // An end within a minute of the next month's start reads that month too.
    const atTurn = Date.UTC(2027, 0, 1) - 30_000;
    const t2 = stand({ '202612': 10, '202701': 10 });
    await endHold(t2.conn, session, t, 'ep_1', atTurn - 3_600_000, atTurn, REQUEST_WALK_BATCH);
    expect(t2.reads.map((r) => r.month)).toEqual(['202701', '202612']);
  });

  it('rewrites nothing for a hold already over', async () => {
    const s = stand({ '202612': 10 });
    expect(await endHold(s.conn, session, t, 'ep_1', HELD_UNTIL + 1, HELD_UNTIL, REQUEST_WALK_BATCH)).toEqual([]);
    expect([s.reads, s.madeDue, s.walkWrites]).toEqual([[], [], []]);
  });

  it('a second hold ended before the walk did the first’s rest: its rest goes after the first’s, not over it', async () => {
    const first = NOW + 1_800_000;
    const s = stand({ '202612': 150 }, 0, { putOffUntil: first });
    await endHold(s.conn, session, t, 'ep_1', NOW, HELD_UNTIL, REQUEST_WALK_BATCH);
    expect(s.walkWrites[1]).toMatchObject({ $set: { putOffUntil: first, putOffMore: [HELD_UNTIL] } });
  });

  it('with eight holds’ rests kept, a ninth’s waits for its own end: the walk is not written', async () => {
    const ends = Array.from({ length: 8 }, (_, i) => NOW + (i + 1) * 60_000);
    const s = stand({ '202612': 150 }, 0, { putOffUntil: ends[0]!, putOffMore: ends.slice(1) });
    await endHold(s.conn, session, t, 'ep_1', NOW, HELD_UNTIL, REQUEST_WALK_BATCH);
    expect(s.walkWrites).toEqual([{ $inc: { version: 1 } }]);
    expect(s.madeDue.map((m) => m.ids.length)).toEqual([100]);
  });

  it('a walk batch’s ends share one read budget (5 × the batch): what the first end read, the second cannot', async () => {
    const second = HELD_UNTIL + 600_000;
    // At the first end 45 sends in flight (leased: read, not made due); at the second 20 put off.
    const s = stand(
      { '202612': 0 },
      0,
      { putOffUntil: HELD_UNTIL, putOffMore: [second] },
      { [HELD_UNTIL]: { count: 45, leased: 45 }, [second]: { count: 20, leased: 0 } },
    );
    // A batch of 10 reads 50 in all: 45 at the first end, 5 at the second, so 5 made due (not 10).
    expect(await walkBatch(s.conn, session, 'ep_1' as EndpointId, NOW, 10)).toMatchObject({ released: 5 });
    expect(s.reads).toEqual([
      { month: '202612', limit: 50 },
      { month: '202612', limit: 5 },
    ]);
    // The first end done, the second walked next: the walk's document says so.
    expect(s.walkWrites).toEqual([{ $inc: { version: 1 } }, { $set: { putOffUntil: second, putOffMore: null } }]);
  });
});
