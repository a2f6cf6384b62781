// A send's look for a replay before it takes a count (message-create.ts), without a server: the
// key's document read by _id, not the months' messages; the transaction's own lookup decides.

import { describe, expect, it } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { createMessage, KEY_TTL_MARGIN_MS, keyExpiresAt } from './message-create.ts';
import { monthOf, nextMonth } from './months.ts';
import { aSend } from '../../test/mongo/send-input.ts';

const NOW = Date.UTC(2026, 11, 2);
const DAY = 86_400_000;
const T = { orgId: 'org_1', env: 'live' } as never;

/** A store whose key document is `keyDoc` (null: none), counting the reads before the transaction, which ends the send. */
function store(keyDoc: { createdAt: number } | null, options: { replayRuns?: boolean } = {}) {
  const reads = { keyDocs: 0, messages: 0, counterWrites: 0, transactions: 0 };
  const month = monthOf(NOW);
  const conn = {
    bucketMonthOf: () => month,
    months: async () => [month, nextMonth(month)],
    idempotencyKeys: {
      findOne: async (filter: { _id: string }, options: { readPreference?: { mode?: string } }) => {
        reads.keyDocs++;
        expect(filter._id).toBe('org_1:live:key-1');
        // A key taken a moment ago is on the primary; a lagging secondary would not have it.
        expect(options.readPreference?.mode).toBe('primary');
        return keyDoc;
      },
    },
    // A consumer new to the send (read before the transaction): the transaction makes it.
    consumers: { findOne: async () => null },
    bucket: () => ({
      messages: {
        findOne: async () => {
          reads.messages++;
          return null;
        },
      },
    }),
    counters: {
      updateOne: async () => {
        reads.counterWrites++;
        return { modifiedCount: 1 };
      },
      // The value after the increment: 1 of 3.
      find: () => ({ toArray: async () => [{ _id: 'shard', value: 1, expiresAt: new Date(Date.UTC(2027, 1, 1)) }] }),
    },
    // The first transaction run when told (a replay's, which finds no message), every other where the test stops.
    transaction: async (work: (session: unknown) => Promise<unknown>) => {
      reads.transactions++;
      if (options.replayRuns === true && reads.transactions === 1) return work({});
      throw new Error('the transaction: where this test stops');
    },
  } as unknown as MongoConnection;
  return { conn, reads };
}

const send = (conn: MongoConnection) =>
  createMessage(
    conn,
    T,
    aSend(NOW, {
      eventType: 'a.b',
      newConsumerId: 'con_1' as never,
      idempotencyKey: 'key-1',
      idempotencySince: NOW - DAY,
      counters: [{ key: 'live:org_1:2026-12', limit: 3, increment: true, expiresAt: Date.UTC(2027, 1, 1) }],
    }),
  );

describe('a send with an Idempotency-Key, before its transaction', () => {
  it('a new key: one read of the key’s document, no month looked in, the count taken (the months’ lookup is the transaction’s)', async () => {
    const { conn, reads } = store(null);
    await expect(send(conn)).rejects.toThrow('where this test stops');
    // The count taken, then given back as the transaction failed.
    expect(reads).toEqual({ keyDocs: 1, messages: 0, counterWrites: 2, transactions: 1 });
  });

  it('a key whose message is within the window (24 h): the replay’s transaction, no count taken', async () => {
    const { conn, reads } = store({ createdAt: NOW - DAY });
    await expect(send(conn)).rejects.toThrow('where this test stops');
    expect(reads).toEqual({ keyDocs: 1, messages: 0, counterWrites: 0, transactions: 1 });
  });

  it('a key whose message retention dropped (its document outlived it): the replay finds none, and the send is counted', async () => {
    const { conn, reads } = store({ createdAt: NOW - DAY + 1 }, { replayRuns: true });
    await expect(send(conn)).rejects.toThrow('where this test stops');
    // The replay's lookup in this month and the next, then the send's own transaction after its count was taken (then given back).
    expect(reads).toEqual({ keyDocs: 1, messages: 2, counterWrites: 2, transactions: 2 });
  });

  it('a key document its TTL has not deleted yet, 1 ms past the window: a new send, its count taken', async () => {
    const { conn, reads } = store({ createdAt: NOW - DAY - 1 });
    await expect(send(conn)).rejects.toThrow('where this test stops');
    // The count taken, then given back as the transaction failed.
    expect(reads).toEqual({ keyDocs: 1, messages: 0, counterWrites: 2, transactions: 1 });
  });

  it('a key’s document outlives its window (24 h) by an hour: its TTL runs by the server’s clock, its window by the intake’s', () => {
    expect(KEY_TTL_MARGIN_MS).toBe(3_600_000);
    expect(keyExpiresAt({ createdAt: NOW, idempotencySince: NOW - DAY }).getTime()).toBe(NOW + DAY + 3_600_000);
    // A window that could not be (since after the send): none, and the margin still.
    expect(keyExpiresAt({ createdAt: NOW, idempotencySince: NOW + 5 }).getTime()).toBe(NOW + 3_600_000);
  });
});
