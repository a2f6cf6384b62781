import {
  LATENCY_BOUNDS_MS,
  ROLLUP_GRAINS_MS,
  ROLLUP_RETENTION_MS,
  rollupIncrement,
  rollupStart,
  STATS_ERROR_KINDS,
  type Attempt,
  type EndpointId,
  type EndpointRollup,
  type RollupGrainMs,
  type StatsErrorKind,
  type Tenant,
} from '@wirehook/core';
import type { EndpointStatsRepo } from '../ports/endpoint-stats-port.ts';
import type { SqliteConnection } from './connection.ts';
import type { BatchTally } from './group-commit.ts';
import { OPEN } from './message-status.ts';
import { int, intOrNull, type Row } from './row.ts';

// Column names come from core's fixed lists (never from input), so they are safe to splice.
const LATENCY_COLUMNS = LATENCY_BOUNDS_MS.map((_, i) => `l${i}`);
const COUNT_COLUMNS = ['attempts', 'succeeded', ...STATS_ERROR_KINDS, ...LATENCY_COLUMNS];

// One statement for every attempt: each count column is added from its parameter (mostly 0).
const ADD = `INSERT INTO endpoint_rollups (endpoint_id, grain_ms, at, org_id, env, ${COUNT_COLUMNS.join(', ')})
  VALUES (?, ?, ?, ?, ?, ${COUNT_COLUMNS.map(() => '?').join(', ')})
  ON CONFLICT (endpoint_id, grain_ms, at) DO UPDATE SET ${COUNT_COLUMNS.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}`;

/**
 * Adds one attempt to its endpoint's rollup rows (one per grain), inside the caller's batched
 * write: the batch's attempts are summed per row and written once before it commits (a batch
 * of 64 completions to one endpoint: 2 upserts, not 128), in the completions' transaction, so
 * the rollups never disagree with the attempts.
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

/** A rollup row's key: endpoint, grain, start, org, env (ADD's first parameters). */
type RollupKey = [string, number, number, string, string];

/** One batch's rollup increments, summed per row. */
class RollupTally implements BatchTally {
  readonly #conn: SqliteConnection;
  readonly #rows = new Map<string, { key: RollupKey; counts: number[] }>();

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  add(key: RollupKey, counts: readonly number[]): void {
    const id = key.join('\u0000');
    const row = this.#rows.get(id);
    if (row === undefined) this.#rows.set(id, { key, counts: [...counts] });
    else for (let i = 0; i < counts.length; i++) row.counts[i]! += counts[i]!;
  }

  flush(): void {
    const add = this.#conn.statement(ADD);
    for (const { key, counts } of this.#rows.values()) add.run(...key, ...counts);
  }
}

const openRollupTally = (conn: SqliteConnection): RollupTally => new RollupTally(conn);

/** Endpoint health in SQLite: rollup rows written by completeDelivery (addToRollups), read and pruned here. */
export class SqliteEndpointStatsRepo implements EndpointStatsRepo {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  async rollups(t: Tenant, endpointId: EndpointId, grainMs: RollupGrainMs, from: number, to: number): Promise<EndpointRollup[]> {
    return this.#conn
      .statement(
        `SELECT * FROM endpoint_rollups
         WHERE endpoint_id = ? AND grain_ms = ? AND at >= ? AND at < ? AND org_id = ? AND env = ? ORDER BY at`,
      )
      .all(endpointId, grainMs, from, to, t.orgId, t.env)
      .map(toRollup);
  }

  async pending(t: Tenant, endpointId: EndpointId): Promise<{ count: number; oldestAt: number | null }> {
    // The count from the endpoint's row kept by triggers (schema 25), the oldest from one seek
    // per open status of deliveries_endpoint_open (its entries end in created_at): neither
    // grows with the backlog.
    const row = this.#conn
      .statement(
        `SELECT (SELECT open FROM endpoint_counts WHERE endpoint_id = ?3 AND org_id = ?1 AND env = ?2) AS n,
                (SELECT min(m) FROM (
                   SELECT (SELECT min(created_at) FROM deliveries WHERE org_id = ?1 AND env = ?2 AND endpoint_id = ?3 AND ${OPEN} AND status = 'pending') AS m
                   UNION ALL
                   SELECT (SELECT min(created_at) FROM deliveries ` +
          `WHERE org_id = ?1 AND env = ?2 AND endpoint_id = ?3 AND ${OPEN} AND status = 'retrying'))) AS oldest`,
      )
      .get(t.orgId, t.env, endpointId);
    return { count: row === undefined ? 0 : (intOrNull(row, 'n') ?? 0), oldestAt: row === undefined ? null : intOrNull(row, 'oldest') };
  }

  async prune(now: number, batch: number): Promise<number> {
    if (!Number.isInteger(batch) || batch < 0) throw new RangeError(`batch must be a non-negative integer, got ${batch}`);
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
