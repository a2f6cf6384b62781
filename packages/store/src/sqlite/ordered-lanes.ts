import type { SqliteConnection } from './connection.ts';
import { OPEN } from './message-status.ts';
import { int, intOrNull, textOrNull } from './row.ts';
import { LANE_STATS_LIMIT } from '../ports/delivery-port.ts';

// Ordered delivery per key, SQLite's side: a lane is a row of delivery_lanes (migration
// 19 says why the store is the arbiter, and how a head that ends hands over to the next).
// Every function runs inside the caller's transaction and does a bounded number of index
// seeks, whatever the length of the lane.

/** Where a new delivery stands in its lane: its sequence, and whether it waits behind the head. */
export interface LanePlace {
  sequence: number;
  wait: boolean;
}

/**
 * Puts the delivery `deliveryId` (about to be inserted) at the end of its lane: the lane's
 * next sequence, and the head when the lane has no open head. A head that is no longer open
 * but whose lane still has waiting deliveries (released by hand, see releaseLanes) hands the
 * lane to the first of them rather than to the newcomer. The lane is used at `at` (its
 * message's creation; a clock that stepped back keeps the later time), for pruneLanes.
 */
export function joinLane(
  conn: SqliteConnection,
  t: { orgId: string; env: string },
  endpointId: string,
  key: string,
  deliveryId: string,
  at: number,
): LanePlace {
  const lane = conn
    .statement(
      `SELECT l.next_sequence, l.head_id, (SELECT d.status FROM deliveries d WHERE d.id = l.head_id) AS head_status
       FROM delivery_lanes l WHERE l.endpoint_id = ? AND l.ordering_key = ?`,
    )
    .get(endpointId, key);
  const sequence = lane === undefined ? 1 : int(lane, 'next_sequence');
  const headStatus = lane === undefined ? null : textOrNull(lane, 'head_status');
  const headOpen = headStatus === 'pending' || headStatus === 'retrying';
  let head: string | null = headOpen && lane !== undefined ? textOrNull(lane, 'head_id') : null;
  if (head === null && lane !== undefined) head = promoteNext(conn, endpointId, key);
  conn
    .statement(
      `INSERT INTO delivery_lanes (endpoint_id, ordering_key, org_id, env, next_sequence, head_id, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (endpoint_id, ordering_key) DO UPDATE SET next_sequence = excluded.next_sequence, head_id = excluded.head_id,
         last_used_at = max(last_used_at, excluded.last_used_at)`,
    )
    .run(endpointId, key, t.orgId, t.env, sequence + 1, head ?? deliveryId, at);
  return { sequence, wait: head !== null };
}

/** Makes the lane's first waiting delivery (by sequence) claimable. @returns its id, or null when none waits. */
function promoteNext(conn: SqliteConnection, endpointId: string, key: string): string | null {
  const next = conn
    .statement(
      `UPDATE deliveries SET lane_wait = 0 WHERE id = (
         SELECT id FROM deliveries WHERE endpoint_id = ? AND ordering_key = ? AND ${OPEN} AND lane_wait = 1 ORDER BY sequence LIMIT 1)
       RETURNING id`,
    )
    .get(endpointId, key);
  return next === undefined ? null : textOrNull(next, 'id');
}

/**
 * A recovery re-opens `deliveryId` (ordered, just made `retrying`): it goes now when its lane
 * has no open head, else waits (lane_wait) and follows in sequence order as heads end, so a
 * recovery re-sends each lane one delivery at a time, in order.
 */
export function rejoinLane(conn: SqliteConnection, endpointId: string, key: string, deliveryId: string): void {
  const lane = conn
    .statement(
      `SELECT (SELECT d.status FROM deliveries d WHERE d.id = l.head_id AND d.id <> ?) AS head_status
       FROM delivery_lanes l WHERE l.endpoint_id = ? AND l.ordering_key = ?`,
    )
    .get(deliveryId, endpointId, key);
  const headStatus = lane === undefined ? null : textOrNull(lane, 'head_status');
  if (headStatus === 'pending' || headStatus === 'retrying') {
    conn.statement('UPDATE deliveries SET lane_wait = 1 WHERE id = ?').run(deliveryId);
    return;
  }
  conn.statement('UPDATE delivery_lanes SET head_id = ? WHERE endpoint_id = ? AND ordering_key = ?').run(deliveryId, endpointId, key);
}

/**
 * The endpoint no longer orders (`ordering` set to `none`): up to `batch` of its waiting
 * deliveries become claimable at once, and its lanes forget their heads. @returns how many
 * were released (`batch`: there may be more, released as their lanes' heads end).
 */
export function releaseLanes(conn: SqliteConnection, endpointId: string, batch: number): number {
  // deliveries_lane_wait holds only waiting deliveries, and a batch's change takes them out of
  // it. Named: SQLite may otherwise seek deliveries_endpoint_aged by the endpoint too, which
  // keeps a released delivery that is retrying, and re-reads it in every later batch.
  const { changes } = conn
    .statement(
      `UPDATE deliveries SET lane_wait = 0 WHERE rowid IN (
         SELECT rowid FROM deliveries INDEXED BY deliveries_lane_wait WHERE endpoint_id = ? AND ${OPEN} AND lane_wait = 1 LIMIT ?)`,
    )
    .run(endpointId, batch);
  if (Number(changes) < batch) conn.statement('UPDATE delivery_lanes SET head_id = NULL WHERE endpoint_id = ?').run(endpointId);
  return Number(changes);
}

/** The lane's current head after a change, to wake it at once: null when the lane is empty. */
export function laneHead(conn: SqliteConnection, endpointId: string, key: string): string | null {
  const row = conn.statement('SELECT head_id FROM delivery_lanes WHERE endpoint_id = ? AND ordering_key = ?').get(endpointId, key);
  return row === undefined ? null : textOrNull(row, 'head_id');
}

/** Lanes of the whole store for the SRE's metrics: open (a head), blocked (head retrying), the oldest head's creation; LANE_STATS_LIMIT heads at most. */
export function laneStats(conn: SqliteConnection): { open: number; blocked: number; oldestHeadAt: number | null } {
  const row = conn
    .statement(
      // The first LANE_STATS_LIMIT heads by id (delivery_lanes_open), not every lane's.
      `SELECT count(*) AS open, coalesce(sum(d.status = 'retrying'), 0) AS blocked, min(d.created_at) AS oldest
       FROM (SELECT head_id FROM delivery_lanes INDEXED BY delivery_lanes_open WHERE head_id IS NOT NULL ORDER BY head_id LIMIT ${LANE_STATS_LIMIT}) l
       JOIN deliveries d ON d.id = l.head_id AND d.${OPEN}`,
    )
    .get();
  return row === undefined
    ? { open: 0, blocked: 0, oldestHeadAt: null }
    : { open: int(row, 'open'), blocked: int(row, 'blocked'), oldestHeadAt: intOrNull(row, 'oldest') };
}

/**
 * Removes up to `batch` lanes last used before `before`, oldest first (delivery_lanes_idle),
 * leaving any with an open head or a waiting delivery. A pruned key's next message starts a
 * new lane at sequence 1. @returns how many went.
 */
export function pruneLanes(conn: SqliteConnection, before: number, batch: number): number {
  const { changes } = conn
    .statement(
      `DELETE FROM delivery_lanes WHERE (endpoint_id, ordering_key) IN (
         SELECT l.endpoint_id, l.ordering_key FROM delivery_lanes l
         WHERE l.last_used_at < ?
           AND NOT EXISTS (SELECT 1 FROM deliveries h WHERE h.id = l.head_id AND h.${OPEN})
           AND NOT EXISTS (SELECT 1 FROM deliveries w
                           WHERE w.endpoint_id = l.endpoint_id AND w.ordering_key = l.ordering_key AND w.${OPEN} AND w.lane_wait = 1)
         ORDER BY l.last_used_at LIMIT ?)`,
    )
    .run(before, batch);
  return Number(changes);
}

/**
 * A manual retry puts the delivery at its lane's head: it is sent at once, as asked, and keeps
 * its sequence. The head it displaces, when still open, waits (lane_wait) and comes next by
 * sequence once the retried one ends; so does everything behind. Nothing else of the lane
 * starts while the retried delivery is open. A lane pruned meanwhile has no row: unordered.
 */
export function takeLaneHead(conn: SqliteConnection, endpointId: string, key: string, deliveryId: string): void {
  conn
    .statement(
      `UPDATE deliveries SET lane_wait = 1
        WHERE id = (SELECT head_id FROM delivery_lanes WHERE endpoint_id = ? AND ordering_key = ?) AND id <> ? AND ${OPEN}`,
    )
    .run(endpointId, key, deliveryId);
  conn.statement('UPDATE delivery_lanes SET head_id = ? WHERE endpoint_id = ? AND ordering_key = ?').run(deliveryId, endpointId, key);
}
