import type { EndpointId, Tenant } from '@wirehook/core';
import type { EndpointWalkMode } from '../ports/delivery-port.ts';
import type { SqliteConnection } from './connection.ts';
import { holdEndsOf, moreColumn, releasePutOff } from './endpoint-put-off.ts';
import { nextHoldEnds } from '../hold-ends.ts';
import { AGED, OPEN, refreshMessageStatuses, SENDABLE } from './message-status.ts';
import { int, intOrNull, text, textOrNull } from './row.ts';

// An endpoint's walk: the bookkeeping a pause, resume, disable or delete leaves on its open
// deliveries, done at most `batch` deliveries a transaction (issue 26: no call, step or
// transaction grows with an endpoint's backlog). Sending never waits for it: a claim takes
// only deliveries of an active endpoint (CLAIMABLE), whatever their `held` says. The walk
// keeps the due index small (hold), makes held deliveries due (release), and ends a deleted
// or disabled endpoint's deliveries (fail). Each batch reads ranges that the batch's own change
// takes its deliveries out of, so no batch re-reads what an earlier one did: a hold reads
// deliveries_endpoint_queue's (0, endpoint) and moves them to (1, endpoint), a release the
// reverse; a fail, bounded by creation, reads deliveries_endpoint_aged (endpoint, created
// before the bound) and the queue's (0, endpoint, 0, due before the bound) — every open
// delivery outside the first is due at its creation — and ends them. A fail
// and a hold or release are kept apart (a disabled endpoint paused and resumed still fails
// what it had), the fail done first.

/**
 * Records an operation's walk: `hold`/`release` replace each other (the latest status
 * decides); `fail` fails the open deliveries created before `bound` (null: all of them).
 * `bound` of a release: held deliveries created at or after it are released, older ones fail.
 */
export function recordWalk(conn: SqliteConnection, t: Tenant, endpointId: EndpointId, mode: EndpointWalkMode, bound: number | null = null): void {
  if (mode === 'fail') {
    conn
      .statement(
        `INSERT INTO endpoint_walks (endpoint_id, org_id, env, fail_before) VALUES (?, ?, ?, ?)
         ON CONFLICT (endpoint_id) DO UPDATE SET fail_before = max(coalesce(fail_before, 0), excluded.fail_before)`,
      )
      .run(endpointId, t.orgId, t.env, bound ?? Number.MAX_SAFE_INTEGER);
  } else {
    conn
      .statement(
        `INSERT INTO endpoint_walks (endpoint_id, org_id, env, hold, held_since) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (endpoint_id) DO UPDATE SET hold = excluded.hold, held_since = excluded.held_since`,
      )
      .run(endpointId, t.orgId, t.env, mode, bound);
  }
}

/** Deletes the endpoint's walk row when nothing is left of it. */
function dropIfDone(conn: SqliteConnection, endpointId: EndpointId): void {
  conn
    .statement('DELETE FROM endpoint_walks WHERE endpoint_id = ? AND hold IS NULL AND fail_before IS NULL AND put_off_until IS NULL AND put_off_more IS NULL')
    .run(endpointId);
}

/** Forgets a hold the endpoint no longer needs (it is active again: nothing needs holding). */
export function dropHold(conn: SqliteConnection, endpointId: EndpointId): void {
  conn.statement(`UPDATE endpoint_walks SET hold = NULL, held_since = NULL WHERE endpoint_id = ? AND hold = 'hold'`).run(endpointId);
  dropIfDone(conn, endpointId);
}

/** What one batch of a walk did. */
export interface WalkBatch {
  released: number;
  failed: number;
  held: number;
}

/**
 * One batch of the endpoint's walk, inside the caller's transaction: its fail first, then its
 * hold or release. A hold whose endpoint is active again, or a release whose endpoint is not,
 * ends without a change. `now`: when released deliveries become due.
 */
export function walkBatch(conn: SqliteConnection, endpointId: EndpointId, now: number, batch: number): WalkBatch {
  const result: WalkBatch = { released: 0, failed: 0, held: 0 };
  const walk = conn.statement('SELECT * FROM endpoint_walks WHERE endpoint_id = ?').get(endpointId);
  if (walk === undefined) return result;
  const t = { orgId: text(walk, 'org_id'), env: text(walk, 'env') };
  const failBefore = intOrNull(walk, 'fail_before');
  const hold = textOrNull(walk, 'hold') as 'hold' | 'release' | null;
  const holdEnds = holdEndsOf(walk);
  if (failBefore !== null) {
    const rows = conn
      .statement(
        `UPDATE deliveries SET status = 'failed', next_attempt_at = NULL WHERE rowid IN (
           SELECT rowid FROM (SELECT rowid FROM deliveries WHERE endpoint_id = ?3 AND ${AGED} AND created_at < ?4 AND org_id = ?1 AND env = ?2 LIMIT ?5)
           UNION
           SELECT rowid FROM (SELECT rowid FROM deliveries
             WHERE endpoint_id = ?3 AND ${SENDABLE} AND next_attempt_at < ?4
               AND created_at < ?4 AND org_id = ?1 AND env = ?2 LIMIT ?5)
           LIMIT ?5)
         RETURNING message_id`,
      )
      .all(t.orgId, t.env, endpointId, failBefore, batch);
    refreshMessageStatuses(
      conn,
      rows.map((row) => text(row, 'message_id')),
    );
    result.failed = rows.length;
    if (rows.length < batch) conn.statement('UPDATE endpoint_walks SET fail_before = NULL WHERE endpoint_id = ?').run(endpointId);
    else return result;
  } else if (hold !== null) {
    const endpoint = conn.statement('SELECT status FROM endpoints WHERE id = ? AND org_id = ? AND env = ?').get(endpointId, t.orgId, t.env);
    const active = endpoint !== undefined && text(endpoint, 'status') === 'active';
    let more = false;
    if (hold === 'hold' && endpoint !== undefined && !active) {
      const { changes } = conn
        .statement(
          `UPDATE deliveries SET held = 1 WHERE rowid IN (
             SELECT rowid FROM deliveries WHERE endpoint_id = ? AND ${OPEN} AND held = 0 LIMIT ?)`,
        )
        .run(endpointId, batch);
      result.held = Number(changes);
      more = result.held === batch;
    } else if (hold === 'release' && active) {
      // The next held deliveries (the held index holds nothing else): those of the months the
      // spec releases become due now, older ones fail.
      const heldSince = intOrNull(walk, 'held_since') ?? 0;
      const rows = conn
        .statement(`SELECT rowid AS r, created_at, message_id FROM deliveries WHERE endpoint_id = ? AND ${OPEN} AND held = 1 LIMIT ?`)
        .all(endpointId, batch);
      const release = rows.filter((row) => int(row, 'created_at') >= heldSince);
      const fail = rows.filter((row) => int(row, 'created_at') < heldSince);
      const ids = (list: typeof rows) => JSON.stringify(list.map((row) => int(row, 'r')));
      if (release.length > 0)
        conn.statement('UPDATE deliveries SET held = 0, next_attempt_at = ? WHERE rowid IN (SELECT value FROM json_each(?))').run(now, ids(release));
      if (fail.length > 0) {
        conn.statement(`UPDATE deliveries SET status = 'failed', next_attempt_at = NULL WHERE rowid IN (SELECT value FROM json_each(?))`).run(ids(fail));
        refreshMessageStatuses(
          conn,
          fail.map((row) => text(row, 'message_id')),
        );
      }
      result.released = release.length;
      result.failed += fail.length;
      more = rows.length === batch;
    }
    if (more) return result;
    conn.statement('UPDATE endpoint_walks SET hold = NULL, held_since = NULL WHERE endpoint_id = ?').run(endpointId);
  } else if (holdEnds.putOffUntil !== null) {
    // The rest of what ended Retry-After holds put off, each hold's in turn (hold-ends.ts): due
    // now, or at a new hold's end while one is in force, sooner or later than the old end (there
    // its own end, early or not, finds them; left at the old end, each would be claimed then and
    // put back). An end is done when its rest is all moved, or due by now anyway.
    if (now === 0) return result; // a call that releases nothing (a pause's first batch): left for the walk's next
    const endpoint = conn.statement('SELECT held_until FROM endpoints WHERE id = ?').get(endpointId);
    const dueAt = Math.max((endpoint === undefined ? null : intOrNull(endpoint, 'held_until')) ?? 0, now);
    let ends = holdEnds;
    while (ends.putOffUntil !== null) {
      const end = ends.putOffUntil;
      if (end > now && end !== dueAt) {
        result.released += releasePutOff(conn, endpointId, end, now, batch - result.released, dueAt);
        if (result.released === batch) break;
      }
      ends = nextHoldEnds(ends, now);
    }
    // Each nextHoldEnds drops at least the end it passed: another object once any was done.
    if (ends !== holdEnds)
      conn.statement('UPDATE endpoint_walks SET put_off_until = ?, put_off_more = ? WHERE endpoint_id = ?').run(ends.putOffUntil, moreColumn(ends), endpointId);
    if (ends.putOffUntil !== null) return result;
  } else if (walk['put_off_more'] != null || walk['put_off_until'] != null) {
    // Ends of which none is a time (a hand's edit): cleared, so the row can go.
    conn.statement('UPDATE endpoint_walks SET put_off_until = NULL, put_off_more = NULL WHERE endpoint_id = ?').run(endpointId);
  }
  // Nothing left of it: gone.
  dropIfDone(conn, endpointId);
  return result;
}

/** A fail walk (a disabling's) fails nothing created at or after `at` (the endpoint left `disabled` then). */
export function endFailAt(conn: SqliteConnection, endpointId: EndpointId, at: number): void {
  conn.statement('UPDATE endpoint_walks SET fail_before = min(fail_before, ?) WHERE endpoint_id = ? AND fail_before IS NOT NULL').run(at, endpointId);
}

/** Forgets the endpoint's walk altogether (an operation that turned out to change nothing). */
export function forgetWalk(conn: SqliteConnection, endpointId: EndpointId): void {
  conn.statement('DELETE FROM endpoint_walks WHERE endpoint_id = ?').run(endpointId);
}

/** Endpoints with a walk left after `after` in id order, at most `limit`. */
export function pendingWalksAfter(conn: SqliteConnection, after: string, limit: number): EndpointId[] {
  return conn
    .statement('SELECT endpoint_id FROM endpoint_walks WHERE endpoint_id > ? ORDER BY endpoint_id LIMIT ?')
    .all(after, limit)
    .map((row) => text(row, 'endpoint_id') as EndpointId);
}
