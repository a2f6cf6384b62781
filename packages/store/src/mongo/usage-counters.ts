import { PlanLimitError, USAGE_NOTICE_FLOOR, usageMonthExpiry, usageNoticeFloor, utcMonth, type OrgId } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import type { UsageCounter } from '../ports/message-port.ts';
import type { MongoConnection } from './connection.ts';
import { notSent } from './errors.ts';
import { OPERATIONS_PLANS as P } from './plans/operations.ts';

// A usage counter (an organization's sends this month, an environment's this day) is spread over
// SHARDS documents, `key` and `1|key` … `7|key`, its value their sum. Every send of an
// organization increments its month's counter; in one document those increments would
// serialise on its lock (one busy organization, one queue). A send increments one shard at
// random, then reads the sum: the limit is never passed — of two sends that race for the last
// count, the later increment's read sees both and refuses (both may refuse; never both pass).
// The first shard is the bare key, so a counter written before shards is read as one. The
// shard number goes in front: keys end in free text (a consumer's external id), but always
// begin with their environment, never with a digit, so no shard id is another key's. The same
// collection keeps marks under ids of their own (`usage-over:`; an earlier release's `held-writes:`
// until their TTL ends): never a key's.

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
 * back, with those taken before it, and the send is refused; so are they all when a later
 * increment or read fails (the error is thrown as it came).
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
  try {
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
      // Taken once answered: an increment whose answer was lost may stand, and leaves its counter one high.
      taken.push({ key: counter.key, shardId });
      const value = (await counterValues(conn, [counter.key], now))[counter.key]!;
      values[counter.key] = value;
      if (counter.limit !== null && value > counter.limit) {
        throw new PlanLimitError(counter.limitMessage ?? `usage counter ${counter.key} is at its limit of ${counter.limit}`);
      }
    }
  } catch (err) {
    await giveBack(conn, taken, now);
    throw err;
  } finally {
    // Taken or refused at its plan's limit alike: an organization at its limit is over the floor.
    await markOverFloor(conn, counters, values);
  }
  payOwedLater(conn);
  return { taken, values };
}

// The alerting engine reads, once a minute, the organizations whose live messages this month
// reached their plan's first usage threshold (liveMonthUsage). Reading every organization's
// counters to find them is a read of 8 shards × organizations × kept months; instead the send that
// finds its month's count at that threshold or above marks its organization, in one document a
// month (`usage-over:<YYYY-MM>:<org>`; a plan change marks too), and the engine reads those marks
// and then their counters.

/** The `_id` in usage_counters of the mark that an organization's live messages of `month` are to be read (markOverFloor, markPlanChange). */
export function usageOverMarkId(month: string, orgId: string): string {
  return `${USAGE_OVER_PREFIX}${month}:${orgId}`;
}

/** What every usage-over mark's `_id` begins with; the month and `:` follow. */
export const USAGE_OVER_PREFIX = 'usage-over:';

/** A live month counter's key (message-intake's usageCounters): `live:<org>:<YYYY-MM>` (an org id is `org_` and a ULID). */
const LIVE_MONTH_KEY = /^live:([^:]+):([0-9]{4}-[0-9]{2})$/;

/** Marks of one month this process has written (or found written), so each is written once a process; cleared when this large. */
const MARKS_REMEMBERED = 100_000;
/** By connection, then by month: the two months last begun are kept (a send just past midnight, another just before). */
const markedByConn = new WeakMap<MongoConnection, Map<string, Set<string>>>();

/** The marks this process remembers of `month`; beginning a third month forgets the earliest begun. */
function rememberedMarks(conn: MongoConnection, month: string): Set<string> {
  let months = markedByConn.get(conn);
  if (months === undefined) markedByConn.set(conn, (months = new Map()));
  let marked = months.get(month);
  if (marked === undefined) {
    months.set(month, (marked = new Set()));
    for (const old of [...months.keys()].slice(0, -2)) months.delete(old);
  }
  if (marked.size >= MARKS_REMEMBERED) marked.clear();
  return marked;
}

/**
 * Marks each organization whose live month counter this send read at its plan's first usage
 * threshold or above (50 % of the counter's limit, never below USAGE_NOTICE_FLOOR; taken or
 * refused at its limit), once a process and month: an upsert that changes nothing once the
 * mark exists (awaited: one round trip more for that one send). Marked at its own plan's share,
 * not the smallest plan's, so a month's marks are the organizations a usage notice may concern,
 * not every large plan's from its 5,000th message on. Never throws: the send's own outcome is
 * the one to answer; a mark not written is written by the organization's next send (until then,
 * only a month that stops sending right at the threshold goes unread; a plan lowered under
 * the count is marked by the change, markPlanChange). A mark stays once written, under the floor again (a count
 * given back, a plan raised) or not: the reading leaves those out by their counters.
 */
async function markOverFloor(conn: MongoConnection, counters: readonly UsageCounter[], values: Record<string, number>): Promise<void> {
  for (const counter of counters) {
    const live = LIVE_MONTH_KEY.exec(counter.key);
    const floor = counter.limit === null ? USAGE_NOTICE_FLOOR : Math.max(USAGE_NOTICE_FLOOR, usageNoticeFloor(counter.limit));
    if (live === null || !counter.increment || (values[counter.key] ?? 0) < floor) continue;
    const id = usageOverMarkId(live[2]!, live[1]!);
    const marked = rememberedMarks(conn, live[2]!);
    if (marked.has(id)) continue;
    // Taken before the write: the sends that cross the floor together write it once.
    marked.add(id);
    try {
      await writeMark(conn, id, counter.expiresAt);
    } catch {
      marked.delete(id); // written by the next send of this organization
    }
  }
}

/**
 * Marks an organization for this month's reading of usage whatever its count, when its plan
 * changed: a lower plan's first threshold may lie under the count already reached, which no send
 * marked (each marked at its own plan's), and the owner's notices are owed without another send.
 * The reading leaves it out while its count is under USAGE_NOTICE_FLOOR. Expires as the month's
 * live counter does (usageMonthExpiry).
 */
export async function markPlanChange(conn: MongoConnection, orgId: OrgId, now: number): Promise<void> {
  await writeMark(conn, usageOverMarkId(utcMonth(now), orgId), usageMonthExpiry(now));
}

/** Upserts a usage-over mark: a write that changes nothing once it exists. */
async function writeMark(conn: MongoConnection, id: string, expiresAt: number): Promise<void> {
  const q = P.usageOverMark(id);
  await conn.counters.updateOne(q.filter, { $setOnInsert: { value: 0, expiresAt: new Date(expiresAt) } }, { ...q.options, upsert: true });
}

/**
 * Gives back the counts a send took and did not use. Never throws: it runs where the send has
 * already failed, whose error is the one to answer. A give-back refused before it reached a
 * server (no pooled connection in time, no server to send to: the pool saturated, an election)
 * is owed, with the rest of the send's after it, and written later (payOwed, not waited for),
 * up to OWED_MAX, while the process lives. One whose outcome is unknown (a lost connection) is
 * not tried again — twice could lower the count by two — so its counter stays one high, as
 * after a process killed between its increment and its commit. (errors.ts notSent says when a
 * refusal follows a first try that was applied after all: then the count ends one low.)
 * The send waits for one refusal at most: one pool wait (10 s in the request processes), not one a count.
 */
export async function giveBack(conn: MongoConnection, taken: readonly TakenCount[], now: number): Promise<void> {
  for (let i = 0; i < taken.length; i++) {
    if ((await giveOneBack(conn, { ...taken[i]!, at: now })) !== 'not sent') continue;
    for (const rest of taken.slice(i)) owe(conn, { ...rest, at: now });
    break;
  }
  payOwedLater(conn);
}

/** A give-back not yet written: the shard, and the time of the send that took it. */
interface OwedGiveBack extends TakenCount {
  at: number;
}

/** How many owed give-backs a process keeps (a bound in an outage: past it the oldest are dropped, their counters one high). */
export const OWED_MAX = 10_000;
const owedByConn = new WeakMap<MongoConnection, OwedGiveBack[]>();
const paying = new WeakSet<MongoConnection>();

function owedOf(conn: MongoConnection): OwedGiveBack[] {
  let owed = owedByConn.get(conn);
  if (owed === undefined) owedByConn.set(conn, (owed = []));
  return owed;
}

function owe(conn: MongoConnection, owed: OwedGiveBack): void {
  const list = owedOf(conn);
  list.push(owed);
  if (list.length > OWED_MAX) list.splice(0, list.length - OWED_MAX);
}

/** Starts paying what this connection owes, if anything, not waited for (payOwed). */
function payOwedLater(conn: MongoConnection): void {
  if (owedByConn.get(conn)?.length) void payOwed(conn);
}

/**
 * Writes the owed give-backs, one call at a time a connection, oldest first; stops at the first
 * that is refused again (kept for the next call: after the next send's take, or the next give-back).
 */
async function payOwed(conn: MongoConnection): Promise<void> {
  const owed = owedOf(conn);
  if (owed.length === 0 || paying.has(conn)) return;
  paying.add(conn);
  try {
    while (owed.length > 0) {
      const next = owed[0]!;
      if ((await giveOneBack(conn, next)) === 'not sent') return;
      if (owed[0] === next) owed.shift();
    }
  } finally {
    paying.delete(conn);
  }
}

/** One count given back while its period lasts and its shard has one. */
async function giveOneBack(conn: MongoConnection, owed: OwedGiveBack): Promise<'done' | 'not sent' | 'unknown'> {
  const q = P.counterGiveBack(owed.shardId, new Date(owed.at));
  try {
    await conn.counters.updateOne(q.filter, { $inc: { value: -1 } }, q.options);
    return 'done';
  } catch (err) {
    return notSent(err) ? 'not sent' : 'unknown';
  }
}
