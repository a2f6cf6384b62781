// The healer's walks' shared positions (heal-cursors.ts): here against a stand-in for `meta` that
// does what the server does with the compare-and-set's upsert (a match updates; no document
// inserts; another position makes the insert collide on _id); where MONGODB_URL is set, against
// the server itself.
import { randomUUID } from 'node:crypto';
import { MongoClient, MongoServerError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { MongoConnection } from './connection.ts';
import { HEAL_WALKS, moveHealCursor, readHealCursors } from './heal-cursors.ts';
import { matches } from '../../test/mongo/walk-collection.ts';

type MetaDoc = { _id: string; cursor?: string };

function standIn() {
  const docs = new Map<string, MetaDoc>();
  const sent: { filter: unknown; update?: unknown; options: Record<string, unknown> }[] = [];
  const meta = {
    find: (filter: { _id: { $in: string[] } }, options: Record<string, unknown>) => {
      sent.push({ filter, options });
      return { toArray: async () => filter._id.$in.flatMap((id) => (docs.has(id) ? [{ ...docs.get(id)! }] : [])) };
    },
    updateOne: async (
      filter: { _id: string; cursor: string | { $in: (string | null)[] } },
      update: { $set: { cursor: string } },
      options: Record<string, unknown>,
    ) => {
      sent.push({ filter, update, options });
      const doc = docs.get(filter._id);
      // As the server matches (mingo): null in an $in matches a field that is absent.
      if (doc !== undefined && matches(doc, filter)) doc.cursor = update.$set.cursor;
      else if (doc !== undefined)
        throw new MongoServerError({ code: 11000, errmsg: `E11000 duplicate key error collection: w.meta index: _id_ dup key: { _id: "${filter._id}" }` });
      else if (options['upsert'] === true) docs.set(filter._id, { _id: filter._id, ...update.$set });
      return { matchedCount: doc === undefined ? 0 : 1 };
    },
  };
  return { conn: { meta } as unknown as MongoConnection, docs, sent };
}

describe("the healer's shared positions (MongoDB, a stand-in)", () => {
  it('reads both walks in one read on the primary, each from the start until a healing moved it', async () => {
    const { conn, sent } = standIn();
    expect(await readHealCursors(conn)).toEqual({ due: '', tenants: '' });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.filter).toEqual({ _id: { $in: ['heal:due', 'heal:tenants'] } });
    expect((sent[0]!.options['readPreference'] as { mode: string }).mode).toBe('primary');
    expect(await moveHealCursor(conn, 'due', '', '202612:ep_9')).toBe(true);
    expect(await readHealCursors(conn)).toEqual({ due: '202612:ep_9', tenants: '' });
  });

  it('moves a position only from the one its healing read: a second healing of the same stretch is dropped', async () => {
    const { conn, docs, sent } = standIn();
    // Two dispatchers read '' and walked the same stretch; the first to end moves it on.
    expect(await moveHealCursor(conn, 'tenants', '', '202612:ep_a')).toBe(true);
    expect(await moveHealCursor(conn, 'tenants', '', '202612:ep_b')).toBe(false);
    expect(docs.get(HEAL_WALKS.tenants)?.cursor).toBe('202612:ep_a');
    // The next goes on from there, to the end ('' again: the next pass from the start).
    expect(await moveHealCursor(conn, 'tenants', '202612:ep_a', '')).toBe(true);
    expect(await moveHealCursor(conn, 'tenants', '202612:ep_a', '202612:ep_c')).toBe(false);
    expect(docs.get(HEAL_WALKS.tenants)?.cursor).toBe('');
    // The primary's acknowledgement alone: a position rolled back walks a stretch again.
    const moves = sent.filter((s) => s.update !== undefined);
    expect(moves.every((s) => s.options['upsert'] === true && JSON.stringify(s.options['writeConcern']) === '{"w":1}')).toBe(true);
  });

  it('moves from the start a document that has no position (written by hand, or by a later build), not failing every move', async () => {
    const { conn, docs } = standIn();
    docs.set(HEAL_WALKS.due, { _id: HEAL_WALKS.due });
    expect(await readHealCursors(conn)).toEqual({ due: '', tenants: '' });
    expect(await moveHealCursor(conn, 'due', '', '202612:ep_1')).toBe(true);
    expect(docs.get(HEAL_WALKS.due)?.cursor).toBe('202612:ep_1');
  });

  it("throws what is not another healing's move (a lost primary), so the healing is told as failed", async () => {
    const { conn } = standIn();
    (conn.meta as unknown as { updateOne: () => Promise<never> }).updateOne = async () => {
      throw new MongoServerError({ code: 10107, errmsg: 'not primary' });
    };
    await expect(moveHealCursor(conn, 'due', '', 'x')).rejects.toThrow('not primary');
  });
});

const url = process.env['MONGODB_URL'];

describe.skipIf(url === undefined || url === '')("the healer's shared positions (MONGODB_URL)", () => {
  it('a move from the position read wins; one from a position since moved collides and is dropped', async () => {
    const client = new MongoClient(url as string);
    const dbName = `wirehook_heal_${randomUUID().replaceAll('-', '')}`;
    try {
      const conn = new MongoConnection(client, client.db(dbName));
      expect(await moveHealCursor(conn, 'due', '', '202612:ep_a')).toBe(true);
      expect(await moveHealCursor(conn, 'due', '', '202612:ep_b')).toBe(false);
      expect(await moveHealCursor(conn, 'due', '202612:ep_a', '')).toBe(true);
      expect(await readHealCursors(conn)).toEqual({ due: '', tenants: '' });
      expect(await moveHealCursor(conn, 'tenants', '', '202612:ep_z')).toBe(true);
      expect(await readHealCursors(conn)).toEqual({ due: '', tenants: '202612:ep_z' });
    } finally {
      await client.db(dbName).dropDatabase();
      await client.close();
    }
  });
});
