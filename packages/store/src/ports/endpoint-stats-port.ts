import type { EndpointId, EndpointRollup, RollupGrainMs, Tenant } from '@wirehook/core';

/**
 * Endpoint health, kept as attempts complete: `deliveries.complete` adds every attempt (applied
 * or not: it happened) to the endpoint's rollup row of each grain (ROLLUP_GRAINS_MS) —
 * counts by class (attemptStatsKind) and a latency histogram — so reading a window never
 * scans attempts. SQLite writes the rows in the completion's transaction; MongoDB right after
 * it, with one single-document `$inc` upsert per row (see its adapter).
 */
export interface EndpointStatsRepo {
  /**
   * The endpoint's rollup rows of `grainMs` whose bucket starts in [from, to), oldest first;
   * buckets without attempts have no row.
   */
  rollups(t: Tenant, endpointId: EndpointId, grainMs: RollupGrainMs, from: number, to: number): Promise<EndpointRollup[]>;
  /** The endpoint's open deliveries now (pending or retrying, held ones too) and when the oldest was created (null: none). */
  pending(t: Tenant, endpointId: EndpointId): Promise<{ count: number; oldestAt: number | null }>;
  /**
   * Removes up to `batch` rollup rows whose retention (ROLLUP_RETENTION_MS after their bucket
   * ends) is over at `now`, oldest first. @returns how many went.
   */
  prune(now: number, batch: number): Promise<number>;
}
