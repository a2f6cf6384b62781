import { PlanLimitError } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import type { UsageCounter } from '../ports/message-port.ts';
import type { MongoConnection } from './connection.ts';
import { OPERATIONS_PLANS as P } from './plans/operations.ts';

// A usage counter (an organization's sends this month, an environment's this day) is spread over
// SHARDS documents, `key` and `1|key` … `7|key`, its value their sum. Every send of an
// organization increments its month's counter; in one document those increments would
// serialise on its lock (one busy organization, one queue). A send increments one shard at
// random, then reads the sum: the limit is never passed — of two sends that race for the last
// count, the later increment's read sees both and refuses (both may refuse; never both pass).
// The first shard is the bare key, so a counter written before shards is read as one. The
// shard number goes in front: keys end in free text (a consumer's external id), but always
// begin with their environment, never with a digit, so no shard id is another key's.

/** Documents one counter is spread over. */
export const SHARDS = 8;

/** The ids of a counter's shards. */
export function shardIds(key: string): string[] {
  return Array.from({ length: SHARDS }, (_, i) => (i === 0 ? key : `${i}|${key}`));
}

/** The counter's key of a shard id (`3|live:org_1:2026-11` → `live:org_1:2026-11`). */
export function counterKey(shardId: string): string {
  return shardId.replace(SHARD_PREFIX, '');
}

const SHARD_PREFIX = /^[0-9]+\|/;

/** Each counter's value at `now`: the sum of its shards not yet over (0 when it has none). */
export async function counterValues(conn: MongoConnection, keys: readonly string[], now: number, session?: ClientSession): Promise<Record<string, number>> {
  const values: Record<string, number> = Object.fromEntries(keys.map((key) => [key, 0]));
  if (keys.length === 0) return values;
  const ids = keys.flatMap(shardIds);
  const q = P.counterShards(ids);
  for (const doc of await conn.counters.find(q.filter, { ...q.options, session, projection: { value: 1, expiresAt: 1 } }).toArray()) {
    const key = counterKey(doc._id);
    if (doc.expiresAt.getTime() > now) values[key] = (values[key] ?? 0) + doc.value;
  }
  return values;
}

/** A count a send took: which shard it is in, to give it back. */
export interface TakenCount {
  key: string;
  shardId: string;
}

/**
 * Takes this send's count of every counter it increments, each with one atomic update of a
 * random shard (a shard past its expiry starts again at 1). One that passes its limit is given
 * back, with those taken before it, and the send is refused.
 * @returns the counts taken and each counter's value with this send.
 * @throws PlanLimitError when a counter was already at its limit.
 */
export async function takeCounts(
  conn: MongoConnection,
  counters: readonly UsageCounter[],
  now: number,
): Promise<{ taken: TakenCount[]; values: Record<string, number> }> {
  const taken: TakenCount[] = [];
  const values: Record<string, number> = {};
  const at = new Date(now);
  for (const counter of counters) {
    if (!counter.increment) continue;
    const ids = shardIds(counter.key);
    const shardId = ids[Math.floor(Math.random() * ids.length)]!;
    const q = P.counterShard(shardId);
    await conn.counters.updateOne(
      q.filter,
      [
        {
          $set: {
            value: { $cond: [{ $gt: ['$expiresAt', { $literal: at }] }, { $add: ['$value', 1] }, 1] },
            expiresAt: { $literal: new Date(counter.expiresAt) },
          },
        },
      ],
      { ...q.options, upsert: true },
    );
    taken.push({ key: counter.key, shardId });
    const value = (await counterValues(conn, [counter.key], now))[counter.key]!;
    values[counter.key] = value;
    if (counter.limit !== null && value > counter.limit) {
      await giveBack(conn, taken, now);
      throw new PlanLimitError(counter.limitMessage ?? `usage counter ${counter.key} is at its limit of ${counter.limit}`);
    }
  }
  return { taken, values };
}

/** Gives back the counts a send took and did not use. */
export async function giveBack(conn: MongoConnection, taken: readonly TakenCount[], now: number): Promise<void> {
  const at = new Date(now);
  for (const { shardId } of taken) {
    const q = P.counterGiveBack(shardId, at);
    await conn.counters.updateOne(q.filter, { $inc: { value: -1 } }, q.options);
  }
}
