import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { ManualClock, newId, type DeliveryId, type OrgId, type Tenant } from '@wirehook/core';
import { afterEach, describe, expect, it } from 'vitest';
import { describeStoreContract } from '../contract/store-contract.ts';
import { Fixtures } from '../contract/fixtures.ts';
import { DAY, HOUR, LEASE_MS, MessageFixtures } from '../contract/message-fixtures.ts';
import type { Store } from '../store.ts';
import { messageListQuery } from './message-list.ts';
import { MIGRATIONS, migrate, schemaVersion } from './migrations.ts';
import { openEmbeddedStore } from './open-embedded-store.ts';
import { openSqliteStore, SQLITE_FILE_NAME, type SqliteStore } from './open-sqlite-store.ts';
import { raceClaimDeliveries, raceCreateEndpoints } from './test-support/spawn-racers.ts';
import { openThreadedSqliteStore } from './threaded-store.ts';

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wirehook-store-'));
  tempDirs.push(dir);
  return dir;
}
function tempFile(): string {
  return join(tempDir(), 'store.sqlite');
}

describeStoreContract('sqlite :memory:', async () => openSqliteStore({ path: ':memory:' }));

const contractDir = mkdtempSync(join(tmpdir(), 'wirehook-store-contract-'));
describeStoreContract(
  'sqlite file',
  async () => openSqliteStore({ path: join(contractDir, 'contract.sqlite') }),
  async (store) => {
    await store.close();
    rmSync(contractDir, { recursive: true, force: true });
  },
);

const threadedDir = mkdtempSync(join(tmpdir(), 'wirehook-store-threaded-'));
describeStoreContract(
  'sqlite on a worker thread',
  async () => openThreadedSqliteStore({ path: join(threadedDir, 'contract.sqlite') }),
  async (store) => {
    await store.close();
    rmSync(threadedDir, { recursive: true, force: true });
  },
);

describe('SQLite store', () => {
  const open: SqliteStore[] = [];
  const openFile = (path: string): SqliteStore => {
    const store = openSqliteStore({ path });
    open.push(store);
    return store;
  };
  const fixtures = (store: Store) => new Fixtures(() => store, new ManualClock());

  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps data across a reopen and migrates only on the first open', async () => {
    const path = tempFile();
    const first = openFile(path);
    expect(first.migrationsApplied).toBe(MIGRATIONS.length);
    expect(first.schemaVersion).toBe(MIGRATIONS.length);
    const f = fixtures(first);
    const t = await f.tenant();
    const consumer = await f.consumer(t, 'kept');
    await first.close();

    const second = openFile(path);
    expect(second.migrationsApplied).toBe(0);
    expect(second.schemaVersion).toBe(MIGRATIONS.length);
    expect(await second.consumers.getByExternalId(t, 'kept')).toEqual(consumer);
  });

  it('puts a file in WAL mode', () => {
    const path = tempFile();
    openFile(path);
    const raw = new DatabaseSync(path);
    try {
      expect(raw.prepare('PRAGMA journal_mode').get()?.['journal_mode']).toBe('wal');
    } finally {
      raw.close();
    }
  });

  it('lets two stores on one file (CLI and server) see each other’s writes', async () => {
    const path = tempFile();
    const server = openFile(path);
    const cli = openFile(path);
    const f = fixtures(cli);
    const t = await f.tenant();
    const consumer = await f.consumer(t, 'from-cli');
    expect(await server.consumers.get(t, consumer.id)).toEqual(consumer);

    const endpoint = await fixtures(server).createEndpoint(t, consumer.id);
    expect(await cli.endpoints.get(t, endpoint.id)).toEqual(endpoint);
    expect((await cli.consumers.get(t, consumer.id))?.endpointCount).toBe(1);
    await expect(fixtures(server).consumer(t, 'from-cli')).rejects.toThrow('already exists');
    expect(await server.orgs.setPlan(t.orgId, 'pro')).toMatchObject({ plan: 'pro' });
    expect((await cli.orgs.get(t.orgId))?.plan).toBe('pro');
  });

  it('waits for another process’s write lock instead of failing', async () => {
    const path = tempFile();
    const store = openFile(path);
    const t = await fixtures(store).tenant();
    const holdMs = 600;
    const holder = spawn(process.execPath, [
      '--no-warnings',
      '--input-type=module',
      '-e',
      `import { DatabaseSync } from 'node:sqlite';
       const db = new DatabaseSync(process.argv[1]);
       db.exec('BEGIN IMMEDIATE');
       process.stdout.write('locked\\n');
       Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${holdMs});
       db.exec('COMMIT');`,
      path,
    ]);
    const exited = once(holder, 'exit');
    await once(holder.stdout, 'data');
    const started = performance.now();
    const consumer = await fixtures(store).consumer(t, 'after-lock');
    const waited = performance.now() - started;
    expect(await exited).toEqual([0, null]);
    expect(await store.consumers.get(t, consumer.id)).toEqual(consumer);
    expect(waited).toBeGreaterThan(holdMs / 3);
  });

  it('never lets racing processes exceed the endpoint cap', async () => {
    const path = tempFile();
    const store = openFile(path);
    const f = fixtures(store);
    const t: Tenant = await f.tenant();
    const consumer = await f.consumer(t);
    const max = 20;
    const results = await raceCreateEndpoints(4, { path, tenant: t, consumerId: consumer.id, attempts: 12, max });
    expect(results.flatMap((r) => r.errors)).toEqual([]);
    expect(results.reduce((sum, r) => sum + r.created, 0)).toBe(max);
    expect(results.reduce((sum, r) => sum + r.capped, 0)).toBe(4 * 12 - max);
    expect(await store.endpoints.list(t, { consumerId: consumer.id })).toHaveLength(max);
    expect((await store.consumers.get(t, consumer.id))?.endpointCount).toBe(max);
  });

  it('never lets two processes win the claim of one delivery', async () => {
    const path = tempFile();
    const store = openFile(path);
    const m = new MessageFixtures(fixtures(store));
    const { t } = await m.scene();
    const ids: DeliveryId[] = [];
    for (let i = 0; i < 50; i++) ids.push(m.only(await m.send(t)));
    const now = m.f.clock.now();
    const job = { path, now, leaseUntil: now + LEASE_MS };
    const reversed = ids.toReversed();
    const results = await raceClaimDeliveries([
      { ...job, ids },
      { ...job, ids: reversed },
      { ...job, ids },
      { ...job, ids: reversed },
    ]);
    expect(results.flatMap((r) => r.errors)).toEqual([]);
    const won = results.flatMap((r) => r.won);
    expect(won.toSorted()).toEqual(ids.toSorted());
    // Another instance on the file sees every lease taken.
    const other = openFile(path);
    for (const id of ids) expect(await other.deliveries.claim(id, now, now + LEASE_MS)).toBeNull();
    expect(await other.deliveries.due(now + LEASE_MS, 100, 100)).toHaveLength(50);
  });

  it('claims the due deliveries a create writes when asked, up to max, none of a paused endpoint', async () => {
    const store = openFile(tempFile());
    const m = new MessageFixtures(fixtures(store));
    const { t, consumer } = await m.scene();
    await m.hook(t, consumer);
    await m.hook(t, consumer, { status: 'paused' });
    const now = Date.now();
    const sent = await m.send(t, { createdAt: now, claim: { max: 10, leaseUntil: now + LEASE_MS } });
    expect(sent.claimed?.map((job) => job.delivery.id)).toHaveLength(2);
    expect(sent.dueDeliveryIds).toEqual([]);
    const capped = await m.send(t, { createdAt: now, claim: { max: 1, leaseUntil: now + LEASE_MS } });
    expect(capped.claimed).toHaveLength(1);
    expect(capped.dueDeliveryIds).toHaveLength(1);
    const none = await m.send(t, { createdAt: now });
    expect(none.claimed).toBeUndefined();
    expect(none.dueDeliveryIds).toHaveLength(2);
  });

  it('shares a page between backlogged endpoints, and fills it when some have only a few due', async () => {
    const store = openFile(tempFile());
    const m = new MessageFixtures(fixtures(store));
    const now = Date.now();
    const backlogOf = async (count: number, createdAt = now) => {
      const { t } = await m.scene();
      for (let i = 0; i < count; i++) m.only(await m.send(t, { createdAt }));
    };
    // Four endpoints with 30 due each: the oldest page of 20 is one endpoint's (over the cap of
    // 10), so the page is shared: 5 of each, not 10 of two and none of the others.
    for (let i = 0; i < 4; i++) await backlogOf(30);
    const shared = await store.deliveries.due(now, 20, 10);
    expect(shared).toHaveLength(20);
    expect(countBy(shared.map((d) => d.endpointId))).toEqual([5, 5, 5, 5]);
    // Two more endpoints with one due each (the oldest): the spread (ceil(20 / 6) = 4 each)
    // leaves the page short, so the endpoints that had more give more, up to the cap.
    await backlogOf(1, now - 1_000);
    await backlogOf(1, now - 1_000);
    const filled = await store.deliveries.due(now, 20, 10);
    expect(filled).toHaveLength(20);
    const counts = countBy(filled.map((d) => d.endpointId));
    expect(counts.filter((n) => n === 1)).toHaveLength(2);
    expect(Math.max(...counts)).toBeLessThanOrEqual(10);
    // A page bigger than all that is due: all of it, capped per endpoint.
    expect(await store.deliveries.due(now, 1_000, 10)).toHaveLength(4 * 10 + 2);
  });

  it('forgets usage counters past their expiry', async () => {
    const store = openFile(tempFile());
    const m = new MessageFixtures(fixtures(store));
    const t = await m.f.tenant();
    const createdAt = m.f.clock.now();
    const key = `day:${t.orgId}`;
    await m.send(t, { createdAt, counters: [{ key, limit: 1, increment: true, expiresAt: createdAt + 1 }] });
    expect(await store.messages.counter(key)).toBe(1);
    const later = await m.send(t, {
      createdAt: createdAt + 1,
      counters: [{ key, limit: 1, increment: true, expiresAt: createdAt + 2 }],
    });
    expect(later.counters).toEqual({ [key]: 1 });
    await m.send(t, { createdAt: createdAt + 2 });
    expect(await store.messages.counter(key)).toBe(0);
  });

  it('migrates a database made by the first schema version and keeps its data', async () => {
    const path = tempFile();
    const raw = new DatabaseSync(path);
    migrate(raw, MIGRATIONS.slice(0, 1));
    raw.exec(`INSERT INTO orgs (id, name, plan, owner_email, created_at) VALUES ('org_old', 'Old', 'free', NULL, 1)`);
    raw.close();
    const store = openFile(path);
    expect(store.migrationsApplied).toBe(MIGRATIONS.length - 1);
    const t: Tenant = { orgId: 'org_old' as OrgId, env: 'live' };
    expect((await store.orgs.get(t.orgId))?.name).toBe('Old');
    const sent = await new MessageFixtures(fixtures(store)).send(t);
    expect((await store.messages.get(t, sent.message.id))?.message).toEqual(sent.message);
  });

  it('moves a usage counter’s expiry to the one its latest send gives', async () => {
    // An increment writes the expiry only when it changed; a changed one must still land.
    const f = fixtures(openFile(tempFile()));
    const m = new MessageFixtures(f);
    const t = await f.tenant();
    const start = f.clock.now();
    const month = (expiresAt: number) => [{ key: 'month', limit: null, increment: true, expiresAt }];
    await m.send(t, { counters: month(start + HOUR) });
    await m.send(t, { counters: month(start + DAY) });
    f.clock.advance(2 * HOUR);
    expect((await m.send(t, { counters: month(start + DAY) })).counters).toEqual({ month: 3 });
    f.clock.advance(DAY);
    expect((await m.send(t, { counters: month(f.clock.now() + DAY) })).counters).toEqual({ month: 1 });
  });

  it('reads every listed status through the status index', () => {
    // Without it a list of one status walks the tenant's whole history (query-plans.test.ts
    // checks every statement for whole-table scans; this one is bounded by the tenant).
    const db = new DatabaseSync(':memory:');
    try {
      migrate(db);
      const plan = (sql: string) =>
        db
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all()
          .map((row) => String(row['detail']))
          .join('\n');
      const t: Tenant = { orgId: 'org_plan' as OrgId, env: 'live' };
      for (const status of ['pending', 'retrying', 'failed', 'success'] as const) {
        expect(plan(messageListQuery(t, { status, limit: 20 }).sql)).toContain('SEARCH m USING INDEX messages_tenant_status');
      }
    } finally {
      db.close();
    }
  });

  it('refuses a file made by a newer schema and leaves it untouched', () => {
    const path = tempFile();
    const raw = new DatabaseSync(path);
    raw.exec(`PRAGMA user_version = ${MIGRATIONS.length + 1}`);
    expect(() => openSqliteStore({ path })).toThrow(/newer than this build/);
    expect(schemaVersion(raw)).toBe(MIGRATIONS.length + 1);
    expect(raw.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table'").get()?.['n']).toBe(0);
    raw.close();
  });

  it('applies the migration steps in one transaction', () => {
    const db = new DatabaseSync(':memory:');
    try {
      const good = 'CREATE TABLE a (x INTEGER) STRICT';
      expect(() => migrate(db, [good, 'CREATE TABLE broken ('])).toThrow();
      expect(schemaVersion(db)).toBe(0);
      expect(db.prepare("SELECT name FROM sqlite_schema WHERE name = 'a'").get()).toBeUndefined();
      expect(migrate(db, [good])).toBe(1);
      expect(migrate(db, [good, 'CREATE TABLE b (y INTEGER) STRICT'])).toBe(1);
      expect(migrate(db, [good, 'CREATE TABLE b (y INTEGER) STRICT'])).toBe(0);
      expect(schemaVersion(db)).toBe(2);
    } finally {
      db.close();
    }
  });

  it('openEmbeddedStore creates the data directory and its database file', async () => {
    const dataDir = join(tempDir(), 'nested', 'data');
    const store = openEmbeddedStore(dataDir);
    open.push(store);
    expect(store.path).toBe(join(dataDir, SQLITE_FILE_NAME));
    expect(existsSync(store.path)).toBe(true);
    const id = newId('org', new ManualClock());
    await store.orgs.create({ id, name: 'Embedded', plan: 'free', ownerEmail: null, createdAt: 1 });
    expect((await store.orgs.get(id))?.name).toBe('Embedded');
  });
});

/** How many times each value occurs, in order of first occurrence. */
function countBy(values: readonly string[]): number[] {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.values()];
}
