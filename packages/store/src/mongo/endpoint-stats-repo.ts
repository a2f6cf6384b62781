import type { SucceededBucket } from './streak-window.ts';
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
import type { AnyBulkWriteOperation } from 'mongodb';
import type { EndpointStatsRepo } from '../ports/endpoint-stats-port.ts';
import type { MongoConnection } from './connection.ts';
import type { EndpointRollupDoc } from './documents.ts';
import type { Month } from './months.ts';
import { ENDPOINTS_PLANS as P, ENDPOINT_COUNT_CAP } from './plans/endpoints.ts';
import { checkedLimit, scope } from './query.ts';

// Rollups are aggregated in process. Every completion adds to each grain's rollup of its
// endpoint, so a busy endpoint's two current rollup documents would be written by every one of
// its deliveries (thousands of writes a second to two documents under load). Instead each
// connection keeps an accumulator keyed by rollup `_id` and flushes it every
// ROLLUP_FLUSH_MS (and when it holds ROLLUP_FLUSH_DOCS documents, and at the store's close)
// as one unordered bulk write of single-document `$inc` upserts: a rollup document is written
// at most once per flush per process, whatever the traffic.
// What is lost if a process dies without closing its store: at most one flush interval
// (ROLLUP_FLUSH_MS) of its attempts' stats — never counted twice (a flush is not retried;
// a failed flush is dropped, as a failed `$inc` was before: the completion is on record and
// throwing would make the dispatcher send the webhook again). Reads (`rollups`) flush this
// process's accumulator first, so a process reads its own completions; another process's
// arrive within its flush interval.

/** How often a connection's rollup accumulator is written. */
export const ROLLUP_FLUSH_MS = 2_000;
/** Rollup documents an accumulator holds at most before it is written at once (a bound on its memory and on one bulk write). */
export const ROLLUP_FLUSH_DOCS = 5_000;

interface PendingRollup {
  insert: Omit<EndpointRollupDoc, '_id' | 'attempts' | 'succeeded' | 'errors' | 'latency'>;
  inc: Record<string, number>;
}

class RollupAccumulator {
  readonly #conn: MongoConnection;
  #pending = new Map<string, PendingRollup>();
  #timer: NodeJS.Timeout | undefined;
  /** The flush under way, so a close waits for it. */
  #flushing: Promise<void> = Promise.resolve();
  /** The batches of the flushes under way (the streak guard's unwrittenSuccesses). */
  readonly #writing = new Set<Map<string, PendingRollup>>();

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  add(id: string, insert: PendingRollup['insert'], inc: Record<string, number>): void {
    const seen = this.#pending.get(id);
    if (seen === undefined) this.#pending.set(id, { insert, inc: { ...inc } });
    else for (const [field, n] of Object.entries(inc)) seen.inc[field] = (seen.inc[field] ?? 0) + n;
    if (this.#pending.size >= ROLLUP_FLUSH_DOCS) {
      void this.flush();
      return;
    }
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => void this.flush(), ROLLUP_FLUSH_MS);
      // A pending flush never keeps a process alive: close() flushes.
      this.#timer.unref();
    }
  }

  /**
   * The buckets of `endpointId` that counted a success not yet known to be written: pending, or in a flush under way.
   * A scan of what is pending and of every batch queued to be written (more than one only while writes stall), made only
   * by a disabling's streak guard. By endpoint id alone: ids are unique across tenants.
   */
  unwrittenSuccesses(endpointId: string): SucceededBucket[] {
    const found: SucceededBucket[] = [];
    for (const batch of [this.#pending, ...this.#writing]) {
      for (const { insert, inc } of batch.values()) {
        if (insert.endpointId === endpointId && (inc['succeeded'] ?? 0) > 0) found.push({ grainMs: insert.grainMs, at: insert.at });
      }
    }
    return found;
  }

  /** Writes what is pending (one unordered bulk write); resolves when it and any flush before it are done. */
  flush(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending;
    this.#pending = new Map();
    const previous = this.#flushing;
    this.#writing.add(batch);
    const write = async () => {
      await previous;
      if (batch.size === 0) return;
      const ops: AnyBulkWriteOperation<EndpointRollupDoc>[] = [...batch].map(([id, r]) => {
        const q = P.rollupById(id);
        return { updateOne: { filter: q.filter, update: { $inc: r.inc, $setOnInsert: r.insert }, upsert: true, hint: q.options.hint } };
      });
      const entries = [...batch];
      // A primary's election mid-write is retried by the driver (retryable writes: applied once).
      // What still fails: statements the server refused one by one go back into the
      // accumulator for the next flush (they were not applied); a failure of unknown outcome
      // is dropped rather than risk counting twice.
      await this.#conn.endpointRollups.bulkWrite(ops, { ordered: false, comment: P.rollupById.planName }).catch((err: unknown) => {
        const refused = (err as { writeErrors?: { index: number }[] | { index: number } }).writeErrors;
        for (const e of Array.isArray(refused) ? refused : refused ? [refused] : []) {
          const [id, r] = entries[e.index] ?? [];
          if (id !== undefined && r !== undefined) this.add(id, r.insert, r.inc);
        }
      });
    };
    this.#flushing = write().finally(() => this.#writing.delete(batch));
    return this.#flushing;
  }
}

const accumulators = new WeakMap<MongoConnection, RollupAccumulator>();

function accumulatorOf(conn: MongoConnection): RollupAccumulator {
  let acc = accumulators.get(conn);
  if (acc === undefined) {
    acc = new RollupAccumulator(conn);
    accumulators.set(conn, acc);
  }
  return acc;
}

/**
 * Adds one attempt to its endpoint's rollups (one per grain) in this connection's accumulator,
 * written by the next flush (see above); made after the completion's transaction, never in it.
 * Never throws, and never waits for the database.
 */
export async function addToRollups(
  conn: MongoConnection,
  t: Tenant,
  attempt: Pick<Attempt, 'endpointId' | 'at' | 'responseStatus' | 'error' | 'durationMs'>,
): Promise<void> {
  const increment = rollupIncrement(attempt);
  if (increment === null) return; // cancelled by a transformation: nothing was sent
  const { kind, latencyBucket } = increment;
  const inc: Record<string, number> = { attempts: 1, [`latency.${latencyBucket}`]: 1 };
  if (kind === 'succeeded') inc['succeeded'] = 1;
  else inc[`errors.${kind}`] = 1;
  const acc = accumulatorOf(conn);
  for (const grainMs of ROLLUP_GRAINS_MS) {
    const at = rollupStart(attempt.at, grainMs);
    const expiresAt = at + grainMs + ROLLUP_RETENTION_MS[grainMs];
    acc.add(`${attempt.endpointId}:${grainMs}:${at}`, { ...scope(t), endpointId: attempt.endpointId, grainMs, at, expiresAt }, inc);
  }
}

/** This process's buckets of `endpointId` that counted a success and may not be written yet (the streak guard's). */
export function unwrittenSucceededRollups(conn: MongoConnection, endpointId: string): SucceededBucket[] {
  return accumulators.get(conn)?.unwrittenSuccesses(endpointId) ?? [];
}

/**
 * Writes the connection's pending rollup increments now. The store's close must await it
 * before closing the client (else up to ROLLUP_FLUSH_MS of stats are lost).
 */
export function flushRollups(conn: MongoConnection): Promise<void> {
  return accumulators.get(conn)?.flush() ?? Promise.resolve();
}

/** Endpoint health in MongoDB: rollup documents accumulated by completions (addToRollups), read and pruned here. */
export class MongoEndpointStatsRepo implements EndpointStatsRepo {
  readonly #conn: MongoConnection;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  /** Writes this process's pending rollup increments (flushRollups): call from the store's close, before the client closes. */
  flush(): Promise<void> {
    return flushRollups(this.#conn);
  }

  async rollups(t: Tenant, endpointId: EndpointId, grainMs: RollupGrainMs, from: number, to: number): Promise<EndpointRollup[]> {
    // This process's own completions first (another process's arrive within ROLLUP_FLUSH_MS).
    await flushRollups(this.#conn);
    const q = P.rollups(t, endpointId, grainMs, from, to);
    const docs = await this.#conn.endpointRollups.find(q.filter, q.options).toArray();
    return docs.map(toRollup);
  }

  /**
   * The count saturates at ENDPOINT_COUNT_CAP in all (one covered count per month, newest first,
   * each stopped at what the cap leaves: an endpoint with a larger backlog reads as
   * ENDPOINT_COUNT_CAP, i.e. "at least"); the oldest is one seek per month, oldest month first,
   * up to the first month that has one (a delivery's createdAt is in its own month: months.ts).
   */
  async pending(t: Tenant, endpointId: EndpointId): Promise<{ count: number; oldestAt: number | null }> {
    const months = await this.#conn.months();
    const open = P.openCount(t, endpointId);
    const [count, oldestAt] = await Promise.all([
      countAcrossMonths(months, ENDPOINT_COUNT_CAP, (month, limit) =>
        this.#conn.bucket(month).deliveries.countDocuments(open.filter, { ...open.options, limit }),
      ),
      this.#oldestOpenAt(t, endpointId, months),
    ]);
    return { count, oldestAt };
  }

  /** The createdAt of the endpoint's oldest open delivery: its oldest month's first entry. */
  async #oldestOpenAt(t: Tenant, endpointId: EndpointId, months: readonly Month[]): Promise<number | null> {
    const first = P.oldestOpen(t, endpointId);
    for (const month of months) {
      const oldest = await this.#conn.bucket(month).deliveries.findOne(first.filter, { ...first.options, projection: { _id: 0, createdAt: 1 } });
      if (oldest !== null) return oldest.createdAt;
    }
    return null;
  }

  async prune(now: number, batch: number): Promise<number> {
    if (checkedLimit(batch, 'batch') === 0) return 0;
    // This process's pending increments first: in production they are of current buckets, never
    // expired, but a prune as of a later time (a clock far ahead, the contract's) prunes them too.
    await flushRollups(this.#conn);
    const q = P.rollupsExpired(now);
    const expired = await this.#conn.endpointRollups.find(q.filter, { ...q.options, limit: batch, projection: { _id: 1 } }).toArray();
    if (expired.length === 0) return 0;
    const ids = P.rollupsByIds(
      expired.map((d) => d._id),
      now,
    );
    const { deletedCount } = await this.#conn.endpointRollups.deleteMany(ids.filter, ids.options);
    return deletedCount;
  }
}

/**
 * A count over monthly collections: `count` runs on each of `months` (ascending, as
 * MongoConnection.months gives them) newest first — open work is mostly recent, so a cap is
 * reached in the fewest months — each limited to what `cap` leaves, and the walk stops once the
 * cap is reached. Index keys examined stay ≤ cap in all, plus a seek per month counted.
 * @returns the sum, at most `cap`.
 * @throws what `count` throws.
 */
export async function countAcrossMonths(months: readonly Month[], cap: number, count: (month: Month, limit: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (let i = months.length - 1; i >= 0 && total < cap; i--) total += await count(months[i]!, cap - total);
  return total;
}

/** A rollup document as core's EndpointRollup: a class or bucket it never counted (one made before the class existed too) is 0. */
export function toRollup(doc: EndpointRollupDoc): EndpointRollup {
  return {
    at: doc.at,
    attempts: doc.attempts,
    succeeded: doc.succeeded ?? 0,
    errors: Object.fromEntries(STATS_ERROR_KINDS.map((k) => [k, doc.errors?.[k] ?? 0])) as Record<StatsErrorKind, number>,
    latency: LATENCY_BOUNDS_MS.map((_, i) => doc.latency?.[String(i)] ?? 0),
  };
}
