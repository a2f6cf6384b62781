// Every statement the store contract makes the SQLite store run, checked with EXPLAIN QUERY
// PLAN: none may read all of `deliveries`, `messages` or `attempts`, the tables that grow
// with traffic. SQLite reads a partial index only when a WHERE implies the index's own
// condition (`status = 'retrying'` alone does not imply `status IN ('pending', 'retrying')`),
// so a query written a little differently scans the table instead — and still returns the
// right rows, which is why no other test notices. Checked on the statements the repos really
// prepare, not on copies of their SQL.
import { afterAll, describe, expect, it } from 'vitest';
import { describeStoreContract } from '../../test/contract/store-contract.ts';
import { SqliteConnection } from './connection.ts';
import { openSqliteStore } from './open-sqlite-store.ts';
import { MessageFixtures } from '../../test/contract/message-fixtures.ts';
import { Fixtures } from '../../test/contract/fixtures.ts';
import { ManualClock } from '@wirehook/core';

/** Indexes over open or failed deliveries only: scanning one of them reads no history. */
const PARTIAL_INDEXES = ['deliveries_due', 'deliveries_endpoint_queue', 'deliveries_endpoint_aged', 'deliveries_endpoint_failed'];
/** Run once at start, when the process that held the leases is gone: a scan is its price. */
const ALLOWED = new Set(['UPDATE deliveries SET lease_until = NULL WHERE lease_until IS NOT NULL']);
/** The growing tables, by name or by the aliases the repos give them. */
const GROWING = /^SCAN (deliveries|messages|attempts|endpoint_rollups|d|m|a)\b/;

const checked = new Set<string>();
/** Each statement's plan, by its SQL with whitespace folded. */
const plans = new Map<string, string>();
/** The plan of the statement that starts with `prefix` (whitespace folded, as recorded). */
const planOf = (prefix: string) => [...plans].find(([sql]) => sql.startsWith(prefix))?.[1];
const scans: { sql: string; plan: string }[] = [];
const prepare = SqliteConnection.prototype.statement;
// Put back at the file's end, whichever of its suites ran: the unit files after it share this process (vitest.config.ts).
afterAll(() => {
  SqliteConnection.prototype.statement = prepare;
});
SqliteConnection.prototype.statement = function (this: SqliteConnection, sql: string) {
  const statement = prepare.call(this, sql);
  if (!checked.has(sql)) {
    checked.add(sql);
    const plan = this.db
      .prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .all()
      .map((row) => String(row['detail']));
    plans.set(sql.replace(/\s+/g, ' ').trim(), plan.join(' | '));
    const scan = plan.find((step) => GROWING.test(step) && !PARTIAL_INDEXES.some((index) => step.includes(index)));
    if (scan !== undefined && !ALLOWED.has(sql.trim())) scans.push({ sql: sql.replace(/\s+/g, ' ').trim(), plan: plan.join(' | ') });
  }
  return statement;
};

describeStoreContract('sqlite :memory: (query plans)', async () => openSqliteStore({ path: ':memory:' }));

describe('SQLite query plans', () => {
  it('reads no growing table whole in any statement the contract runs', async () => {
    // Reads the contract has no case for: the alerting engine's and the metrics' counts.
    const store = openSqliteStore({ path: ':memory:' });
    await store.alerts.retryingCounts(1, null, 200);
    await store.deliveries.backlog(Date.now());
    await store.close();
    // The contract prepares well over a hundred statements; a handful would mean it did not run.
    expect(checked.size).toBeGreaterThan(100);
    expect(scans).toEqual([]);
  });

  it('reads an endpoint’s open deliveries (its stats’ pending) from its counted row, and the oldest by one seek of each endpoint index', () => {
    const pending = planOf('SELECT (SELECT open FROM endpoint_counts');
    // The whole plan: a sort (USE TEMP B-TREE) would read the endpoint's whole range.
    expect(pending).toBe(
      [
        'SCAN CONSTANT ROW',
        'SCALAR SUBQUERY 1',
        'SEARCH endpoint_counts USING PRIMARY KEY (endpoint_id=?)',
        'SCALAR SUBQUERY 6',
        'CO-ROUTINE (subquery-5)',
        'COMPOUND QUERY',
        'LEFT-MOST SUBQUERY',
        'SCAN CONSTANT ROW',
        'SCALAR SUBQUERY 2',
        'SEARCH deliveries USING INDEX deliveries_endpoint_aged (endpoint_id=?)',
        'UNION ALL',
        'SCAN CONSTANT ROW',
        'SCALAR SUBQUERY 4',
        'SEARCH deliveries USING INDEX deliveries_endpoint_queue (held=? AND endpoint_id=? AND lane_wait=?)',
        'SEARCH (subquery-5)',
      ].join(' | '),
    );
  });

  it('lists an endpoint’s recent attempts from its row of their ids: one seek for the row, one per id (at most 20), none by endpoint', () => {
    // The completions' read of the row before they merge into it.
    expect(planOf('SELECT attempts FROM endpoint_recent_attempts WHERE endpoint_id = ?')).toBe(
      'SEARCH endpoint_recent_attempts USING INDEX sqlite_autoindex_endpoint_recent_attempts_1 (endpoint_id=?)',
    );
    // The page's read, one statement; the sort is of the row's ids found, RECENT_ATTEMPTS at most.
    expect(planOf('SELECT a.* FROM endpoint_recent_attempts AS r, json_each(r.attempts) AS kept')).toBe(
      [
        'SEARCH r USING INDEX sqlite_autoindex_endpoint_recent_attempts_1 (endpoint_id=?)',
        'SCAN kept VIRTUAL TABLE INDEX 1:',
        'SEARCH a USING INDEX sqlite_autoindex_attempts_1 (id=?)',
        'USE TEMP B-TREE FOR ORDER BY',
      ].join(' | '),
    );
  });

  it('walks an endpoint’s open deliveries in ranges each batch’s own change empties: held or not by the queue index, a fail bounded by creation', () => {
    // Hold: (0, endpoint) → (1, endpoint); release: the reverse.
    expect(planOf('UPDATE deliveries SET held = 1 WHERE rowid IN (')).toBe(
      [
        'SEARCH deliveries USING INTEGER PRIMARY KEY (rowid=?)',
        'LIST SUBQUERY 1',
        'SEARCH deliveries USING INDEX deliveries_endpoint_queue (held=? AND endpoint_id=?)',
      ].join(' | '),
    );
    expect(planOf('SELECT rowid AS r, created_at, message_id FROM deliveries WHERE endpoint_id = ?')).toBe(
      'SEARCH deliveries USING INDEX deliveries_endpoint_queue (held=? AND endpoint_id=?)',
    );
    // Fail: the aged ones created before the bound, and the rest (due at their creation) due before it; each a batch at most.
    const fail = planOf("UPDATE deliveries SET status = 'failed', next_attempt_at = NULL WHERE rowid IN (")?.split(' | ') ?? [];
    expect(fail.filter((step) => step.startsWith('SEARCH deliveries USING INDEX'))).toEqual([
      'SEARCH deliveries USING INDEX deliveries_endpoint_aged (endpoint_id=? AND created_at<?)',
      'SEARCH deliveries USING INDEX deliveries_endpoint_queue (held=? AND endpoint_id=? AND lane_wait=? AND next_attempt_at<?)',
    ]);
    // An endpoint no longer ordering: its waiting deliveries by deliveries_lane_wait, which the release empties.
    expect(planOf('UPDATE deliveries SET lane_wait = 0 WHERE rowid IN (')).toBe(
      'SEARCH deliveries USING INTEGER PRIMARY KEY (rowid=?) | LIST SUBQUERY 1 | SEARCH deliveries USING INDEX deliveries_lane_wait (endpoint_id=?)',
    );
  });

  it('finds every endpoint’s oldest due deliveries (the fairness walk): a skip scan of the endpoints not held, then (0, endpoint, 0, due), by tenant', () => {
    const walk = [...plans].find(([sql]) => sql.startsWith('WITH RECURSIVE eps(ep)') && sql.includes('heads AS'));
    const skip = [
      'CO-ROUTINE eps',
      'SETUP',
      'SCAN CONSTANT ROW',
      'SCALAR SUBQUERY 1',
      'SEARCH deliveries USING INDEX deliveries_endpoint_queue (held=?)',
      'RECURSIVE STEP',
      'SCAN eps',
      'CORRELATED SCALAR SUBQUERY 3',
      'SEARCH deliveries USING INDEX deliveries_endpoint_queue (held=? AND endpoint_id>?)',
      'SCAN eps',
    ];
    expect(walk?.[1]).toBe(
      [
        // Each tenant's rows ranked (the window's sort over the rows read, `each` an endpoint).
        'CO-ROUTINE ranked',
        'CO-ROUTINE (subquery-10)',
        ...skip,
        'SEARCH e USING INDEX sqlite_autoindex_endpoints_1 (id=?)',
        'SEARCH d USING INTEGER PRIMARY KEY (rowid=?)',
        'CORRELATED LIST SUBQUERY 5',
        'SEARCH d USING INDEX deliveries_endpoint_queue (held=? AND endpoint_id=? AND lane_wait=? AND next_attempt_at<?)',
        'USE TEMP B-TREE FOR ORDER BY',
        'SCAN (subquery-10)',
        'SCAN ranked',
        // The skipped tenants (a JSON array of a few): read once into a list.
        'LIST SUBQUERY 8',
        'SCAN json_each VIRTUAL TABLE INDEX 1:',
        'CREATE BLOOM FILTER',
        // The page's rows (at most `each` an endpoint, `perTenant` a tenant, `limit` in all) sorted by due time.
        'USE TEMP B-TREE FOR ORDER BY',
      ].join(' | '),
    );
    const count = [...plans].find(([sql]) => sql.startsWith('WITH RECURSIVE eps(ep)') && sql.includes('SELECT count(*) AS n FROM eps'));
    expect(count?.[1]).toBe([...skip, 'SEARCH deliveries EXISTS USING INDEX deliveries_endpoint_queue (held=? AND endpoint_id=? AND lane_wait=?)'].join(' | '));
  });

  it('walks the tenants past a wider read cut by shares: a seek a tenant, its endpoints a range, each one’s oldest by (0, endpoint, 0, due)', async () => {
    // A tenant with 30 endpoints due (more than 8 pages of 3), another behind it and an idle one: the walk runs from the first
    // tenant (past the busy one) and on after an endpoint (room for 2 found 1), and its statements are recorded.
    const store = openSqliteStore({ path: ':memory:' });
    const m = new MessageFixtures(new Fixtures(() => store, new ManualClock()));
    const { t, consumer } = await m.scene();
    for (let i = 1; i < 20; i++) await m.hook(t, consumer);
    const second = await m.f.consumer(t, 'customer-2');
    for (let i = 0; i < 10; i++) await m.hook(t, second);
    const at = m.f.clock.now();
    await m.send(t, { createdAt: at - 1_000 });
    await m.send(t, { createdAt: at - 1_000, consumerExternalId: 'customer-2' });
    const other = await m.scene();
    await m.send(other.t, { createdAt: at });
    await m.scene();
    expect(await store.deliveries.due(at + 1, 3, 1, 1)).toHaveLength(2);
    await store.close();
    expect(planOf('SELECT id, org_id, env FROM endpoints INDEXED BY endpoints_tenant WHERE (org_id, env) >')).toBe(
      'SEARCH endpoints USING COVERING INDEX endpoints_tenant ((org_id,env)>(?,?))',
    );
    expect(planOf('SELECT id, org_id, env FROM endpoints INDEXED BY endpoints_tenant WHERE (org_id, env, id) >')).toBe(
      'SEARCH endpoints USING COVERING INDEX endpoints_tenant ((org_id,env,id)>(?,?,?))',
    );
    expect(planOf('WITH heads AS ( SELECT d.id, d.endpoint_id, d.org_id, d.env, d.next_attempt_at FROM json_each(?) j')).toBe(
      [
        'CO-ROUTINE ranked',
        'CO-ROUTINE (subquery-5)',
        // The page's endpoints by id, each one's oldest due by a seek of (0, endpoint, 0, due).
        'SCAN j VIRTUAL TABLE INDEX 1:',
        'SEARCH e USING INDEX sqlite_autoindex_endpoints_1 (id=?)',
        'SEARCH d USING INTEGER PRIMARY KEY (rowid=?)',
        'CORRELATED LIST SUBQUERY 1',
        'SEARCH d USING INDEX deliveries_endpoint_queue (held=? AND endpoint_id=? AND lane_wait=? AND next_attempt_at<?)',
        // Each tenant's rows ranked, then sorted by due time: the rows read (at most `perEndpoint` of each of the page's).
        'USE TEMP B-TREE FOR ORDER BY',
        'SCAN (subquery-5)',
        'SCAN ranked',
        'USE TEMP B-TREE FOR ORDER BY',
      ].join(' | '),
    );
  });

  it('reads an endpoint’s rollups of a window, and prunes old ones, by index', () => {
    const read = planOf('SELECT * FROM endpoint_rollups');
    expect(read).toMatch(/^SEARCH endpoint_rollups USING PRIMARY KEY \(endpoint_id=\? AND grain_ms=\? AND at>\? AND at<\?\)/);
    const prune = planOf('DELETE FROM endpoint_rollups');
    expect(prune).toContain('USING COVERING INDEX endpoint_rollups_age (grain_ms=? AND at<?)');
  });

  it('pages listener endpoints by endpoints_listeners alone (covering; no http endpoint read)', () => {
    const page = planOf("SELECT id, org_id, env FROM endpoints WHERE type = 'listen'");
    expect(page).toBe('SEARCH endpoints USING COVERING INDEX endpoints_listeners (id>?)');
  });

  it('pages the endpoints with headers by endpoints_headers (the sealing walk; no endpoint without headers read), and re-seals one by its key', () => {
    const page = planOf("SELECT id AS owner_id, json_extract(headers, '$.sealed') AS sealed FROM endpoints");
    expect(page).toBe('SEARCH endpoints USING INDEX endpoints_headers (id>?)');
    const reseal = planOf('UPDATE endpoints SET headers = json_set(');
    // One seek by id (its primary key, or endpoints_headers: either reads one row).
    expect(reseal).toMatch(/^SEARCH endpoints USING INDEX \w+ \(id=\?\)$/);
  });

  it('pages the endpoints with a client certificate by endpoints_tls (the sealing walk; no endpoint without one read), and re-seals one by its key', () => {
    const page = planOf("SELECT id AS owner_id, json_extract(tls, '$.sealedKey') AS sealed FROM endpoints");
    expect(page).toBe('SEARCH endpoints USING INDEX endpoints_tls (id>?)');
    const reseal = planOf('UPDATE endpoints SET tls = json_set(');
    // One seek by id (its primary key, or endpoints_tls: either reads one row).
    expect(reseal).toMatch(/^SEARCH endpoints USING INDEX \w+ \(id=\?\)$/);
  });

  it('pages the endpoints with OAuth credentials by endpoints_auth (the sealing walk), and re-seals one by its key', () => {
    const page = planOf("SELECT id AS owner_id, json_extract(auth, '$.sealedSecret') AS sealed FROM endpoints");
    expect(page).toBe('SEARCH endpoints USING INDEX endpoints_auth (id>?)');
    const reseal = planOf('UPDATE endpoints SET auth = json_set(');
    expect(reseal).toMatch(/^SEARCH endpoints USING INDEX \w+ \(id=\?\)$/);
  });

  it('reads event types by their key: one by name, a page by name, the count at create stopped by the cap; versions by theirs', () => {
    expect(planOf('SELECT * FROM event_types WHERE org_id = ? AND env = ? AND name = ?')).toBe(
      'SEARCH event_types USING INDEX event_types_name (org_id=? AND env=? AND name=?)',
    );
    expect(planOf('SELECT * FROM event_types WHERE org_id = ? AND env = ? AND name > ?')).toBe(
      'SEARCH event_types USING INDEX event_types_name (org_id=? AND env=? AND name>?)',
    );
    expect(planOf('SELECT name, description, archived_at')).toBe('SEARCH event_types USING INDEX event_types_name (org_id=? AND env=?)');
    const count = planOf('SELECT count(*) AS n FROM (SELECT 1 FROM event_types');
    expect(count).toMatch(/SEARCH event_types USING COVERING INDEX event_types_name \(org_id=\? AND env=\?\)/);
    expect(planOf('SELECT * FROM event_type_versions')).toBe(
      'SEARCH event_type_versions USING INDEX sqlite_autoindex_event_type_versions_1 (org_id=? AND env=? AND name=?)',
    );
    // The versions past the kept 100: a range of the key, never a scan of the type's history.
    expect(planOf('DELETE FROM event_type_versions')).toBe(
      'SEARCH event_type_versions USING INDEX sqlite_autoindex_event_type_versions_1 (org_id=? AND env=? AND name=? AND version<?)',
    );
    expect([...plans].filter(([, plan]) => /SCAN event_type/.test(plan))).toEqual([]);
  });

  it('reads a tenant’s enforcing event types from event_types_enforcing alone (covering: no schema read)', () => {
    const read = planOf("SELECT name, version FROM event_types WHERE org_id = ? AND env = ? AND validation = 'enforce'");
    expect(read).toBe('SEARCH event_types USING COVERING INDEX event_types_enforcing (org_id=? AND env=?)');
  });

  it('walks the certificates expiring in a window by endpoints_tls_expiry: the cursor’s ties by a seek, then a range; no sort', () => {
    const walk = [...plans].filter(([sql]) => sql.startsWith("SELECT id, org_id, env, json_extract(tls, '$.info.notAfter') AS not_after FROM endpoints"));
    expect(walk.map(([, plan]) => plan).sort()).toEqual([
      'SEARCH endpoints USING INDEX endpoints_tls_expiry (<expr>=? AND id>?)',
      'SEARCH endpoints USING INDEX endpoints_tls_expiry (<expr>>? AND <expr><?)',
    ]);
  });

  it('lists a tenant’s certificates expiring in a window by endpoints_tls_tenant_expiry (its range alone; no other endpoint read, no sort)', () => {
    const list = [...plans].find(
      ([sql]) => sql.startsWith('SELECT id, org_id, env, consumer_id, url, status, json_extract(tls') && sql.includes('WHERE org_id = ?'),
    );
    expect(list?.[1]).toBe('SEARCH endpoints USING INDEX endpoints_tls_tenant_expiry (org_id=? AND env=? AND <expr>>? AND <expr><?)');
  });

  it('walks the organizations with fixed_ip endpoints one seek each (their other endpoints unread), and a pool change’s pending row by its index', () => {
    const next = planOf('SELECT org_id FROM endpoints WHERE fixed_ip = 1');
    expect(next).toBe('SEARCH endpoints USING COVERING INDEX endpoints_fixed_ip (org_id>?)');
    const pending = planOf('SELECT * FROM egress_changes WHERE done = 0');
    expect(pending).toContain('egress_changes_pending');
  });
});

describe('SQLite query plans: ordered lanes', () => {
  it('finds a lane’s next waiting delivery by one seek of deliveries_lane_wait, whatever the lane’s length', () => {
    const next = [...plans].filter(([sql]) => sql.includes('lane_wait = 1 ORDER BY sequence LIMIT 1'));
    expect(next.length).toBeGreaterThan(0);
    for (const [, plan] of next) expect(plan).toContain('deliveries_lane_wait (endpoint_id=? AND ordering_key=?)');
  });

  it('prunes idle lanes oldest first by delivery_lanes_idle, with one seek each for an open head and a waiting delivery', () => {
    const prune = planOf('DELETE FROM delivery_lanes');
    expect(prune).toContain('delivery_lanes_idle (last_used_at<?)');
    expect(prune).toContain('deliveries_lane_wait (endpoint_id=? AND ordering_key=?)');
    expect(prune).not.toContain('SCAN');
  });

  it('keeps waiting deliveries out of the due scan: due and the backlog gauge read deliveries_due by due time (no sort)', () => {
    const due = planOf('SELECT d.id, d.endpoint_id, d.org_id, d.env FROM deliveries d INDEXED BY deliveries_due');
    expect(due).toBe('SEARCH d USING INDEX deliveries_due (next_attempt_at<?) | SEARCH e EXISTS USING INDEX endpoints_tenant (org_id=? AND env=? AND id=?)');
    // The gauge: a count of at most BACKLOG_COUNT_CAP entries (sqlite-file.test.ts), and one seek for the oldest.
    const backlog = planOf('SELECT (SELECT count(*) FROM (SELECT 1 FROM deliveries INDEXED BY deliveries_due');
    expect(backlog).toBe(
      [
        'SCAN CONSTANT ROW',
        'SCALAR SUBQUERY 2',
        'CO-ROUTINE (subquery-1)',
        'SEARCH deliveries USING INDEX deliveries_due (next_attempt_at<?)',
        'SCAN (subquery-1)',
        'SCALAR SUBQUERY 3',
        'SEARCH deliveries USING INDEX deliveries_due (next_attempt_at<?)',
      ].join(' | '),
    );
  });
});
