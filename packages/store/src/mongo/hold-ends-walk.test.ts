// The walk's part for ended Retry-After holds without a server: each kept end's rest in turn
// (hold-ends.ts), within one batch of the walk. The stand-in connection answers walkBatch's reads
// of the walk and the endpoint and records its writes; releasePutOff is a spy (what it does with
// an end is end-hold.test.ts's and the store contract's, endpoint-hold-contract.ts).
import type { EndpointId } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { releasePutOff } from './endpoint-put-off.ts';
import { walkBatch } from './endpoint-walk.ts';
import { WalkCollection } from '../../test/mongo/walk-collection.ts';

vi.mock('./endpoint-put-off.ts', async (original) => ({
  ...(await original<typeof import('./endpoint-put-off.ts')>()),
  releasePutOff: vi.fn(),
}));
const releases = vi.mocked(releasePutOff);
beforeEach(() => releases.mockReset());

const session = { id: 'session' } as unknown as ClientSession;
const ENDPOINT = 'ep_1' as EndpointId;
const NOW = 1_000;
const [A, B] = [NOW + 3_600_000, NOW + 7_200_000];

/** A walk with only hold ends left (and `rest` of other parts), of an endpoint held until `heldUntil` (null: no hold). */
function stand(putOffUntil: number | null, putOffMore: unknown[] | null, heldUntil: number | null = null, rest: Record<string, unknown> = {}) {
  const walks = new WalkCollection({
    _id: ENDPOINT,
    orgId: 'org_1',
    env: 'live',
    hold: null,
    heldSince: null,
    failBefore: null,
    putOffUntil,
    putOffMore,
    month: null,
    ...rest,
  });
  const conn = {
    legacyMonth: null,
    months: async () => ['202611', '202612'],
    endpoints: { findOne: async () => ({ _id: ENDPOINT, heldUntil, status: 'active' }) },
    endpointWalks: walks,
  } as unknown as MongoConnection;
  return { conn, walks, writes: walks.writes, deletes: walks.deletes };
}

/** releasePutOff's calls: the hold end, the limit, when they become due. */
const calls = () => releases.mock.calls.map((call) => [call[4], call[6], call[7]]);
/** What releasePutOff returns; by default it read only what it made due, of a 1,000 batch's 5,000. */
const made = (count: number, more: boolean, readLeft = 5_000 - count) => ({ due: [], count, more, readLeft });

describe("the walk's part for ended holds (MongoDB)", () => {
  it('does the first hold’s rest, then the second’s in the same batch, and ends the walk', async () => {
    releases.mockResolvedValueOnce(made(2, false, 4_990)).mockResolvedValueOnce(made(5, false, 4_900));
    const s = stand(A, [B]);
    expect(await walkBatch(s.conn, session, ENDPOINT, NOW, 1_000)).toMatchObject({ released: 7 });
    // One read budget for the batch, 5 × 1,000: the second end reads what the first left.
    expect(releases.mock.calls.map((call) => [call[4], call[6], call[7], call[8]])).toEqual([
      [A, 1_000, NOW, 5_000],
      [B, 998, NOW, 4_990],
    ]);
    expect(s.writes).toEqual([{ $set: { putOffUntil: null, putOffMore: null, month: null } }]);
    expect(s.deletes).toEqual([expect.objectContaining({ _id: ENDPOINT, putOffUntil: null })]);
    expect(s.walks.doc).toBeNull();
  });

  it('a batch filled by the first end writes nothing and goes on from it next time', async () => {
    releases.mockResolvedValueOnce(made(1_000, true));
    const s = stand(A, [B]);
    expect(await walkBatch(s.conn, session, ENDPOINT, NOW, 1_000)).toMatchObject({ released: 1_000 });
    expect(calls()).toEqual([[A, 1_000, NOW]]);
    expect([s.writes, s.deletes]).toEqual([[], []]);
  });

  it('a batch filled by the second end records it as the walked one', async () => {
    releases.mockResolvedValueOnce(made(2, false)).mockResolvedValueOnce(made(998, true));
    const s = stand(A, [B]);
    await walkBatch(s.conn, session, ENDPOINT, NOW, 1_000);
    expect(s.writes).toEqual([{ $set: { putOffUntil: B, putOffMore: null } }]);
    expect(s.deletes).toEqual([]);
  });

  it('an end over by now is passed without a read; under a new hold sooner than an end, its rest goes to the new end', async () => {
    releases.mockResolvedValueOnce(made(3, false));
    const sooner = NOW + 10_000;
    const s = stand(NOW - 1, [B], sooner);
    await walkBatch(s.conn, session, ENDPOINT, NOW, 1_000);
    expect(calls()).toEqual([[B, 1_000, sooner]]);
  });

  it('under a new hold later than every end, each rest goes to its end (not left to be claimed at its old end and put back)', async () => {
    releases.mockResolvedValueOnce(made(2, false)).mockResolvedValueOnce(made(5, false));
    const later = B + 60_000;
    const s = stand(A, [B], later);
    expect(await walkBatch(s.conn, session, ENDPOINT, NOW, 1_000)).toMatchObject({ released: 7 });
    expect(calls()).toEqual([
      [A, 1_000, later],
      [B, 998, later],
    ]);
    expect(s.writes).toEqual([{ $set: { putOffUntil: null, putOffMore: null, month: null } }]);
  });

  it('ends an older replica left behind a putOffUntil it cleared are still walked', async () => {
    releases.mockResolvedValueOnce(made(4, false));
    const s = stand(null, [B]);
    expect(await walkBatch(s.conn, session, ENDPOINT, NOW, 1_000)).toMatchObject({ released: 4 });
    expect(calls()).toEqual([[B, 1_000, NOW]]);
  });

  it('an older replica’s shape (putOffUntil cleared, ends left behind) is written back as this build keeps it while an end has more', async () => {
    releases.mockResolvedValueOnce(made(1_000, true));
    const s = stand(null, [A, B]);
    await walkBatch(s.conn, session, ENDPOINT, NOW, 1_000);
    expect(calls()).toEqual([[A, 1_000, NOW]]);
    // Left as it was, an older replica would read no put-off part and delete the walk with A's rest and B still to do.
    expect(s.writes).toEqual([{ $set: { putOffUntil: A, putOffMore: [B] } }]);
  });

  it('a walk written before putOffMore (one end) is done as before', async () => {
    releases.mockResolvedValueOnce(made(4, false));
    const s = stand(A, null);
    expect(await walkBatch(s.conn, session, ENDPOINT, NOW, 1_000)).toMatchObject({ released: 4 });
    expect(calls()).toEqual([[A, 1_000, NOW]]);
  });

  it('ends none of which is a time (a hand’s edit) are cleared and the walk goes, nothing read', async () => {
    const s = stand(null, ['soon']);
    expect(await walkBatch(s.conn, session, ENDPOINT, NOW, 1_000)).toMatchObject({ released: 0 });
    expect(calls()).toEqual([]);
    expect(s.writes).toEqual([{ $set: { putOffUntil: null, putOffMore: null, month: null } }]);
    // walkDone's filter: `putOffMore: null` would also match an array holding a null beside an end.
    expect(s.deletes).toEqual([expect.objectContaining({ _id: ENDPOINT, putOffMore: { $not: { $type: 'array' } } })]);
  });

  it('a walk whose further ends hold a null beside an end (a hand’s edit) is not deleted when another part ends: that end is still to walk', async () => {
    // Another part first (a pause's hold, the endpoint active again: nothing to hold), then walkDone.
    const s = stand(null, [null, B], null, { hold: 'hold', heldSince: NOW });
    await walkBatch(s.conn, session, ENDPOINT, NOW, 1_000);
    expect(s.writes).toEqual([{ $set: { hold: null, heldSince: null, month: null } }]);
    // `putOffMore: null` in walkDone's filter would match [null, B] (as MongoDB matches, and mingo with it).
    expect(s.walks.doc).toMatchObject({ putOffMore: [null, B] });
    releases.mockResolvedValueOnce(made(3, false));
    await walkBatch(s.conn, session, ENDPOINT, NOW, 1_000);
    expect(calls()).toEqual([[B, 1_000, NOW]]);
    expect(s.walks.doc).toBeNull();
  });

  it('an end equal to the new hold’s is passed without a write: its rest is already where that hold’s end finds it', async () => {
    releases.mockResolvedValueOnce(made(5, false));
    const s = stand(A, [B], A);
    await walkBatch(s.conn, session, ENDPOINT, NOW, 1_000);
    expect(calls()).toEqual([[B, 1_000, A]]);
  });
});
