import type { Attempt, EndpointId, EndpointRollup, RollupGrainMs, StatsErrorKind, Tenant } from '@wirehook/core';
import { LATENCY_BOUNDS_MS, ROLLUP_GRAINS_MS, ROLLUP_RETENTION_MS, rollupIncrement, rollupStart, STATS_ERROR_KINDS } from '@wirehook/core/without-schemas';
import type { EndpointStatsRepo } from '../ports/endpoint-stats-port.ts';
import type { SqliteConnection } from './connection.ts';
import type { BatchTally } from './group-commit.ts';
import { AGED, SENDABLE } from './message-status.ts';
import { int, intOrNull, type Row } from './row.ts';

// Column names come from core's fixed lists (never from input), so they are safe to splice.
const LATENCY_COLUMNS = LATENCY_BOUNDS_MS.map((_, i) => `l${i}`);
const COUNT_COLUMNS = ['attempts', 'succeeded', ...STATS_ERROR_KINDS, ...LATENCY_COLUMNS];

// One statement for every attempt: each count column is added from its parameter (mostly 0).
const ADD = `INSERT INTO endpoint_rollups (endpoint_id, grain_ms, at, org_id, env, ${COUNT_COLUMNS.join(', ')})
  VALUES (?, ?, ?, ?, ?, ${COUNT_COLUMNS.map(() => '?').join(', ')})
  ON CONFLICT (endpoint_id, grain_ms, at) DO UPDATE SET ${COUNT_COLUMNS.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}`;

/**
 * How long a connection keeps the rollup increments of committed batches before writing them
 * (at most: a prune and the connection's close write them at once; a stats read adds them).
 */
export const ROLLUP_FLUSH_MS = 1_000;
/** Rollup rows a connection keeps at most: past this many, the next batch writes them. */
const ROLLUP_FLUSH_ROWS = 5_000;

/**
 * Adds one attempt to its endpoint's rollup rows (one per grain), inside the caller's batched
 * write. Rollups are written once per ROLLUP_FLUSH_MS, not with every batch: under load each
 * batch's completions touched most endpoints, and the upsert of a row of 44 counts per endpoint
 * and grain was the largest cost of a completion (issue 46: 38 µs a delivery with 64
 * endpoints). A batch's increments, summed per row, join the connection's carry once the batch
 * commits (a batch rolled back adds nothing); the first batch to end ROLLUP_FLUSH_MS after the
 * last write writes the carry and its own in its transaction, and the carry empties once that
 * commits (rolled back, it stays). So nothing is ever counted twice, and what a crash loses is
 * the stats of the attempts of the last ROLLUP_FLUSH_MS (the attempts themselves are on
 * record) — as the MongoDB store's ROLLUP_FLUSH_MS. A timer writes a carry no batch came for.
 */
export function addToRollups(conn: SqliteConnection, t: Tenant, attempt: Pick<Attempt, 'endpointId' | 'at' | 'responseStatus' | 'error' | 'durationMs'>): void {
  const increment = rollupIncrement(attempt);
  if (increment === null) return; // cancelled by a transformation: nothing was sent
  const { kind, latencyBucket } = increment;
  const counts = COUNT_COLUMNS.map((column) => {
    if (column === 'attempts') return 1;
    if (column === 'succeeded') return kind === 'succeeded' ? 1 : 0;
    return column === kind || column === `l${latencyBucket}` ? 1 : 0;
  });
  conn.stage(openRollupTally, (tally) => {
    for (const grain of ROLLUP_GRAINS_MS) tally.add([attempt.endpointId, grain, rollupStart(attempt.at, grain), t.orgId, t.env], counts);
  });
}

/** Writes all the connection's carried rollups now, a batch per CARRIED_ROWS_PER_BATCH rows (resolves once committed). */
async function writeCarriedRollups(conn: SqliteConnection): Promise<void> {
  const carry = carries.get(conn);
  // Each batch writes up to CARRIED_ROWS_PER_BATCH of it; meanwhile every batch is due (force)
  // and writes its own rows rather than carrying them, so the carry only shrinks.
  while (carry !== undefined && carry.rows.size > 0) await carry.writeNow();
}

/** A rollup row's key: endpoint, grain, start, org, env (ADD's first parameters). */
type RollupKey = [string, number, number, string, string];
type RollupRows = Map<string, { key: RollupKey; counts: number[] }>;

/** Adds `counts` to the row `key` of `rows`. */
function addRow(rows: RollupRows, key: RollupKey, counts: readonly number[]): void {
  const id = key.join('\u0000');
  const row = rows.get(id);
  if (row === undefined) rows.set(id, { key, counts: [...counts] });
  else for (let i = 0; i < counts.length; i++) row.counts[i]! += counts[i]!;
}

/** The increments of committed batches a connection has not written yet. */
class RollupCarry {
  readonly #conn: SqliteConnection;
  rows: RollupRows = new Map();
  /** When the carry was last written out (performance.now: a wall clock stepping back changes nothing). */
  writtenAt = performance.now();
  /** Written by the next batch, due or not (the timer asked, or a part is still to write). */
  force = false;
  #timer: NodeJS.Timeout | undefined;
  /** A batch for the rest of a carry written in parts is queued. */
  #continuing = false;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
    conn.beforeClose(() => {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      if (this.rows.size > 0) void this.writeNow().catch(() => {});
    });
  }

  /** Whether the next batch writes (part of) the carry: always once the connection closes (its last batches commit then). */
  get due(): boolean {
    return this.#conn.closing || this.force || this.rows.size >= ROLLUP_FLUSH_ROWS || performance.now() - this.writtenAt >= ROLLUP_FLUSH_MS;
  }

  /** Keeps a committed batch's rows; the timer writes them if no batch does first. */
  keep(rows: RollupRows): void {
    for (const { key, counts } of rows.values()) addRow(this.rows, key, counts);
    this.#arm();
  }

  /** A batch that committed wrote the carried rows `ids`: the rest, if any, go with the next batch, at once. */
  written(ids: readonly string[]): void {
    for (const id of ids) this.rows.delete(id);
    if (this.rows.size > 0) {
      this.force = true;
      // A batch of its own if none comes first: the rest is as late as the part just written.
      if (!this.#continuing && !this.#conn.closing) {
        this.#continuing = true;
        setImmediate(() => {
          this.#continuing = false;
          if (this.rows.size > 0) this.writeNow().catch(() => this.#arm());
        });
      }
      return;
    }
    this.writtenAt = performance.now();
    this.force = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** A batch of its own that writes the carry. */
  writeNow(): Promise<void> {
    this.force = true;
    return this.#conn.batched(() => this.#conn.stage(openRollupTally, () => {}));
  }

  /** Writes the carry ROLLUP_FLUSH_MS from now unless a batch does first; a write that fails is tried again as long. */
  #arm(): void {
    if (this.#timer !== undefined || this.#conn.closing) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.writeNow().catch((err: unknown) => {
        process.emitWarning(`wirehook: writing endpoint rollups: ${err instanceof Error ? err.message : String(err)}`);
        this.#arm();
      });
    }, ROLLUP_FLUSH_MS).unref();
  }
}

const carries = new WeakMap<SqliteConnection, RollupCarry>();

function carryOf(conn: SqliteConnection): RollupCarry {
  let carry = carries.get(conn);
  if (carry === undefined) carries.set(conn, (carry = new RollupCarry(conn)));
  return carry;
}

/**
 * Carried rows a batch writes at most besides its own: a carry of thousands of endpoints is
 * written over several batches, not in one that holds back every write queued behind it.
 */
const CARRIED_ROWS_PER_BATCH = 512;

/** One batch's rollup increments, summed per row: written with (part of) the carry when it is due, else carried once the batch commits. */
class RollupTally implements BatchTally {
  readonly #conn: SqliteConnection;
  readonly #rows: RollupRows = new Map();
  /** The carried rows this batch wrote; undefined when it wrote none (its own rows are then carried). */
  #wroteCarried: string[] | undefined;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  add(key: RollupKey, counts: readonly number[]): void {
    addRow(this.#rows, key, counts);
  }

  flush(): void {
    const carry = carryOf(this.#conn);
    if (!carry.due) return;
    // Part of the carry and this batch's rows, summed per row; the carry itself changes only once this commits.
    const all: RollupRows = new Map();
    const carried: string[] = [];
    for (const [id, { key, counts }] of carry.rows) {
      if (carried.length >= CARRIED_ROWS_PER_BATCH && !this.#conn.closing) break;
      carried.push(id);
      addRow(all, key, counts);
    }
    for (const { key, counts } of this.#rows.values()) addRow(all, key, counts);
    const add = this.#conn.statement(ADD);
    for (const { key, counts } of all.values()) add.run(...key, ...counts);
    this.#wroteCarried = carried;
  }

  committed(): void {
    const carry = carryOf(this.#conn);
    if (this.#wroteCarried !== undefined) carry.written(this.#wroteCarried);
    else if (this.#rows.size > 0) carry.keep(this.#rows);
  }
}

/**
 * `rows` (an endpoint's, of one grain, `from` ≤ at < `to`) with what this connection carries
 * for them added, ordered by at: a stats read counts its own process's completions without
 * writing them first.
 */
function withCarried(rows: Row[], conn: SqliteConnection, t: Tenant, endpointId: string, grainMs: number, from: number, to: number): Row[] {
  const carry = carries.get(conn);
  if (carry === undefined || carry.rows.size === 0) return rows;
  const byAt = new Map(rows.map((r) => [int(r, 'at'), r]));
  for (const { key, counts } of carry.rows.values()) {
    const [endpoint, grain, at, orgId, env] = key;
    if (endpoint !== endpointId || grain !== grainMs || at < from || at >= to || orgId !== t.orgId || env !== t.env) continue;
    const row = byAt.get(at);
    byAt.set(at, { at, ...Object.fromEntries(COUNT_COLUMNS.map((c, i) => [c, (row === undefined ? 0 : int(row, c)) + counts[i]!])) });
  }
  return [...byAt.values()].sort((a, b) => int(a, 'at') - int(b, 'at'));
}

const openRollupTally = (conn: SqliteConnection): RollupTally => new RollupTally(conn);

/** Endpoint health in SQLite: rollup rows written by completeDelivery (addToRollups), read and pruned here. */
export class SqliteEndpointStatsRepo implements EndpointStatsRepo {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  async rollups(t: Tenant, endpointId: EndpointId, grainMs: RollupGrainMs, from: number, to: number): Promise<EndpointRollup[]> {
    // With what this connection carries (another process's arrive within ROLLUP_FLUSH_MS).
    const rows = this.#conn
      .statement(
        `SELECT * FROM endpoint_rollups
         WHERE endpoint_id = ? AND grain_ms = ? AND at >= ? AND at < ? AND org_id = ? AND env = ? ORDER BY at`,
      )
      .all(endpointId, grainMs, from, to, t.orgId, t.env);
    return withCarried(rows, this.#conn, t, endpointId, grainMs, from, to).map(toRollup);
  }

  async pending(t: Tenant, endpointId: EndpointId): Promise<{ count: number; oldestAt: number | null }> {
    // The count from the endpoint's row kept by triggers (schema 25); the oldest from two seeks,
    // neither growing with the backlog (schema 37): the first entry of deliveries_endpoint_aged
    // (by creation: the open deliveries retrying, held, waiting in a lane or due at another time
    // than created), and the created_at of the first of (0, endpoint, 0) in deliveries_endpoint_queue
    // by due time. Every open delivery outside the first is pending and due at its creation, so
    // it was created no earlier than that first entry is due, which is no earlier than that
    // entry was created (a due time is never before its creation while the clock does not step
    // back; if it did, the answer can be a delivery a little younger than the oldest).
    const row = this.#conn
      .statement(
        `SELECT (SELECT open FROM endpoint_counts WHERE endpoint_id = ?3 AND org_id = ?1 AND env = ?2) AS n,
                (SELECT min(m) FROM (
                   SELECT (SELECT min(created_at) FROM deliveries WHERE endpoint_id = ?3 AND ${AGED} AND org_id = ?1 AND env = ?2) AS m
                   UNION ALL
                   SELECT (SELECT created_at FROM deliveries WHERE endpoint_id = ?3 AND ${SENDABLE} ` +
          `AND org_id = ?1 AND env = ?2 ORDER BY next_attempt_at LIMIT 1))) AS oldest`,
      )
      .get(t.orgId, t.env, endpointId);
    return { count: row === undefined ? 0 : (intOrNull(row, 'n') ?? 0), oldestAt: row === undefined ? null : intOrNull(row, 'oldest') };
  }

  async prune(now: number, batch: number): Promise<number> {
    if (!Number.isInteger(batch) || batch < 0) throw new RangeError(`batch must be a non-negative integer, got ${batch}`);
    // What this connection carries first: in production, rows of current buckets, never expired;
    // but a prune as of a later time (a clock far ahead, the contract's) prunes them too.
    await writeCarriedRollups(this.#conn);
    return this.#conn.batched(() => {
      let removed = 0;
      for (const grain of ROLLUP_GRAINS_MS) {
        if (removed >= batch) break;
        // A row's bucket ends at at + grain; it goes ROLLUP_RETENTION_MS after that.
        const { changes } = this.#conn
          .statement(
            `DELETE FROM endpoint_rollups WHERE (endpoint_id, grain_ms, at) IN (
               SELECT endpoint_id, grain_ms, at FROM endpoint_rollups WHERE grain_ms = ? AND at < ? ORDER BY at LIMIT ?)`,
          )
          .run(grain, now - grain - ROLLUP_RETENTION_MS[grain], batch - removed);
        removed += Number(changes);
      }
      return removed;
    });
  }
}

function toRollup(row: Row): EndpointRollup {
  return {
    at: int(row, 'at'),
    attempts: int(row, 'attempts'),
    succeeded: int(row, 'succeeded'),
    errors: Object.fromEntries(STATS_ERROR_KINDS.map((k) => [k, int(row, k)])) as Record<StatsErrorKind, number>,
    latency: LATENCY_COLUMNS.map((c) => int(row, c)),
  };
}
