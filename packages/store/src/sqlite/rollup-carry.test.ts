// The SQLite store's endpoint rollups are written once per ROLLUP_FLUSH_MS, not with each
// batch (endpoint-stats-repo.ts): what a commit leaves on disk, what a timer, a prune and the
// close write, what a stats read counts, and that no attempt is counted twice. Time is vitest's (performance.now and
// setTimeout), so nothing here depends on how fast the machine is.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { ManualClock, type EndpointId, type OrgId, type Tenant } from '@wirehook/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Fixtures } from '../../test/contract/fixtures.ts';
import { HOUR, MessageFixtures, type Scene } from '../../test/contract/message-fixtures.ts';
import { claimRef } from '../ports/delivery-port.ts';
import { SqliteConnection } from './connection.ts';
import { addToRollups, ROLLUP_FLUSH_MS, SqliteEndpointStatsRepo } from './endpoint-stats-repo.ts';
import { migrate } from './migrations.ts';
import { openSqliteStore, type SqliteStore } from './open-sqlite-store.ts';

let dir: string;
let path: string;
let store: SqliteStore;
let m: MessageFixtures;
let clock: ManualClock;
let hour: number;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['performance', 'setTimeout', 'clearTimeout'] });
  dir = mkdtempSync(join(tmpdir(), 'wirehook-rollup-carry-'));
  path = join(dir, 'store.sqlite');
  store = openSqliteStore({ path });
  clock = new ManualClock();
  hour = Date.UTC(2026, 10, 30, 12);
  clock.set(hour);
  m = new MessageFixtures(new Fixtures(() => store, clock));
});

afterEach(async () => {
  await store.close();
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

/** Attempts counted in the hourly rows on disk, as another connection reads them (what is committed). */
function attemptsOnDisk(): number {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return Number(db.prepare('SELECT coalesce(sum(attempts), 0) AS n FROM endpoint_rollups WHERE grain_ms = 3600000').get()!['n']);
  } finally {
    db.close();
  }
}

/** One message to the scene's endpoint, claimed and answered 200: a batch of its own each step. */
async function deliver(scene: Scene): Promise<void> {
  clock.advance(1);
  const job = await m.claim(m.only(await m.send(scene.t)));
  await store.deliveries.complete(claimRef(job), m.succeeded(job, clock.now()));
}

const hourly = async (scene: Scene) => (await store.endpointStats.rollups(scene.t, scene.endpoint.id, 3_600_000, hour, hour + HOUR))[0]?.attempts ?? 0;

describe('SQLite endpoint rollups, written once a second', () => {
  it('keeps committed completions’ rollups back, and a timer writes them 1 s later, each attempt once', async () => {
    expect(ROLLUP_FLUSH_MS).toBe(1_000);
    const scene = await m.scene();
    for (let i = 0; i < 3; i++) await deliver(scene);
    // Three commits, no rollup row yet: each batch's increments joined the carry.
    expect(attemptsOnDisk()).toBe(0);
    vi.advanceTimersByTime(999);
    expect(attemptsOnDisk()).toBe(0);
    vi.advanceTimersByTime(1);
    await vi.waitFor(() => expect(attemptsOnDisk()).toBe(3));
    // Written, the carry starts again from nothing: the next one is not counted twice with them.
    await deliver(scene);
    vi.advanceTimersByTime(ROLLUP_FLUSH_MS);
    await vi.waitFor(() => expect(attemptsOnDisk()).toBe(4));
  });

  it('a stats read counts what is carried without writing it, and once it is written counts it once', async () => {
    const scene = await m.scene();
    await deliver(scene);
    await deliver(scene);
    expect(await hourly(scene)).toBe(2);
    expect(attemptsOnDisk()).toBe(0);
    vi.advanceTimersByTime(ROLLUP_FLUSH_MS);
    await vi.waitFor(() => expect(attemptsOnDisk()).toBe(2));
    expect(await hourly(scene)).toBe(2);
    // Nothing carried now: the timer armed before finds nothing more to add.
    vi.advanceTimersByTime(ROLLUP_FLUSH_MS);
    expect(attemptsOnDisk()).toBe(2);
  });

  it('the close writes what is carried', async () => {
    const scene = await m.scene();
    await deliver(scene);
    expect(attemptsOnDisk()).toBe(0);
    await store.close();
    expect(attemptsOnDisk()).toBe(1);
    store = openSqliteStore({ path });
  });

  it('completions committed by the close itself are written with it, not carried past it', async () => {
    const scene = await m.scene();
    await deliver(scene);
    vi.advanceTimersByTime(ROLLUP_FLUSH_MS);
    await vi.waitFor(() => expect(attemptsOnDisk()).toBe(1));
    // Nothing carried, and one still queued when the store closes: committed by the close, written by it.
    clock.advance(1);
    const job = await m.claim(m.only(await m.send(scene.t)));
    const queued = store.deliveries.complete(claimRef(job), m.succeeded(job, clock.now()));
    await store.close();
    await queued;
    expect(attemptsOnDisk()).toBe(2);
    store = openSqliteStore({ path });
  });

  it('pruning writes what is carried before it removes expired rows', async () => {
    const scene = await m.scene();
    await deliver(scene);
    expect(await store.endpointStats.prune(hour + 30 * 24 * HOUR, 10)).toBe(2);
    expect(attemptsOnDisk()).toBe(0);
  });

  describe('a carry of more rows than one batch writes (512)', () => {
    const t: Tenant = { orgId: 'org_carry' as OrgId, env: 'live' };
    const FIVE_MINUTES = 300_000;
    /** 700 attempts of one endpoint, each in a 5-minute bucket of its own (700 + 59 hourly rows), committed in one batch. */
    async function carry700(conn: SqliteConnection): Promise<void> {
      await conn.batched(() => {
        for (let i = 0; i < 700; i++) {
          addToRollups(conn, t, { endpointId: 'ep_carry' as EndpointId, at: hour + i * FIVE_MINUTES, responseStatus: 200, error: null, durationMs: 5 });
        }
      });
    }
    const fineOnDisk = () => {
      const db = new DatabaseSync(path, { readOnly: true });
      try {
        return Number(db.prepare('SELECT coalesce(sum(attempts), 0) AS n FROM endpoint_rollups WHERE grain_ms = 300000').get()!['n']);
      } finally {
        db.close();
      }
    };
    let conn: SqliteConnection;
    beforeEach(async () => {
      // A connection of the test's own on the store's file (its schema migrated by the store).
      await store.close();
      const db = new DatabaseSync(path);
      migrate(db);
      conn = new SqliteConnection(db, `${path}-wal`);
    });
    afterEach(() => {
      conn.close();
      store = openSqliteStore({ path });
    });

    it('is written in parts, one batch after the other, not a part a second; a read counts it all meanwhile', async () => {
      await carry700(conn);
      expect(fineOnDisk()).toBe(0);
      const stats = new SqliteEndpointStatsRepo(conn);
      const read = async () => (await stats.rollups(t, 'ep_carry' as EndpointId, 300_000, hour, hour + 700 * FIVE_MINUTES)).reduce((n, r) => n + r.attempts, 0);
      expect(await read()).toBe(700);
      vi.advanceTimersByTime(ROLLUP_FLUSH_MS);
      // The timer's batch writes 512 rows, the next batch the rest at once (no second timer).
      await vi.waitFor(() => expect(fineOnDisk()).toBe(700));
      expect(await read()).toBe(700);
    });

    it('the close writes it all', async () => {
      await carry700(conn);
      conn.close();
      expect(fineOnDisk()).toBe(700);
    });
  });
});
