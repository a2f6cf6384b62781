import { firstIdAt, newId } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { MongoClient, MongoServerError } from 'mongodb';
import { MONTHS_DOC, MONTHS_LIST, MongoConnection } from './connection.ts';
import { parseHealCursor, sharePerEndpoint } from './delivery-claim.ts';
import { ensureListedMonthIndexes } from './month-buckets.ts';
import { INDEXES } from './indexes.ts';
import { MONTHS_PLANS } from './plans/months.ts';
import { dueEntryId } from './due-queue.ts';
import { unavailableKind } from './errors.ts';
import { POINT_OP_MS } from './query.ts';
import { idsByMonth, isMonth, monthOf, monthOfId, monthStartOf, nextMonth, previousMonth } from './months.ts';

describe('months of the MongoDB layout', () => {
  it('files a time in its UTC month, on both sides of each boundary', () => {
    const newYear = Date.UTC(2027, 0, 1);
    expect(monthOf(newYear - 1)).toBe('202612');
    expect(monthOf(newYear)).toBe('202701');
    const leapDay = Date.UTC(2028, 1, 29, 23, 59, 59, 999);
    expect(monthOf(leapDay)).toBe('202802');
    expect(monthOf(leapDay + 1)).toBe('202803');
  });

  it('reads the month from an id, as the id was stamped', () => {
    const at = Date.UTC(2026, 10, 30, 23, 59, 59, 999);
    expect(monthOfId(newId('delivery', { now: () => at }))).toBe('202611');
    expect(monthOfId(newId('delivery', { now: () => at + 1 }))).toBe('202612');
    expect(monthOfId(firstIdAt('message', Date.UTC(2026, 11, 1)))).toBe('202612');
    expect(() => monthOfId('dlv_not-an-id')).toThrow(/not a time-ordered id/);
  });

  it('steps months across a year and back to their first instant', () => {
    expect(nextMonth('202611')).toBe('202612');
    expect(nextMonth('202612')).toBe('202701');
    expect(previousMonth('202701')).toBe('202612');
    expect(previousMonth('202612')).toBe('202611');
    expect(monthStartOf('202701')).toBe(Date.UTC(2027, 0, 1));
    expect(monthOf(monthStartOf('202603') - 1)).toBe('202602');
    expect(isMonth('202612')).toBe(true);
    expect(isMonth('202613')).toBe(false);
    expect(isMonth('202600')).toBe(false);
  });

  it("keys a due entry month first, so a month's entries are one range of _id that no other month's enters", () => {
    const entry = dueEntryId('202611', 'ep_01JD');
    expect(entry).toBe('202611:ep_01JD');
    expect(entry >= '202611:' && entry < '202611;').toBe(true);
    const next = dueEntryId('202612', 'ep_01JD');
    expect(next >= '202611:' && next < '202611;').toBe(false);
  });

  it('goes on healing where it stopped; a month no longer kept starts over at the oldest', () => {
    const months = ['202610', '202611', '202612'];
    expect(parseHealCursor('', months)).toEqual({ month: '202610', after: '' });
    expect(parseHealCursor('202611:ep_5', months)).toEqual({ month: '202611', after: 'ep_5' });
    expect(parseHealCursor('202609:ep_5', months)).toEqual({ month: '202610', after: '' });
    expect(parseHealCursor('', [])).toEqual({ month: undefined, after: '' });
  });

  it('gives an endpoint with due work in two months its share once, oldest due first', () => {
    const due = [
      { id: 'a1', endpointId: 'ep_a' },
      { id: 'b1', endpointId: 'ep_b' },
      { id: 'a2', endpointId: 'ep_a' },
      { id: 'a3', endpointId: 'ep_a' },
    ];
    expect(sharePerEndpoint(due, 2).map((d) => d.id)).toEqual(['a1', 'b1', 'a2']);
    expect(sharePerEndpoint(due, 3).map((d) => d.id)).toEqual(['a1', 'b1', 'a2', 'a3']);
  });

  it('groups ids by their month, each once', () => {
    const nov = newId('delivery', { now: () => Date.UTC(2026, 10, 30, 23, 59) });
    const dec = newId('delivery', { now: () => Date.UTC(2026, 11, 1) });
    expect([...idsByMonth([nov, dec, nov])]).toEqual([
      ['202611', [nov]],
      ['202612', [dec]],
    ]);
  });

  it('reads the list of months as its plan says (connection.ts spells it out)', () => {
    const plan = MONTHS_PLANS.list(MONTHS_DOC);
    expect(MONTHS_LIST).toEqual({ filter: plan.filter, options: plan.options });
  });

  /** A connection whose `meta` answers each read of the list with `answer()`; `asked` holds each read's options. */
  function listedBy(first: () => Promise<unknown>) {
    const client = new MongoClient('mongodb://127.0.0.1:9');
    const conn = new MongoConnection(client, client.db('months-test'));
    const state = { asked: [] as unknown[], answer: first };
    Object.defineProperty(conn, 'meta', { value: { findOne: (_filter: unknown, options: unknown) => (state.asked.push(options), state.answer()) } });
    return { conn, state };
  }
  const timeLimit = () => Promise.reject(new MongoServerError({ code: 50, codeName: 'MaxTimeMSExpired', errmsg: 'operation exceeded time limit' }));
  const listing =
    (...months: string[]) =>
    () =>
      Promise.resolve({ _id: MONTHS_DOC, months });

  it("bounds the list's read on the server: with no list to answer, a read past it is the overload's (a 503), one read for all waiting", async () => {
    const { conn, state } = listedBy(timeLimit);
    const [first, second] = await Promise.allSettled([conn.months(1_000), conn.months(1_000)]);
    expect(state.asked).toEqual([{ hint: { _id: 1 }, comment: 'months.list', maxTimeMS: POINT_OP_MS }]); // one read for both
    expect(first.status === 'rejected' && unavailableKind(first.reason)).toBe('overload');
    expect(second.status === 'rejected' && second.reason).toBe(first.status === 'rejected' && first.reason);
    // Not kept: the next call reads again, and keeps what it read for 60 s.
    state.answer = listing('202612', '202611');
    expect(await conn.months(2_000)).toEqual(['202611', '202612']);
    expect(await conn.months(2_000 + 59_999)).toEqual(['202611', '202612']);
    expect(state.asked).toHaveLength(2);
  });

  it('answers a list under 10 minutes old while it is read again, and after that read failed; an older one waits for the read', async () => {
    const { conn, state } = listedBy(listing('202611'));
    expect(await conn.months(0)).toEqual(['202611']);
    state.answer = timeLimit;
    // 60 s on: read again, the old list answering meanwhile; the failed read is tried again at the next call.
    expect(await conn.months(60_000)).toEqual(['202611']);
    await new Promise((resolve) => setImmediate(resolve)); // that read has failed
    expect(await conn.months(599_999)).toEqual(['202611']);
    expect(state.asked).toHaveLength(3);
    await new Promise((resolve) => setImmediate(resolve));
    // 10 minutes on, the list is no answer: the read is, and it fails.
    await expect(conn.months(600_000)).rejects.toMatchObject({ code: 50 });
    state.answer = listing('202611', '202612');
    expect(await conn.months(600_001)).toEqual(['202611', '202612']);
    // A clock stepped back says nothing of the list's age: read again, and waited for.
    state.answer = timeLimit;
    await expect(conn.months(500_000)).rejects.toMatchObject({ code: 50 });
  });

  it('keeps no list from a read begun before forgetMonths (this process made a month meanwhile)', async () => {
    let finish!: (doc: unknown) => void;
    const { conn, state } = listedBy(() => new Promise((resolve) => (finish = resolve)));
    const early = conn.months(0);
    conn.forgetMonths();
    state.answer = listing('202611', '202612');
    const late = conn.months(1); // a read of its own, not the one under way
    finish({ _id: MONTHS_DOC, months: ['202611'] });
    expect(await early).toEqual(['202611']);
    expect(await late).toEqual(['202611', '202612']);
    expect(await conn.months(2)).toEqual(['202611', '202612']);
    expect(state.asked).toHaveLength(2);
  });

  it('reads the list again on refreshMonths while the kept one answers everyone else; a failed read keeps it', async () => {
    let finish!: (doc: unknown) => void;
    const { conn, state } = listedBy(listing('202611'));
    expect(await conn.months(0)).toEqual(['202611']);
    state.answer = () => new Promise((resolve) => (finish = resolve));
    const refreshed = conn.refreshMonths(1);
    // Within its minute, the kept list answers (no wait on the read under way, no second read).
    expect(await conn.months(2)).toEqual(['202611']);
    finish({ _id: MONTHS_DOC, months: ['202611', '202612'] });
    expect(await refreshed).toEqual(['202611', '202612']);
    expect(await conn.months(3)).toEqual(['202611', '202612']);
    state.answer = timeLimit;
    await expect(conn.refreshMonths(4)).rejects.toMatchObject({ code: 50 });
    expect(await conn.months(5), 'a failed read replaces nothing').toEqual(['202611', '202612']);
    expect(state.asked).toHaveLength(3);
  });

  it('files an id of a month before the legacy month in the adopted single collections, and later ids in their own months', () => {
    // No server is dialled: the driver connects on the first command, and none is sent.
    const client = new MongoClient('mongodb://127.0.0.1:9');
    const conn = new MongoConnection(client, client.db('months-test'));
    const at = (y: number, m: number) => newId('delivery', { now: () => Date.UTC(y, m - 1, 15) });
    const [sept, nov, dec] = [at(2026, 9), at(2026, 11), at(2026, 12)];
    expect(conn.bucketOf(sept).deliveries.collectionName).toBe('deliveries_202609');
    conn.legacyMonth = '202611';
    expect(conn.bucketMonthOf(sept)).toBe('202611');
    expect(conn.bucketOf(sept).deliveries.collectionName).toBe('deliveries');
    expect(conn.bucketOf(nov).attempts.collectionName).toBe('attempts');
    expect(conn.bucketOf(dec).messages.collectionName).toBe('messages_202612');
    expect([...conn.idsByBucket([sept, nov, dec])]).toEqual([
      ['202611', [sept, nov]],
      ['202612', [dec]],
    ]);
  });

  it('gives every listed month every monthly index at start, so an index a release adds reaches the months made before it', async () => {
    const made: string[] = [];
    const family = (month: string, name: string) => ({
      createIndexes: async (specs: { name?: string }[]) => void made.push(`${name}_${month}: ${specs.map((i) => i.name).join(',')}`),
    });
    const conn = {
      months: async () => ['202610', '202611', '202612'],
      // 202610 is listed but dropped already (retention, after this start read the list): not made again.
      db: { listCollections: () => ({ toArray: async () => ['202611', '202612'].flatMap((m) => [{ name: `deliveries_${m}` }, { name: `messages_${m}` }]) }) },
      legacyMonth: null,
      bucket: (month: string) => ({
        messages: family(month, 'messages'),
        messageBodies: family(month, 'message_bodies'),
        deliveries: family(month, 'deliveries'),
        attempts: family(month, 'attempts'),
      }),
    } as unknown as MongoConnection;
    await ensureListedMonthIndexes(conn);
    expect(made).toHaveLength(8);
    const deliveryIndexes = (INDEXES['deliveries'] ?? []).map((i) => i.name).join(',');
    expect(made).toContain(`deliveries_202611: ${deliveryIndexes}`);
    expect(made).toContain(`deliveries_202612: ${deliveryIndexes}`);
  });
});
