// The streak guard reads this process's rollup counts not yet written from memory (unwrittenSucceededRollups): pending,
// or in a flush under way — until that write settles: a refused entry stays (queued again), a written or an
// unknown-outcome batch goes (written, or dropped rather than counted twice). No server: the write is a stand-in.
import { describe, expect, it } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { addToRollups, flushRollups, unwrittenSucceededRollups } from './endpoint-stats-repo.ts';

const NOW = Date.UTC(2026, 11, 2, 12, 7);
const T = { orgId: 'org_1', env: 'live' } as never;

/** A connection whose rollup writes wait until the test settles them. */
function heldWrites() {
  const settles: { resolve: (v: unknown) => void; reject: (e: unknown) => void }[] = [];
  const conn = {
    endpointRollups: { bulkWrite: () => new Promise((resolve, reject) => settles.push({ resolve, reject })) },
  } as unknown as MongoConnection;
  return { conn, settles };
}

const attempt = (responseStatus: number, endpointId = 'ep_1') => ({ endpointId: endpointId as never, at: NOW, responseStatus, error: null, durationMs: 5 });
const BUCKETS = [
  { grainMs: 300_000, at: Date.UTC(2026, 11, 2, 12, 5) },
  { grainMs: 3_600_000, at: Date.UTC(2026, 11, 2, 12) },
];

describe("this process's rollup successes not yet written (the streak guard's)", () => {
  it('pending: its buckets of both grains, for that endpoint only, and only a success', async () => {
    const { conn } = heldWrites();
    await addToRollups(conn, T, attempt(500));
    expect(unwrittenSucceededRollups(conn, 'ep_1')).toEqual([]);
    await addToRollups(conn, T, attempt(204));
    await addToRollups(conn, T, attempt(204, 'ep_2'));
    expect(unwrittenSucceededRollups(conn, 'ep_1')).toEqual(BUCKETS);
  });

  it('in a flush under way: seen until its write is answered, then gone', async () => {
    const { conn, settles } = heldWrites();
    await addToRollups(conn, T, attempt(204));
    const flushed = flushRollups(conn);
    await Promise.resolve();
    expect(settles).toHaveLength(1);
    expect(unwrittenSucceededRollups(conn, 'ep_1')).toEqual(BUCKETS);
    settles[0]!.resolve({});
    await flushed;
    expect(unwrittenSucceededRollups(conn, 'ep_1')).toEqual([]);
  });

  it('refused by the server one by one: queued again, still seen; a write of unknown outcome: dropped, not seen', async () => {
    const refused = heldWrites();
    await addToRollups(refused.conn, T, attempt(204));
    const first = flushRollups(refused.conn);
    await Promise.resolve();
    refused.settles[0]!.reject(Object.assign(new Error('refused'), { writeErrors: [{ index: 0 }, { index: 1 }] }));
    await first;
    expect(unwrittenSucceededRollups(refused.conn, 'ep_1')).toEqual(BUCKETS);

    const unknown = heldWrites();
    await addToRollups(unknown.conn, T, attempt(204));
    const second = flushRollups(unknown.conn);
    await Promise.resolve();
    unknown.settles[0]!.reject(new Error('connection reset'));
    await second;
    expect(unwrittenSucceededRollups(unknown.conn, 'ep_1')).toEqual([]);
  });
});
