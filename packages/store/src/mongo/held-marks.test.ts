// An endpoint's held-write markers, without a server: a stand-in usage_counters recording each
// bulk write. A send that holds a delivery of a paused endpoint writes one marker of eight; a
// status change or a delete writes all eight, so it shares a document with every such send
// (their write conflict is what closes the race: held-marks.ts).
import type { ClientSession } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { HELD_MARKS, heldMarkId, markAllHeldWrites, markHeldWrite } from './held-marks.ts';

const session = { id: 'session' } as unknown as ClientSession;

function counters() {
  const writes: { ids: string[]; session: unknown; upserts: boolean[]; hints: unknown[]; comment: unknown }[] = [];
  const conn = {
    counters: {
      bulkWrite: async (ops: { updateOne: { filter: { _id: string }; upsert: boolean; hint: unknown } }[], options: { session: unknown; comment: unknown }) => {
        writes.push({
          ids: ops.map((o) => o.updateOne.filter._id),
          session: options.session,
          upserts: ops.map((o) => o.updateOne.upsert),
          hints: ops.map((o) => o.updateOne.hint),
          comment: options.comment,
        });
        return {};
      },
    },
  } as unknown as MongoConnection;
  return { conn, writes };
}

describe("an endpoint's held-write markers (MongoDB)", () => {
  it('a held send writes one of the eight, in its transaction; the eight are spread (not one document every send writes)', async () => {
    expect(HELD_MARKS).toBe(8);
    const { conn, writes } = counters();
    for (let i = 0; i < 200; i++) await markHeldWrite(conn, session, 'ep_1');
    expect(writes.every((w) => w.ids.length === 1 && w.session === session && w.upserts[0] === true)).toBe(true);
    const all = Array.from({ length: 8 }, (_, k) => heldMarkId('ep_1', k));
    const used = new Set(writes.map((w) => w.ids[0]));
    expect([...used].every((id) => all.includes(id!))).toBe(true);
    // 200 draws of 8: every marker used (a chance of about 8 × (7/8)^200 ≈ 2 × 10^-11 that one is not).
    expect(used.size).toBe(8);
  });

  it('a status change or a delete writes all eight in one round trip, so every held send conflicts with it', async () => {
    const { conn, writes } = counters();
    await markAllHeldWrites(conn, session, 'ep_1');
    expect(writes).toHaveLength(1);
    expect(writes[0]!.ids).toEqual(Array.from({ length: 8 }, (_, k) => `held-writes:ep_1:${k}`));
    expect(writes[0]!.session).toBe(session);
    expect(writes[0]!.upserts.every(Boolean)).toBe(true);
    // Named as its plan, on the _id index (query-plans.test.ts faults a command without a name).
    expect(writes[0]!.comment).toBe('operations.heldMark');
    expect(writes[0]!.hints).toEqual(Array.from({ length: 8 }, () => ({ _id: 1 })));
  });
});
