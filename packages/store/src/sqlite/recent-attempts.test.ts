import { DatabaseSync } from 'node:sqlite';
import type { Attempt, DeliveryId } from '@wirehook/core';
import { RECENT_ATTEMPTS } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { HOUR, MessageFixtures, SECOND } from '../../test/contract/message-fixtures.ts';
import { countStatements } from '../../test/sqlite/statement-counts.ts';
import { tempStores } from '../../test/sqlite/temp-stores.ts';
import { claimRef } from '../ports/delivery-port.ts';
import { compareText } from './row.ts';

// An endpoint's newest attempts kept in a row of their own (recent-attempts.ts, schema step 39)
// instead of an index over all of them: written once a batch, the newest RECENT_ATTEMPTS (20).

/** attempts_endpoint's order: newest first, ties by id descending. */
const newestFirst = (a: Attempt, b: Attempt) => b.at - a.at || compareText(b.id, a.id);

describe('SQLite store: an endpoint’s recent attempts', () => {
  const { tempFile, openFile, fixtures } = tempStores();

  /** A store on a file, and a reader beside it to see the rows the store writes. */
  function scene() {
    const path = tempFile();
    const store = openFile(path);
    const m = new MessageFixtures(fixtures(store));
    const raw = new DatabaseSync(path, { readOnly: true });
    const kept = (endpointId: string): [number, string][] => {
      const row = raw.prepare('SELECT attempts FROM endpoint_recent_attempts WHERE endpoint_id = ?').get(endpointId);
      return row === undefined ? [] : JSON.parse(String(row['attempts']));
    };
    return { store, m, kept };
  }

  it('a batch of completions to two endpoints reads and writes each endpoint’s row once, and lists each one’s newest first', async () => {
    const { store, m, kept } = scene();
    const { t, consumer, endpoint } = await m.scene();
    const other = await m.hook(t, consumer);
    const ids: DeliveryId[] = [];
    for (let i = 0; i < 3; i++) ids.push(...(await m.send(t)).deliveryIds);
    const now = m.f.clock.now();
    const jobs = await Promise.all(ids.map((id) => m.claim(id, now)));
    const outcomes = jobs.map((job, i) => m.failed(job, now + i * SECOND, now + HOUR));
    const kind = (sql: string) => (sql.includes('endpoint_recent_attempts') ? (sql.startsWith('SELECT') ? 'reads' : 'writes') : undefined);
    const { counts } = await countStatements(kind, () => Promise.all(jobs.map((job, i) => store.deliveries.complete(claimRef(job), outcomes[i]!))));
    // Once per endpoint of the batch; one each per completion (six) before.
    expect(counts).toEqual({ reads: 2, writes: 2 });
    for (const e of [endpoint.id, other.id]) {
      const mine = outcomes.map((o) => o.attempt).filter((a) => a.endpointId === e);
      expect(mine).toHaveLength(3);
      expect(await store.deliveries.recentAttempts(t, e, RECENT_ATTEMPTS)).toEqual(mine.toSorted(newestFirst));
      expect(kept(e)).toEqual(mine.toSorted(newestFirst).map((a) => [a.at, a.id]));
    }
  });

  it('keeps the newest 20 by time, then id: an older attempt ended later takes its place in time; the oldest of 21 leaves', async () => {
    expect(RECENT_ATTEMPTS).toBe(20);
    const { store, m, kept } = scene();
    const { t, endpoint } = await m.scene();
    const first = m.only(await m.send(t));
    const retried = m.only(await m.send(t));
    const t0 = m.f.clock.now();
    const slow = await m.claim(first, t0);
    const made: Attempt[] = [];
    // 19 attempts of one delivery, a second apart, the last two at the same time (the tie goes by id).
    for (let i = 1; i <= 19; i++) {
      const at = t0 + Math.min(i, 18) * SECOND;
      const job = await m.claim(retried, at);
      const outcome = m.failed(job, at, at);
      await store.deliveries.complete(claimRef(job), outcome);
      made.push(outcome.attempt);
    }
    // A send begun at 9.5 s that answers after them all: listed by its time, not by when it ended.
    const late = m.failed(slow, t0 + 9_500, t0 + HOUR);
    await store.deliveries.complete(claimRef(slow), late);
    made.push(late.attempt);
    const twenty = made.toSorted(newestFirst);
    expect(twenty[0]!.at).toBe(twenty[1]!.at);
    expect(await store.deliveries.recentAttempts(t, endpoint.id, 20)).toEqual(twenty);
    expect(await store.deliveries.recentAttempts(t, endpoint.id, 3)).toEqual(twenty.slice(0, 3));
    // A 21st, newer: the oldest (1 s) leaves the row; 20 kept.
    const job = await m.claim(retried, t0 + 30 * SECOND);
    const newest = m.failed(job, t0 + 30 * SECOND, null);
    await store.deliveries.complete(claimRef(job), newest);
    const now20 = [newest.attempt, ...twenty.slice(0, 19)];
    expect(await store.deliveries.recentAttempts(t, endpoint.id, 20)).toEqual(now20);
    expect(kept(endpoint.id)).toEqual(now20.map((a) => [a.at, a.id]));
    expect(now20.map((a) => a.at)).not.toContain(t0 + SECOND);
  });

  it('an attempt removed with its message (retention) leaves the list, its id left in the row (not rewritten); another tenant reads none', async () => {
    const { store, m, kept } = scene();
    const { t, endpoint } = await m.scene();
    const t0 = m.f.clock.now();
    const old = await m.claim(m.only(await m.send(t, { createdAt: t0 - 2 * HOUR })), t0);
    const fresh = await m.claim(m.only(await m.send(t, { createdAt: t0 })), t0);
    const kept1 = m.succeeded(fresh, t0 + SECOND);
    await store.deliveries.complete(claimRef(old), m.succeeded(old, t0 + 2 * SECOND));
    await store.deliveries.complete(claimRef(fresh), kept1);
    expect(await store.messages.deleteBefore(t0 - HOUR, 10)).toBe(1);
    // The row still names both; the list shows the one left.
    expect(kept(endpoint.id)).toHaveLength(2);
    expect(await store.deliveries.recentAttempts(t, endpoint.id, 20)).toEqual([kept1.attempt]);
    expect(await store.deliveries.recentAttempts({ ...t, env: t.env === 'live' ? 'test' : 'live' }, endpoint.id, 20)).toEqual([]);
  });

  it('a deleted endpoint’s row goes with it, and an attempt that ends after the delete makes none again', async () => {
    const { store, m, kept } = scene();
    const { t, endpoint } = await m.scene();
    const [done, inFlight] = [m.only(await m.send(t)), m.only(await m.send(t))];
    const now = m.f.clock.now();
    const first = await m.claim(done, now);
    const second = await m.claim(inFlight, now);
    await store.deliveries.complete(claimRef(first), m.succeeded(first, now));
    expect(kept(endpoint.id)).toHaveLength(1);
    expect(await store.endpoints.delete(t, endpoint.id)).toBe(true);
    expect(kept(endpoint.id)).toEqual([]);
    // The send that outlived the delete is recorded (its message shows it), but makes no row.
    await store.deliveries.complete(claimRef(second), m.succeeded(second, now + SECOND));
    expect((await store.messages.get(t, (await m.delivery(t, inFlight)).messageId))?.deliveries[0]?.attempts).toHaveLength(1);
    expect(kept(endpoint.id)).toEqual([]);
    expect(await store.deliveries.recentAttempts(t, endpoint.id, 20)).toEqual([]);
  });
});
