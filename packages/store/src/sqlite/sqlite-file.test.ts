import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { ManualClock, newId, PlanLimitError, type DeliveryId, type Tenant } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { LEASE_MS, MessageFixtures } from '../../test/contract/message-fixtures.ts';
import { openEmbeddedStore } from './open-embedded-store.ts';
import { SQLITE_FILE_NAME } from './open-sqlite-store.ts';
import { raceClaimDeliveries, raceCreateEndpoints } from '../../test/sqlite/spawn-racers.ts';
import { tempStores } from '../../test/sqlite/temp-stores.ts';

// One database file shared: WAL, stores of other processes on it, their locks and races.

describe('SQLite store', () => {
  const { tempDir, tempFile, track, openFile, fixtures } = tempStores();

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

  // Linux's count of the bytes this process asked to write; elsewhere the test does not run.
  it.runIf(existsSync('/proc/self/io'))('keeps a group commit’s savepoint copies in memory, off the disk', async () => {
    // No share of bulky writes: the 200 creates in one batch, all of them run again with savepoints.
    const store = openFile(tempFile(), { bulkyShareMs: Number.POSITIVE_INFINITY });
    const f = fixtures(store);
    const t = await f.tenant();
    await f.createEndpoint(t, (await f.consumer(t, 'bench')).id, { eventTypes: null });
    const payload = JSON.stringify({ data: 'x'.repeat(1_000) });
    const message = (i: number, consumerExternalId = 'bench') => ({
      id: newId('message', { now: () => 1_000 + i }),
      eventType: 'bench.event',
      payload,
      createdAt: 1_000 + i,
      consumerExternalId,
      newConsumerId: newId('consumer', { now: () => 1_000 }),
      idempotencyKey: null,
      idempotencySince: 0,
      counters: [],
    });
    const first = await store.messages.create(t, message(0));
    const bytesWritten = () => Number(/^wchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1]);
    const before = bytesWritten();
    // 200 creates at once, and last one that fails after writing (a new consumer, then the
    // message's id taken): one group commit run again with each create in its own savepoint.
    // With the sub-journal spilled to a temp file this wrote 45 KB a message; in memory 2.5 KB.
    const [created, failed] = await Promise.all([
      Promise.all(Array.from({ length: 200 }, (_, i) => store.messages.create(t, message(i + 1)))),
      store.messages.create(t, { ...message(201, 'newcomer'), id: first.message.id }).then(
        () => null,
        (err: unknown) => err,
      ),
    ]);
    const perMessage = (bytesWritten() - before) / created.length;
    expect(String(failed)).toMatch(/UNIQUE/);
    expect(await store.consumers.getByExternalId(t, 'newcomer')).toBeNull(); // undone alone, in its savepoint
    expect(created.flatMap((m) => m.deliveryIds)).toHaveLength(200);
    expect(perMessage).toBeGreaterThan(1_024); // the payload itself reached the WAL
    expect(perMessage).toBeLessThan(12 * 1_024);
  });

  it('counts the due backlog for the metrics up to 100,000 (each scrape’s cap), and reads 100,000 beyond', async () => {
    const path = tempFile();
    const store = openFile(path);
    const m = new MessageFixtures(fixtures(store));
    const { t } = await m.scene();
    const first = m.only(await m.send(t, { createdAt: 1_000 }));
    // Copies of that due delivery, written by a second connection as another process would.
    const raw = new DatabaseSync(path);
    const copy = (from: number, count: number) =>
      raw
        .prepare(
          `WITH RECURSIVE c(x) AS (SELECT ?1 UNION ALL SELECT x + 1 FROM c WHERE x < ?1 + ?2 - 1)
           INSERT INTO deliveries (id, org_id, env, message_id, endpoint_id, url, status, attempt_count, policy_attempts,
                                   next_attempt_at, manual, created_at)
           SELECT 'dlv_copy_' || x, org_id, env, message_id, endpoint_id, url, 'pending', 0, 0, next_attempt_at, 0, created_at
           FROM deliveries, c WHERE id = ?3`,
        )
        .run(from, count, first);
    try {
      copy(1, 99_998);
      expect(await store.deliveries.backlog(2_000)).toMatchObject({ due: 99_999, oldestDueAt: 1_000 });
      copy(99_999, 2);
      expect(await store.deliveries.backlog(2_000)).toMatchObject({ due: 100_000, oldestDueAt: 1_000 });
      // Not yet due: none.
      expect(await store.deliveries.backlog(999)).toMatchObject({ due: 0, oldestDueAt: null });
    } finally {
      raw.close();
    }
  });

  it('refuses a send at its plan limit without running its group commit again, an expired counter present', async () => {
    const path = tempFile();
    const store = openFile(path);
    const m = new MessageFixtures(fixtures(store));
    const { t } = await m.scene();
    const raw = new DatabaseSync(path);
    raw.prepare("INSERT INTO usage_counters (key, value, expires_at) VALUES ('live:old:2026-10', 7, 1)").run();
    raw.close();
    const atLimit = { key: 'live:full:2026-12', limit: 0, increment: true, expiresAt: Date.now() + 86_400_000 };
    const rollbacks: string[] = [];
    const exec = DatabaseSync.prototype.exec;
    DatabaseSync.prototype.exec = function (this: DatabaseSync, sql: string) {
      if (sql === 'ROLLBACK') rollbacks.push(sql);
      return exec.call(this, sql);
    };
    try {
      // One batch: the refused send, and another that is taken.
      const results = await Promise.allSettled([m.send(t, { counters: [atLimit] }), m.send(t)]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
      expect((results[0] as PromiseRejectedResult).reason).toBeInstanceOf(PlanLimitError);
    } finally {
      DatabaseSync.prototype.exec = exec;
    }
    expect(rollbacks).toEqual([]);
  });

  it('openEmbeddedStore creates the data directory and its database file', async () => {
    const dataDir = join(tempDir(), 'nested', 'data');
    const store = track(openEmbeddedStore(dataDir));
    expect(store.path).toBe(join(dataDir, SQLITE_FILE_NAME));
    expect(existsSync(store.path)).toBe(true);
    const id = newId('org', new ManualClock());
    await store.orgs.create({ id, name: 'Embedded', plan: 'free', ownerEmail: null, createdAt: 1 });
    expect((await store.orgs.get(id))?.name).toBe('Embedded');
  });
});
