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
import { checkedLimit, OPEN_STATUSES, scope } from './query.ts';

/**
 * Adds one attempt to its endpoint's rollup documents (one per grain): one unordered bulk
 * write of single-document `$inc` upserts, made right after the completion's transaction
 * rather than inside it. Inside, every completion of a busy endpoint would write the same
 * document, so its concurrent transactions would conflict and be run again whole (attempt,
 * delivery, message, endpoint); outside, the server applies the `$inc`s one after another
 * without aborting anything, and retries a racing first upsert itself (an equality on `_id`).
 * The price: an attempt whose process dies between the two writes is missing from the
 * stats (never counted twice: the write is not retried). A failed write is swallowed for
 * the same reason — the completion is on record, and throwing would make the dispatcher send
 * the webhook again.
 */
export async function addToRollups(
  conn: MongoConnection,
  t: Tenant,
  attempt: Pick<Attempt, 'endpointId' | 'at' | 'responseStatus' | 'error' | 'durationMs'>,
): Promise<void> {
  const { kind, latencyBucket } = rollupIncrement(attempt);
  const inc: Record<string, number> = { attempts: 1, [`latency.${latencyBucket}`]: 1 };
  if (kind === 'succeeded') inc['succeeded'] = 1;
  else inc[`errors.${kind}`] = 1;
  const ops: AnyBulkWriteOperation<EndpointRollupDoc>[] = ROLLUP_GRAINS_MS.map((grainMs) => {
    const at = rollupStart(attempt.at, grainMs);
    const expiresAt = at + grainMs + ROLLUP_RETENTION_MS[grainMs];
    return {
      updateOne: {
        filter: { _id: `${attempt.endpointId}:${grainMs}:${at}` },
        update: { $inc: inc, $setOnInsert: { ...scope(t), endpointId: attempt.endpointId, grainMs, at, expiresAt } },
        upsert: true,
      },
    };
  });
  await conn.endpointRollups.bulkWrite(ops, { ordered: false }).catch(() => undefined);
}

/** Endpoint health in MongoDB: rollup documents written after each completion (addToRollups), read and pruned here. */
export class MongoEndpointStatsRepo implements EndpointStatsRepo {
  readonly #conn: MongoConnection;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  async rollups(t: Tenant, endpointId: EndpointId, grainMs: RollupGrainMs, from: number, to: number): Promise<EndpointRollup[]> {
    const docs = await this.#conn.endpointRollups.find({ endpointId, grainMs, at: { $gte: from, $lt: to }, ...scope(t) }, { sort: { at: 1 } }).toArray();
    return docs.map(toRollup);
  }

  async pending(t: Tenant, endpointId: EndpointId): Promise<{ count: number; oldestAt: number | null }> {
    const open = { ...scope(t), endpointId, status: { $in: OPEN_STATUSES } };
    const [count, oldest] = await Promise.all([
      this.#conn.deliveries.countDocuments(open),
      this.#conn.deliveries.findOne(open, { sort: { createdAt: 1 }, projection: { createdAt: 1 } }),
    ]);
    return { count, oldestAt: oldest?.createdAt ?? null };
  }

  async prune(now: number, batch: number): Promise<number> {
    if (checkedLimit(batch, 'batch') === 0) return 0;
    const expired = await this.#conn.endpointRollups
      .find({ expiresAt: { $lt: now } }, { sort: { expiresAt: 1 }, limit: batch, projection: { _id: 1 } })
      .toArray();
    if (expired.length === 0) return 0;
    const { deletedCount } = await this.#conn.endpointRollups.deleteMany({ _id: { $in: expired.map((d) => d._id) }, expiresAt: { $lt: now } });
    return deletedCount;
  }
}

function toRollup(doc: EndpointRollupDoc): EndpointRollup {
  return {
    at: doc.at,
    attempts: doc.attempts,
    succeeded: doc.succeeded ?? 0,
    errors: Object.fromEntries(STATS_ERROR_KINDS.map((k) => [k, doc.errors?.[k] ?? 0])) as Record<StatsErrorKind, number>,
    latency: LATENCY_BOUNDS_MS.map((_, i) => doc.latency?.[String(i)] ?? 0),
  };
}
