import type { EndpointId, Tenant } from '@wirehook/core';
import { RECENT_ATTEMPTS } from '@wirehook/core/without-schemas';
import { checkRecentAttemptsLimit } from '../ports/delivery-port.ts';
import type { SqliteConnection } from './connection.ts';
import type { BatchTally } from './group-commit.ts';
import { compareText, type Row, text } from './row.ts';

// An endpoint's newest attempts, kept as one row per endpoint (schema step 39, issue 46) instead
// of an index over every attempt. The endpoint's page reads only its newest RECENT_ATTEMPTS, yet
// attempts_endpoint took an entry for each attempt, on a page of its own per endpoint of the
// moment: in fan-out (20 endpoints, a batch of 64 completions) 0.76 of a completion's 1.42 WAL
// pages (bench/wal-pages.ts). Now a batch merges its attempts into each endpoint's row once, in
// its own transaction before COMMIT (GroupCommit.stage: a write that fails leaves nothing in
// it), so the row is as durable as the attempts. The reader joins the row's ids to the attempts'
// primary key: RECENT_ATTEMPTS seeks, whatever the endpoint's history.
//
// What differs from the index: each attempt removed with its message (retention) leaves the row
// one short until newer attempts push it out — for good, if the endpoint sends no more — where the
// index showed the next older ones; and a deleted endpoint's row goes with it.

/** An attempt as the row keeps it: its time and id, the order the endpoint's page lists them by. */
type Kept = [at: number, id: string];

const READ = 'SELECT attempts FROM endpoint_recent_attempts WHERE endpoint_id = ?';
const WRITE = `INSERT INTO endpoint_recent_attempts (endpoint_id, attempts) VALUES (?, ?)
  ON CONFLICT (endpoint_id) DO UPDATE SET attempts = excluded.attempts`;
// One statement, so one snapshot (another process may commit between two): the endpoint's row by
// its unique index, then each of its RECENT_ATTEMPTS ids a seek of the attempts' primary key, the
// tenant checked on the attempt. An id retention removed meanwhile finds no row.
const ATTEMPTS = `SELECT a.* FROM endpoint_recent_attempts AS r, json_each(r.attempts) AS kept
  JOIN attempts AS a ON a.id = kept.value ->> '$[1]'
  WHERE r.endpoint_id = ?3 AND a.org_id = ?1 AND a.env = ?2 AND a.endpoint_id = ?3 ORDER BY a.at DESC, a.id DESC LIMIT ?4`;

/** Newest first: by time, then by id (attempts_endpoint's order, `at DESC, id DESC`). */
const newestFirst = (a: Kept, b: Kept): number => b[0] - a[0] || compareText(b[1], a[1]);

/** Inside a completion's batched write: the attempt joins its endpoint's newest at the batch's end. */
export function keepRecentAttempt(conn: SqliteConnection, endpointId: string, at: number, id: string): void {
  conn.stage(openRecentAttempts, (tally) => tally.add(endpointId, [at, id]));
}

/** The endpoint's newest `limit` attempts (at most RECENT_ATTEMPTS), newest first, as attempts rows. */
export function readRecentAttempts(conn: SqliteConnection, t: Tenant, endpointId: EndpointId, limit: number): Row[] {
  if (checkRecentAttemptsLimit(limit) === 0) return [];
  return conn.statement(ATTEMPTS).all(t.orgId, t.env, endpointId, limit);
}

/** With its endpoint (endpoint delete): no one reads a deleted endpoint's page, and a listener per `wirehook listen` would leave a row each. */
export function forgetRecentAttempts(conn: SqliteConnection, endpointId: string): void {
  conn.statement('DELETE FROM endpoint_recent_attempts WHERE endpoint_id = ?').run(endpointId);
}

class RecentAttemptsTally implements BatchTally {
  readonly #added = new Map<string, Kept[]>();
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  add(endpointId: string, attempt: Kept): void {
    const added = this.#added.get(endpointId);
    if (added === undefined) this.#added.set(endpointId, [attempt]);
    else added.push(attempt);
  }

  /** Each endpoint's row read and written once: what it kept and what the batch added, the newest RECENT_ATTEMPTS. */
  flush(): void {
    for (const [endpointId, added] of this.#added) {
      const row = this.#conn.statement(READ).get(endpointId);
      const kept = row === undefined ? [] : (JSON.parse(text(row, 'attempts')) as Kept[]);
      const newest = [...kept, ...added].sort(newestFirst).slice(0, RECENT_ATTEMPTS);
      this.#conn.statement(WRITE).run(endpointId, JSON.stringify(newest));
    }
  }
}

const openRecentAttempts = (conn: SqliteConnection): RecentAttemptsTally => new RecentAttemptsTally(conn);
