import { PUT_OFF_BATCH } from '../ports/endpoint-port.ts';
import type { EndpointId, Environment, OrgId, Tenant } from '@wirehook/core';
import type { SqliteConnection } from './connection.ts';
import { intOrNull, type Row, text } from './row.ts';
import { type HoldEnds, holdEndsIn, keepHoldEnd } from '../hold-ends.ts';
import { SENDABLE } from './message-status.ts';

// What a receiver's Retry-After hold and a rate limit put off, made due again when the
// reason goes. A put-off delivery went back to the store unleased, open, not held by a
// pause and not waiting in a lane, due later: at the hold's end (`next_attempt_at` equal to
// `held_until`), or, still `pending` (never attempted, so nothing else sets it later), at its
// place in a rate limit's spacing. A `retrying` delivery due later waits for its retry policy
// and keeps its time. All of them go through the endpoint's (0, endpoint, 0, due) range of
// deliveries_endpoint_queue.

const PUT_OFF = `endpoint_id = ? AND ${SENDABLE}
  AND next_attempt_at > ? AND (lease_until IS NULL OR lease_until <= ?)`;

/** Entries of an endpoint's due index a limit change reads at most to find what it spaced out. */
const RESPACE_READ = 5 * PUT_OFF_BATCH;

/**
 * Ends the endpoint's Retry-After hold: `held_until` becomes NULL and the deliveries it put
 * off (due at its end) are due at `now`, PUT_OFF_BATCH here; beyond that, the endpoint's walk
 * makes the rest due, a batch at a time (`releasePutOff`). Inside the caller's transaction.
 * @returns how many became due here.
 */
export function endHold(conn: SqliteConnection, endpointId: EndpointId, now: number): number {
  const row = conn.statement('SELECT held_until, org_id, env FROM endpoints WHERE id = ?').get(endpointId);
  const heldUntil = row === undefined ? null : intOrNull(row, 'held_until');
  if (row === undefined || heldUntil === null) return 0;
  conn.statement('UPDATE endpoints SET held_until = NULL WHERE id = ?').run(endpointId);
  // A hold already over put nothing off that is not due by now (a backlog being drained would
  // only be rewritten, and the walk left to rewrite the rest).
  if (heldUntil <= now) return 0;
  const released = releasePutOff(conn, endpointId, heldUntil, now, PUT_OFF_BATCH);
  if (released === PUT_OFF_BATCH)
    recordPutOffWalk(conn, { orgId: text(row, 'org_id') as OrgId, env: text(row, 'env') as Environment }, endpointId, heldUntil, now);
  return released;
}

/**
 * Makes up to `limit` of what a hold ending at `heldUntil` put off (open, due at exactly its
 * end) due at `dueAt` (default `now`): only those, as a pending delivery due at another time was
 * spaced by the rate limit, which the hold's end does not change. @returns how many it moved.
 */
export function releasePutOff(conn: SqliteConnection, endpointId: EndpointId, heldUntil: number, now: number, limit: number, dueAt = now): number {
  const { changes } = conn
    .statement(
      `UPDATE deliveries SET next_attempt_at = ? WHERE id IN
        (SELECT id FROM deliveries WHERE ${PUT_OFF} AND next_attempt_at = ? LIMIT ?)`,
    )
    .run(dueAt, endpointId, now, now, heldUntil, limit);
  return Number(changes);
}

/**
 * Leaves the rest of what a Retry-After hold ending at `heldUntil` put off to the endpoint's
 * walk (the hold's end made the first PUT_OFF_BATCH due): each batch makes the next ones due.
 * After the rests of holds ended earlier that the walk still has (hold-ends.ts keeps a few).
 */
export function recordPutOffWalk(conn: SqliteConnection, t: Tenant, endpointId: EndpointId, heldUntil: number, now: number): void {
  const row = conn.statement('SELECT put_off_until, put_off_more FROM endpoint_walks WHERE endpoint_id = ?').get(endpointId);
  const ends = keepHoldEnd(row === undefined ? NO_HOLD_ENDS : holdEndsOf(row), heldUntil, now);
  if (ends === null) return;
  conn
    .statement(
      `INSERT INTO endpoint_walks (endpoint_id, org_id, env, put_off_until, put_off_more) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (endpoint_id) DO UPDATE SET put_off_until = excluded.put_off_until, put_off_more = excluded.put_off_more`,
    )
    .run(endpointId, t.orgId, t.env, ends.putOffUntil, moreColumn(ends));
}

const NO_HOLD_ENDS: HoldEnds = { putOffUntil: null, putOffMore: [] };

/** A walk row's hold ends (`put_off_more`: a JSON array of old ends, or NULL; anything else read as none). */
export function holdEndsOf(row: Row): HoldEnds {
  const raw = row['put_off_more'];
  const more = typeof raw === 'string' ? raw : null; // a BLOB or number (a hand's edit): no further ends
  let parsed: unknown = null;
  try {
    parsed = more === null ? null : JSON.parse(more);
  } catch {
    // Not JSON: no further ends (holdEndsIn keeps times only).
  }
  return holdEndsIn(row['put_off_until'], parsed);
}

/** `put_off_more` as written: NULL when none waits behind the walked end. */
export function moreColumn(ends: HoldEnds): string | null {
  return ends.putOffMore.length === 0 ? null : JSON.stringify(ends.putOffMore);
}

/**
 * The endpoint's rate limit changed: the pending deliveries the old one spaced out are due at
 * `now`, to be spaced again by the new limit (or sent at once without one). A Retry-After hold
 * still in force keeps them: the claim puts them off to its end again. Inside the caller's
 * transaction. @returns how many became due.
 */
export function respace(conn: SqliteConnection, endpointId: EndpointId, now: number): number {
  const { changes } = conn
    .statement(
      // The endpoint's soonest RESPACE_READ entries of its due index after now, then the pending
      // ones among them: a bounded read on the one writer, whatever its retrying backlog (a
      // limit's spacing puts pending deliveries off by seconds to minutes, ahead of retries).
      `UPDATE deliveries SET next_attempt_at = ? WHERE id IN (
        SELECT id FROM (SELECT id, status FROM deliveries INDEXED BY deliveries_endpoint_queue WHERE ${PUT_OFF}
          ORDER BY next_attempt_at LIMIT ${RESPACE_READ})
        WHERE status = 'pending' LIMIT ${PUT_OFF_BATCH})`,
    )
    .run(now, endpointId, now, now);
  return Number(changes);
}
