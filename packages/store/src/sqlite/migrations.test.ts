import { DatabaseSync } from 'node:sqlite';
import type { Attempt, DeliveryId, EndpointId, OrgId, Tenant } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { MessageFixtures } from '../../test/contract/message-fixtures.ts';
import { claimRef } from '../ports/delivery-port.ts';
import { MIGRATIONS, migrate, schemaVersion } from './migrations.ts';
import { endpointRecentAttempts } from './migrations/039-endpoint-recent-attempts.ts';
import { countEndpoints } from './migrations/025-endpoint-counts.ts';
import { AGED } from './message-status.ts';
import { SqliteConnection } from './connection.ts';
import { recordPutOffWalk } from './endpoint-put-off.ts';
import { dropHold } from './endpoint-walk.ts';
import { openSqliteStore } from './open-sqlite-store.ts';
import { compareText } from './row.ts';
import { tempStores } from '../../test/sqlite/temp-stores.ts';

// The schema's steps as a database meets them: first open, reopen, an old file, a newer one.

/** A file put back to step 38 by hand: the attempts' index by endpoint, no rows of their newest. */
const UNDO_STEP_39 = `
  DROP TABLE endpoint_recent_attempts;
  CREATE INDEX attempts_endpoint ON attempts (endpoint_id, at DESC, id DESC);`;

describe('SQLite store', () => {
  const { tempFile, openFile, fixtures } = tempStores();

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

  it('step 25 counts the open deliveries (pending, retrying, held) and the retrying ones already there, per endpoint', async () => {
    const path = tempFile();
    const store = openFile(path);
    const m = new MessageFixtures(fixtures(store));
    const { t, endpoint } = await m.scene();
    const ids = [m.only(await m.send(t)), m.only(await m.send(t)), m.only(await m.send(t)), m.only(await m.send(t)), m.only(await m.send(t))];
    const now = Date.now() + 1_000;
    for (const id of ids.slice(0, 2)) {
      const job = await m.claim(id, now);
      await store.deliveries.complete(claimRef(job), m.failed(job, now, now + 3_600_000));
    }
    const done = await m.claim(ids[2]!, now);
    await store.deliveries.complete(claimRef(done), m.succeeded(done, now));
    await store.endpoints.update(t, endpoint.id, { status: 'paused' });
    const kept = { retrying: await store.deliveries.retryingCount(t, endpoint.id), open: (await store.endpointStats.pending(t, endpoint.id)).count };
    expect(kept).toEqual({ retrying: 2, open: 4 });
    await store.close();
    // The step's count alone, on a table emptied as before the step (the triggers stay): what the triggers kept.
    const raw = new DatabaseSync(path);
    raw.exec(`DELETE FROM endpoint_counts; ${countEndpoints}`);
    raw.close();
    const reopened = openFile(path);
    expect({ retrying: await reopened.deliveries.retryingCount(t, endpoint.id), open: (await reopened.endpointStats.pending(t, endpoint.id)).count }).toEqual(
      kept,
    );
  });

  it('step 25 replaces the two count tables of steps 18 and 22 and their six triggers; their names stay as views a previous build reads', () => {
    const raw = new DatabaseSync(':memory:');
    migrate(raw, MIGRATIONS.slice(0, 24));
    raw.exec('PRAGMA foreign_keys = OFF');
    const insert = raw.prepare(
      `INSERT INTO deliveries (id, org_id, env, message_id, endpoint_id, url, status, attempt_count, policy_attempts,
                               next_attempt_at, manual, lease_until, created_at, held)
       VALUES (?, 'org_a', 'live', 'msg_a', ?, 'https://hooks.example/a', ?, 0, 0, NULL, 0, NULL, 1, 0)`,
    );
    const statuses = ['pending', 'retrying', 'retrying', 'success', 'failed', 'pending'];
    statuses.forEach((status, i) => insert.run(`dlv_${i}`, i < 4 ? 'ep_a' : 'ep_b', status));
    raw.prepare(`UPDATE deliveries SET status = 'retrying' WHERE id = 'dlv_0'`).run(); // kept by step 18's and 22's triggers
    migrate(raw);
    const names = (type: string) =>
      raw
        .prepare('SELECT name FROM sqlite_master WHERE type = ? ORDER BY name')
        .all(type)
        .map((r) => String(r['name']));
    expect(names('table')).toContain('endpoint_counts');
    expect(names('table').filter((n) => n === 'endpoint_retrying' || n === 'endpoint_open')).toEqual([]);
    expect(names('view')).toEqual(['endpoint_open', 'endpoint_retrying']);
    expect(names('trigger').filter((n) => n.startsWith('deliveries_') && /open|retrying|counts/.test(n))).toEqual([
      'deliveries_counts_delete',
      'deliveries_counts_insert',
      'deliveries_counts_update',
    ]);
    const counts = () => raw.prepare('SELECT endpoint_id, open, retrying FROM endpoint_counts ORDER BY endpoint_id').all();
    expect(counts()).toEqual([
      { endpoint_id: 'ep_a', open: 3, retrying: 3 },
      { endpoint_id: 'ep_b', open: 1, retrying: 0 },
    ]);
    // What the previous build reads, by its old names.
    expect(raw.prepare(`SELECT n FROM endpoint_retrying WHERE endpoint_id = 'ep_a'`).get()).toEqual({ n: 3 });
    expect(raw.prepare(`SELECT n FROM endpoint_open WHERE endpoint_id = 'ep_b'`).get()).toEqual({ n: 1 });
    // The new triggers keep both counts: retrying → success, a delete of a pending one, an insert straight into retrying.
    raw.prepare(`UPDATE deliveries SET status = 'success' WHERE id = 'dlv_1'`).run();
    raw.prepare(`DELETE FROM deliveries WHERE id = 'dlv_5'`).run();
    insert.run('dlv_6', 'ep_b', 'retrying');
    expect(counts()).toEqual([
      { endpoint_id: 'ep_a', open: 2, retrying: 2 },
      { endpoint_id: 'ep_b', open: 1, retrying: 1 },
    ]);
    raw.close();
  });

  it('step 23 gives the lanes already there the upgrade’s time as their last use', () => {
    const raw = new DatabaseSync(':memory:');
    migrate(raw, MIGRATIONS.slice(0, 22));
    raw.exec(`INSERT INTO delivery_lanes (endpoint_id, ordering_key, org_id, env, next_sequence, head_id) VALUES ('ep_old', 'a', 'org_old', 'live', 8, NULL)`);
    const before = Date.now();
    migrate(raw);
    const used = Number(raw.prepare('SELECT last_used_at FROM delivery_lanes').get()?.['last_used_at']);
    expect(used).toBeGreaterThanOrEqual(before);
    expect(used).toBeLessThanOrEqual(Date.now());
    raw.close();
  });

  it("step 27 makes an organization's conditions both environments' own; a choice in one then leaves the other's", async () => {
    const path = tempFile();
    const raw = new DatabaseSync(path);
    migrate(raw, MIGRATIONS.slice(0, 26));
    const chosen = { delivery_failure: '5m', automatic_stop: false, pending_retries: 100, usage: 50 } as const;
    raw.exec(`INSERT INTO orgs (id, name, plan, owner_email, created_at) VALUES ('org_old', 'Old', 'free', NULL, 1), ('org_none', 'None', 'free', NULL, 1)`);
    raw.prepare(`INSERT INTO alert_conditions (org_id, conditions, updated_at) VALUES ('org_old', ?, 7)`).run(JSON.stringify(chosen));
    raw.close();
    const store = openFile(path);
    expect(store.migrationsApplied).toBe(MIGRATIONS.length - 26);
    const live: Tenant = { orgId: 'org_old' as OrgId, env: 'live' };
    const test: Tenant = { orgId: 'org_old' as OrgId, env: 'test' };
    expect(await store.alerts.conditions(live)).toEqual(chosen);
    expect(await store.alerts.conditions(test)).toEqual(chosen);
    expect(await store.alerts.conditions({ orgId: 'org_none' as OrgId, env: 'live' })).toBeNull(); // never chose: the defaults
    await store.alerts.setConditions(test, { ...chosen, automatic_stop: true }, 8);
    expect(await store.alerts.conditions(live)).toEqual(chosen);
    expect(await store.alerts.conditions(test)).toEqual({ ...chosen, automatic_stop: true });
  });

  it('step 31: an endpoint made before custom headers has none, is not in their sealing walk, and takes headers later', async () => {
    const path = tempFile();
    const raw = new DatabaseSync(path);
    migrate(raw, MIGRATIONS.slice(0, 30));
    // The row as the previous build writes it (it knows no headers column).
    raw.exec(`
      INSERT INTO orgs (id, name, plan, owner_email, created_at) VALUES ('org_old', 'Old', 'free', NULL, 1);
      INSERT INTO consumers (id, org_id, env, external_id, name, created_at) VALUES ('con_old', 'org_old', 'live', 'old', NULL, 1);
      INSERT INTO endpoints (id, org_id, env, consumer_id, url, description, event_types, fixed_ip, status, disabled_reason,
                             failing_since, created_at, retry, compat_signature)
      VALUES ('ep_old', 'org_old', 'live', 'con_old', 'https://hooks.example/old', NULL, NULL, 0, 'active', NULL, NULL, 1,
              '{"count":0,"interval":"1m"}', NULL);`);
    raw.close();
    const store = openFile(path);
    expect(store.migrationsApplied).toBe(MIGRATIONS.length - 30);
    const t: Tenant = { orgId: 'org_old' as OrgId, env: 'live' };
    const id = 'ep_old' as EndpointId;
    expect((await store.endpoints.get(t, id))?.headers).toBeNull();
    expect(await store.sealing.sealedSecrets('endpoint_headers', null, 10)).toEqual([]);
    const headers = { sealed: 'v1.headers', shown: { 'x-api-key': '…c0de' } };
    expect((await store.endpoints.update(t, id, { headers }))?.headers).toEqual(headers);
    expect(await store.sealing.sealedSecrets('endpoint_headers', null, 10)).toEqual([{ ownerId: id, sealed: ['v1.headers'] }]);
  });

  it('step 32: an endpoint made before client certificates has none, is not in their sealing walk, and takes one later', async () => {
    const path = tempFile();
    const raw = new DatabaseSync(path);
    migrate(raw, MIGRATIONS.slice(0, 31));
    // The row as the previous build writes it (headers, but no tls column).
    raw.exec(`
      INSERT INTO orgs (id, name, plan, owner_email, created_at) VALUES ('org_old', 'Old', 'free', NULL, 1);
      INSERT INTO consumers (id, org_id, env, external_id, name, created_at) VALUES ('con_old', 'org_old', 'live', 'old', NULL, 1);
      INSERT INTO endpoints (id, org_id, env, consumer_id, url, description, event_types, fixed_ip, status, disabled_reason,
                             failing_since, created_at, retry, compat_signature, headers)
      VALUES ('ep_old', 'org_old', 'live', 'con_old', 'https://hooks.example/old', NULL, NULL, 0, 'active', NULL, NULL, 1,
              '{"count":0,"interval":"1m"}', NULL, '{"sealed":"v1.headers","shown":{"x-api-key":"…c0de"}}');`);
    raw.close();
    const store = openFile(path);
    expect(store.migrationsApplied).toBe(MIGRATIONS.length - 31);
    const t: Tenant = { orgId: 'org_old' as OrgId, env: 'live' };
    const id = 'ep_old' as EndpointId;
    const before = await store.endpoints.get(t, id);
    expect(before?.tls).toBeNull();
    expect(before?.headers).toEqual({ sealed: 'v1.headers', shown: { 'x-api-key': '…c0de' } });
    expect(await store.sealing.sealedSecrets('endpoint_tls_keys', null, 10)).toEqual([]);
    const tls = {
      certificate: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
      sealedKey: 'v1.key',
      serverCa: null,
      info: { subject: 'CN=client', issuer: 'CN=ca', notAfter: 1_900_000_000_000, fingerprintSha256: 'AB:CD', serverCaSubject: null },
    };
    expect(await store.endpoints.update(t, id, { tls })).toEqual({ ...before, tls });
    expect(await store.sealing.sealedSecrets('endpoint_tls_keys', null, 10)).toEqual([{ ownerId: id, sealed: ['v1.key'] }]);
  });

  it('step 33: an endpoint made before OAuth has no credentials and its certificate is found by expiry; older rollups count no auth', async () => {
    const path = tempFile();
    const raw = new DatabaseSync(path);
    migrate(raw, MIGRATIONS.slice(0, 32));
    // The rows as the previous build writes them (tls, but no auth column; a rollup without auth).
    raw.exec(`
      INSERT INTO orgs (id, name, plan, owner_email, created_at) VALUES ('org_old', 'Old', 'free', NULL, 1);
      INSERT INTO consumers (id, org_id, env, external_id, name, created_at) VALUES ('con_old', 'org_old', 'live', 'old', NULL, 1);
      INSERT INTO endpoints (id, org_id, env, consumer_id, url, description, event_types, fixed_ip, status, disabled_reason,
                             failing_since, created_at, retry, compat_signature, tls)
      VALUES ('ep_old', 'org_old', 'live', 'con_old', 'https://hooks.example/old', NULL, NULL, 0, 'active', NULL, NULL, 1,
              '{"count":0,"interval":"1m"}', NULL,
              '{"certificate":"c","sealedKey":"v1.key","serverCa":null,
                "info":{"subject":"CN=client","issuer":"CN=ca","notAfter":1900000000000,"fingerprintSha256":"AB:CD","serverCaSubject":null}}');`);
    raw.close();
    const store = openFile(path);
    expect(store.migrationsApplied).toBe(MIGRATIONS.length - 32);
    const t: Tenant = { orgId: 'org_old' as OrgId, env: 'live' };
    const id = 'ep_old' as EndpointId;
    const before = await store.endpoints.get(t, id);
    expect(before?.auth).toBeNull();
    expect(await store.sealing.sealedSecrets('endpoint_auth_secrets', null, 10)).toEqual([]);
    expect((await store.endpoints.certificatesExpiring(1_800_000_000_000, 2_000_000_000_000, null, 10)).map((c) => c.id)).toEqual([id]);
    const auth = {
      type: 'oauth2_client_credentials' as const,
      tokenUrl: 'https://auth.example/token',
      clientId: 'c',
      sealedSecret: 'v1.secret',
      scope: null,
      audience: null,
      tokenAuthMethod: 'client_secret_basic' as const,
    };
    expect(await store.endpoints.update(t, id, { auth })).toEqual({ ...before, auth });
    expect(await store.sealing.sealedSecrets('endpoint_auth_secrets', null, 10)).toEqual([{ ownerId: id, sealed: ['v1.secret'] }]);
  });

  it('step 34: a certificate stored before it is listed for its tenant by endpoints_tls_tenant_expiry', async () => {
    const path = tempFile();
    const raw = new DatabaseSync(path);
    migrate(raw, MIGRATIONS.slice(0, 33));
    // The row as the previous build writes it (a certificate, OAuth absent).
    raw.exec(`
      INSERT INTO orgs (id, name, plan, owner_email, created_at) VALUES ('org_old', 'Old', 'free', NULL, 1);
      INSERT INTO consumers (id, org_id, env, external_id, name, created_at) VALUES ('con_old', 'org_old', 'live', 'old', NULL, 1);
      INSERT INTO endpoints (id, org_id, env, consumer_id, url, description, event_types, fixed_ip, status, disabled_reason,
                             failing_since, created_at, retry, compat_signature, tls, auth)
      VALUES ('ep_old', 'org_old', 'live', 'con_old', 'https://hooks.example/old', NULL, NULL, 0, 'active', NULL, NULL, 1,
              '{"count":0,"interval":"1m"}', NULL,
              '{"certificate":"c","sealedKey":"v1.key","serverCa":null,
                "info":{"subject":"CN=client","issuer":"CN=ca","notAfter":1900000000000,"fingerprintSha256":"AB:CD","serverCaSubject":null}}', NULL);`);
    raw.close();
    const store = openFile(path);
    expect(store.migrationsApplied).toBe(MIGRATIONS.length - 33);
    const t: Tenant = { orgId: 'org_old' as OrgId, env: 'live' };
    expect(await store.endpoints.certificatesExpiringOf(t, 1_800_000_000_000, 2_000_000_000_000, 10)).toEqual([
      {
        tenant: t,
        id: 'ep_old',
        consumerId: 'con_old',
        url: 'https://hooks.example/old',
        status: 'active',
        failingSince: null,
        subject: 'CN=client',
        notAfter: 1_900_000_000_000,
        fingerprintSha256: 'AB:CD',
      },
    ]);
    expect(await store.endpoints.certificatesExpiringOf({ ...t, env: 'test' }, 1_800_000_000_000, 2_000_000_000_000, 10)).toEqual([]);
  });

  it('step 36: an endpoint made before transformations has none and takes one later; its rollups count no transformation failure', async () => {
    const path = tempFile();
    const raw = new DatabaseSync(path);
    migrate(raw, MIGRATIONS.slice(0, 35));
    // The row as the previous build writes it (no transformation column), and a rollup of its.
    raw.exec(`
      INSERT INTO orgs (id, name, plan, owner_email, created_at) VALUES ('org_old', 'Old', 'free', NULL, 1);
      INSERT INTO consumers (id, org_id, env, external_id, name, created_at) VALUES ('con_old', 'org_old', 'live', 'old', NULL, 1);
      INSERT INTO endpoints (id, org_id, env, consumer_id, url, description, event_types, fixed_ip, status, disabled_reason,
                             failing_since, created_at, retry, compat_signature)
      VALUES ('ep_old', 'org_old', 'live', 'con_old', 'https://hooks.example/old', NULL, NULL, 0, 'active', NULL, NULL, 1,
              '{"count":0,"interval":"1m"}', NULL);
      INSERT INTO endpoint_rollups (endpoint_id, grain_ms, at, org_id, env, attempts, succeeded, auth, http_4xx, http_5xx, timeout, connection, tls, dns,
                                    refused, relay, ${Array.from({ length: 32 }, (_, i) => `l${i}`).join(', ')})
      VALUES ('ep_old', 3600000, 0, 'org_old', 'live', 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, ${Array.from({ length: 32 }, () => '0').join(', ')});`);
    raw.close();
    const store = openFile(path);
    expect(store.migrationsApplied).toBe(MIGRATIONS.length - 35);
    const t: Tenant = { orgId: 'org_old' as OrgId, env: 'live' };
    const id = 'ep_old' as EndpointId;
    expect((await store.endpoints.get(t, id))?.transformation).toBeNull();
    const transformation = { code: 'function handler(w) { return w }', enabled: true, sha256: 'ab'.repeat(32) };
    expect((await store.endpoints.update(t, id, { transformation }))?.transformation).toEqual(transformation);
    const [rollup] = await store.endpointStats.rollups(t, id, 3_600_000, 0, 3_600_000);
    expect(rollup).toMatchObject({ attempts: 3, succeeded: 2, errors: expect.objectContaining({ auth: 1, transformation: 0 }) });
  });

  it('step 37: the open deliveries already there are in the endpoint queue and aged indexes: found due, oldest named, walked', async () => {
    const path = tempFile();
    const store = openFile(path);
    const m = new MessageFixtures(fixtures(store));
    const { t, endpoint } = await m.scene();
    const now = Date.now();
    const retrying = m.only(await m.send(t, { createdAt: now - 3_000 }));
    const fresh = m.only(await m.send(t, { createdAt: now - 2_000 }));
    const job = await m.claim(retrying, now - 3_000);
    await store.deliveries.complete(claimRef(job), m.failed(job, now - 3_000, now - 1_000));
    await store.close();
    // The file as step 36 left it: its three indexes by endpoint instead of step 37's two.
    const raw = new DatabaseSync(path);
    raw.exec(`
      DROP INDEX deliveries_endpoint_queue;
      DROP INDEX deliveries_endpoint_aged;
      CREATE INDEX deliveries_endpoint_open ON deliveries (org_id, env, endpoint_id, status, created_at) WHERE status IN ('pending', 'retrying');
      CREATE INDEX deliveries_endpoint_due ON deliveries (endpoint_id, next_attempt_at)
        WHERE status IN ('pending', 'retrying') AND held = 0 AND lane_wait = 0;
      CREATE INDEX deliveries_endpoint_held ON deliveries (endpoint_id) WHERE status IN ('pending', 'retrying') AND held = 1;
      ALTER TABLE endpoint_walks DROP COLUMN put_off_more;
      ${UNDO_STEP_39}
      PRAGMA user_version = 36;`);
    raw.close();
    const reopened = openFile(path);
    expect(reopened.migrationsApplied).toBe(MIGRATIONS.length - 36);
    // Both in the queue (the retrying one due first), the retrying one in the aged index too.
    const queue = new DatabaseSync(path);
    const entries = (index: string) =>
      queue.prepare(`SELECT id FROM deliveries INDEXED BY ${index} WHERE endpoint_id = ? AND status IN ('pending', 'retrying') ORDER BY rowid`);
    expect(
      entries('deliveries_endpoint_queue')
        .all(endpoint.id)
        .map((row) => row['id']),
    ).toEqual([retrying, fresh]);
    const aged = `SELECT id FROM deliveries INDEXED BY deliveries_endpoint_aged WHERE endpoint_id = ? AND ${AGED}`;
    expect(
      queue
        .prepare(aged)
        .all(endpoint.id)
        .map((row) => row['id']),
    ).toEqual([retrying]);
    queue.close();
    expect((await reopened.deliveries.due(now, 10, 10)).map((d) => d.id).sort()).toEqual([retrying, fresh].sort());
    expect(await reopened.endpointStats.pending(t, endpoint.id)).toEqual({ count: 2, oldestAt: now - 3_000 });
    // A pause's walk holds both (the queue's (0, endpoint) range): none due.
    await reopened.endpoints.update(t, endpoint.id, { status: 'paused' });
    await reopened.deliveries.walkEndpoints(now, 10, 10);
    expect(await reopened.deliveries.due(now, 10, 10)).toEqual([]);
    expect(await reopened.endpointStats.pending(t, endpoint.id)).toEqual({ count: 2, oldestAt: now - 3_000 });
  });

  it('step 38: a walk row of step 37 (one hold end) reads as that end alone, is walked and dropped; a second hold end goes after it', async () => {
    const path = tempFile();
    const store = openFile(path);
    const m = new MessageFixtures(fixtures(store));
    const { t, endpoint } = await m.scene();
    const now = Date.now();
    const [oldEnd, newEnd] = [now + 3_600_000, now + 7_200_000];
    const putOff = m.only(await m.send(t));
    await store.deliveries.release(claimRef(await m.claim(putOff, now)), oldEnd);
    await store.close();
    // The file as step 37 left it, with the walk row its endHold wrote.
    const raw = new DatabaseSync(path);
    raw.exec(`
      ALTER TABLE endpoint_walks DROP COLUMN put_off_more;
      INSERT INTO endpoint_walks (endpoint_id, org_id, env, put_off_until) VALUES ('${endpoint.id}', '${t.orgId}', '${t.env}', ${oldEnd});
      ${UNDO_STEP_39}
      PRAGMA user_version = 37;`);
    raw.close();
    const reopened = openFile(path);
    expect(reopened.migrationsApplied).toBe(MIGRATIONS.length - 37);
    const beside = new DatabaseSync(path);
    const walk = () =>
      beside
        .prepare('SELECT put_off_until, put_off_more FROM endpoint_walks')
        .all()
        .map((row) => ({ ...row }));
    expect(walk()).toEqual([{ put_off_until: oldEnd, put_off_more: null }]);
    // A second hold's rest, as its endHold would leave it: after the first, not over it.
    recordPutOffWalk(new SqliteConnection(beside), t, endpoint.id, newEnd, now);
    expect(walk()).toEqual([{ put_off_until: oldEnd, put_off_more: `[${newEnd}]` }]);
    await reopened.deliveries.walkEndpoints(now, 1_000, 10);
    expect((await reopened.deliveries.due(now, 10, 10)).map((d) => d.id)).toEqual([putOff]);
    expect(walk()).toEqual([]);
    // A row whose further ends are not times (a hand's edit) is cleared and goes, not walked each round.
    beside.exec(`INSERT INTO endpoint_walks (endpoint_id, org_id, env, put_off_more) VALUES ('${endpoint.id}', '${t.orgId}', '${t.env}', 'not json')`);
    await reopened.deliveries.walkEndpoints(now, 1_000, 10);
    expect(walk()).toEqual([]);
    // A row whose further end outlives its walked one (a hand's edit) is not dropped when another part ends: that end is still to walk.
    beside.exec(
      `INSERT INTO endpoint_walks (endpoint_id, org_id, env, hold, put_off_more) VALUES ('${endpoint.id}', '${t.orgId}', '${t.env}', 'hold', '[${newEnd}]')`,
    );
    dropHold(new SqliteConnection(beside), endpoint.id);
    expect(walk()).toEqual([{ put_off_until: null, put_off_more: `[${newEnd}]` }]);
    beside.close();
  });

  it('step 39: each endpoint’s newest 20 attempts are in its row, by time then id, found by seeks; the index is gone', async () => {
    const path = tempFile();
    const store = openFile(path);
    const m = new MessageFixtures(fixtures(store));
    const { t, consumer, endpoint } = await m.scene();
    const quiet = await m.hook(t, consumer);
    const unused = await m.hook(t, consumer, { eventTypes: ['never.sent'] });
    // 23 attempts to the busy endpoint (three at one time: ties go by id), 2 to the quiet one.
    const [busy, calm] = (await m.send(t)).deliveryIds as [DeliveryId, DeliveryId];
    const now = m.f.clock.now();
    const made: Attempt[] = [];
    for (let i = 0; i < 23; i++) {
      const at = now + Math.min(i, 20) * 1_000;
      const job = await m.claim(busy, at);
      const outcome = m.failed(job, at, at);
      await store.deliveries.complete(claimRef(job), outcome);
      made.push(outcome.attempt);
    }
    const calmAttempts: Attempt[] = [];
    for (const at of [now, now + 5_000]) {
      const job = await m.claim(calm, at);
      const outcome = m.failed(job, at, at);
      await store.deliveries.complete(claimRef(job), outcome);
      calmAttempts.push(outcome.attempt);
    }
    // An endpoint deleted before the upgrade keeps its attempts (its messages show them), and gets no row.
    const other = await m.scene();
    const goneDelivery = m.only(await m.send(other.t));
    const goneJob = await m.claim(goneDelivery, m.f.clock.now());
    await store.deliveries.complete(claimRef(goneJob), m.succeeded(goneJob, m.f.clock.now()));
    expect(await store.endpoints.delete(other.t, other.endpoint.id)).toBe(true);
    const gone = other.endpoint;
    await store.close();
    const raw = new DatabaseSync(path);
    raw.exec(`${UNDO_STEP_39} PRAGMA user_version = 38;`);
    // The step's own fill, planned on the file as step 38 left it: each endpoint found by a seek
    // of the old index (a skip scan) and its newest 20 read from it; no read of every attempt.
    const [create, fill] = endpointRecentAttempts.split(';').map((statement) => statement.trim());
    raw.exec(create!);
    const plan = raw
      .prepare(`EXPLAIN QUERY PLAN ${fill}`)
      .all()
      .map((row) => String(row['detail']));
    raw.exec('DROP TABLE endpoint_recent_attempts');
    expect(fill).toMatch(/^WITH RECURSIVE/);
    expect(plan).toContain('SEARCH attempts USING COVERING INDEX attempts_endpoint (endpoint_id>?)');
    expect(plan).toContain('SEARCH attempts USING COVERING INDEX attempts_endpoint (endpoint_id=?)');
    expect(plan.filter((step) => /^SCAN attempts/.test(step))).toEqual([]);
    raw.close();
    const reopened = openFile(path);
    expect(reopened.migrationsApplied).toBe(MIGRATIONS.length - 38);
    const newestFirst = (a: Attempt, b: Attempt) => b.at - a.at || compareText(b.id, a.id);
    const twenty = made.toSorted(newestFirst).slice(0, 20);
    expect(twenty.slice(0, 3).map((a) => a.at)).toEqual([now + 20_000, now + 20_000, now + 20_000]);
    expect(await reopened.deliveries.recentAttempts(t, endpoint.id, 20)).toEqual(twenty);
    expect(await reopened.deliveries.recentAttempts(t, quiet.id, 20)).toEqual(calmAttempts.toReversed());
    const beside = new DatabaseSync(path, { readOnly: true });
    const rows = beside.prepare('SELECT endpoint_id, attempts FROM endpoint_recent_attempts ORDER BY endpoint_id').all();
    expect(rows.map((row) => row['endpoint_id']).toSorted()).toEqual([endpoint.id, quiet.id].toSorted());
    expect(rows.map((row) => row['endpoint_id'])).not.toContain(unused.id);
    expect(rows.map((row) => row['endpoint_id'])).not.toContain(gone.id);
    // Each row holds exactly its newest 20 (at most), as [at, id] pairs.
    const kept = (id: string) => JSON.parse(String(rows.find((row) => row['endpoint_id'] === id)?.['attempts'])) as [number, string][];
    expect(kept(endpoint.id).toSorted((a, b) => b[0] - a[0] || compareText(b[1], a[1]))).toEqual(twenty.map((a) => [a.at, a.id]));
    expect(kept(quiet.id)).toHaveLength(2);
    expect(beside.prepare("SELECT name FROM sqlite_schema WHERE name = 'attempts_endpoint'").all()).toEqual([]);
    beside.close();
    // The next attempt joins them: newest first, the oldest of the 21 gone.
    const again = new MessageFixtures(fixtures(reopened));
    const job = await again.claim(busy, now + 60_000);
    const next = again.failed(job, now + 60_000, null);
    await reopened.deliveries.complete(claimRef(job), next);
    expect(await reopened.deliveries.recentAttempts(t, endpoint.id, 20)).toEqual([next.attempt, ...twenty.slice(0, 19)]);
  });

  it('step 35: an event type made before the catalog reads with no schema, version 1, and takes a schema (version 2, the first kept)', async () => {
    const path = tempFile();
    const raw = new DatabaseSync(path);
    migrate(raw, MIGRATIONS.slice(0, 34));
    raw.exec(`
      INSERT INTO orgs (id, name, plan, owner_email, created_at) VALUES ('org_old', 'Old', 'free', NULL, 1);
      INSERT INTO event_types (org_id, env, name, description, archived_at, created_at) VALUES ('org_old', 'live', 'invoice.paid', 'paid', NULL, 5);`);
    raw.close();
    const store = openFile(path);
    expect(store.migrationsApplied).toBe(MIGRATIONS.length - 34);
    const t: Tenant = { orgId: 'org_old' as OrgId, env: 'live' };
    const old = {
      name: 'invoice.paid',
      description: 'paid',
      archivedAt: null,
      createdAt: 5,
      validation: 'none',
      deprecated: false,
      version: 1,
      updatedAt: 5,
      versionAt: 5,
      rev: 0,
    };
    expect(await store.eventTypes.get(t, 'invoice.paid')).toEqual({ ...old, schema: null, examples: [] });
    expect(await store.eventTypes.list(t)).toEqual([{ ...old, hasSchema: false }]);
    expect(await store.eventTypes.update(t, 'invoice.paid', { schema: { type: 'object' } }, 10, 0)).toMatchObject({ version: 2, schema: { type: 'object' } });
    expect(await store.eventTypes.versions(t, 'invoice.paid')).toEqual([{ version: 1, schema: null, createdAt: 5, retiredAt: 10 }]);
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
});
