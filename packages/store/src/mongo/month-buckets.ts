import { MONTHLY, MONTHS_DOC, type MongoConnection } from './connection.ts';
import { noteDue } from './due-queue.ts';
import { ensureBucketIndexes } from './indexes.ts';
import { isMonth, type Month, monthOf, nextMonth } from './months.ts';
import { handOverLanesBefore, handOverLanesOfMonth } from './ordered-lanes.ts';
import type { Sent } from './plans/plan.ts';
import { MONTHS_PLANS as P } from './plans/months.ts';

// The life of a month's collections (months.ts says what lives in them):
// - made ahead: the current and the next month exist, with every index, before any document is
//   written to them (a transaction cannot create a collection under snapshot reads, and an
//   index built on an empty collection costs nothing), listed in `meta` (`_id: 'months'`), which
//   every read across months walks;
// - dropped whole once retention leaves them behind (dropMonthsBefore): the four collections
//   go in four `drop` commands — no document deleted one by one, no index entry removed, one
//   oplog entry per collection — after the few things that point into the month from outside
//   it (ordered lanes whose head is there, the month's due entries) are let go of, batch by batch.

/**
 * Makes the current and next month's collections (with their indexes) when the list lacks
 * them: one cached read otherwise. Every process calls it at start, and the healer every few
 * seconds (delivery-claim.ts): a month exists from a month before its first document.
 */
export async function ensureMonths(conn: MongoConnection, now: number): Promise<void> {
  const current = monthOf(now);
  await ensureMonth(conn, current, now);
  await ensureMonth(conn, nextMonth(current), now);
}

/**
 * Gives every listed month's collections every index of this version, at start: a no-op where
 * they have them (the catalog only, no scan), so that an index a release adds reaches the months
 * made before it — its plans hint it in every month they read. On a large month it is built
 * here, at the first start of that release: build it ahead by hand (docs/operations.md, Upgrades).
 */
export async function ensureListedMonthIndexes(conn: MongoConnection): Promise<void> {
  // Only months whose collections exist: createIndexes makes a missing collection, and a month
  // retention dropped after this list was read must not come back (newest first: the oldest is
  // the one retention may be dropping).
  const onDisk = new Set(await monthsOnDisk(conn));
  for (const month of (await conn.months()).filter((m) => onDisk.has(m)).reverse()) {
    try {
      await ensureBucketIndexes(conn.bucket(month));
    } catch (err) {
      // Dropped under the build (a drop aborts it): no error once the month is off the list.
      conn.forgetMonths();
      if ((await conn.months()).includes(month)) throw err;
    }
  }
}

/**
 * Makes `month`'s collections, with every index, unless the list has it (a cached read). A
 * message of a month not made ahead (a clock far off, a test's time) calls it before its
 * transaction, which cannot create a collection under snapshot reads.
 */
export async function ensureMonth(conn: MongoConnection, month: Month, now: number = Date.now()): Promise<void> {
  if ((await conn.months(now)).includes(month)) return;
  await ensureBucketIndexes(conn.bucket(month));
  const q = P.list(MONTHS_DOC);
  await conn.meta.updateOne(q.filter, { $addToSet: { months: month } }, { ...q.options, upsert: true });
  conn.forgetMonths();
}

/**
 * Retention (the message port's deleteBefore): the oldest month wholly before `before` — its
 * ordered lanes' heads handed over (≤ `batch` lanes a call), then its due
 * entries deleted (≤ `batch` a call), then its four collections dropped. One step a call, so
 * the retention job paces it like any delete. Once no such month is left, each call moves on
 * the lanes a hand-over pointed back into a dropped month meanwhile and deletes the due entries
 * a late noteDue wrote for one (handOverLanesBefore, dueEntriesBefore: ranges normally empty).
 * @returns `batch` while there is more to do (call again), else the messages the month just
 * dropped held (its collection's count from metadata, not a count of documents), 0 when done.
 */
export async function dropMonthsBefore(conn: MongoConnection, before: number, batch: number): Promise<number> {
  if (batch <= 0) return 0;
  // `before` is a month's first instant, an hour into the next month at the earliest: the retention
  // job's margin (retention-job.ts, LATE_WRITER_MARGIN_MS) keeps a writer whose clock is behind
  // from filing into a month being dropped. (A margin here, on a month's first instant, kept a
  // whole month more than RETENTION_MONTHS.)
  const cutoff = monthOf(before);
  const onDisk = await monthsOnDisk(conn);
  const old = onDisk.filter((m) => m < cutoff);
  const month = old[0];
  if (month === undefined) return tidyAfterDrops(conn, onDisk[0] ?? cutoff, batch);
  const lanes = await handOverLanesOfMonth(conn, month, batch);
  await noteDue(conn, lanes.due);
  if (lanes.handed >= batch) return batch;
  if ((await deleteDueEntries(conn, P.dueEntriesOfMonth(month), batch)) >= batch) return batch;
  // Off the list first: a read across months that starts now skips it rather than read a
  // collection going away (one that read the list before finds it empty, harmlessly).
  const list = P.list(MONTHS_DOC);
  await conn.meta.updateOne(list.filter, { $pull: { months: month } }, list.options);
  conn.forgetMonths();
  const bucket = conn.bucket(month);
  const messages = await bucket.messages.estimatedDocumentCount({ comment: 'months.drop' });
  // Deliveries first: a claim that still finds one finds its message too, and a completion
  // that finds it can still write its attempt into a collection that exists.
  for (const c of [bucket.deliveries, bucket.attempts, bucket.messages, bucket.messageBodies]) await c.drop().catch(ignoreMissing);
  // More months to go: call again (a small month must not read as caught up).
  return old.length > 1 ? Math.max(messages, batch) : messages;
}

/** The tidying once no month is left to drop. @returns `batch` while there is more, else 0. */
async function tidyAfterDrops(conn: MongoConnection, oldestKept: Month, batch: number): Promise<number> {
  const lanes = await handOverLanesBefore(conn, oldestKept, batch);
  await noteDue(conn, lanes.due);
  if (lanes.handed >= batch) return batch;
  return (await deleteDueEntries(conn, P.dueEntriesBefore(oldestKept), batch)) >= batch ? batch : 0;
}

/** Deletes up to `batch` due entries of the plan's range of `_id`. @returns how many went. */
async function deleteDueEntries(conn: MongoConnection, range: Sent, batch: number): Promise<number> {
  const entries = await conn.dueEndpoints
    .find(range.filter, { ...range.options, projection: { _id: 1 } })
    .limit(batch)
    .toArray();
  if (entries.length === 0) return 0;
  const ids = P.dueEntriesByIds(entries.map((e) => e._id));
  await conn.dueEndpoints.deleteMany(ids.filter, ids.options);
  return entries.length;
}

/**
 * The months that have any collection on the server, oldest first — the catalog, not the list
 * in `meta`: a collection a stray write re-created after its month was dropped is found and
 * dropped again. The legacy month (connection.ts) counts while its single collections exist.
 */
async function monthsOnDisk(conn: MongoConnection): Promise<Month[]> {
  const pattern = new RegExp(`^(${MONTHLY.join('|')})(?:_(\\d{6}))?$`);
  const names = await conn.db.listCollections({ name: { $regex: pattern.source } }, { nameOnly: true }).toArray();
  const months = new Set<Month>();
  for (const { name } of names) {
    const month = pattern.exec(name)?.[2] ?? conn.legacyMonth;
    if (month !== undefined && month !== null && isMonth(month)) months.add(month);
  }
  return [...months].sort();
}

/** MongoDB's "ns not found": the collection went already (a drop is repeated after a crash). */
function ignoreMissing(err: unknown): void {
  if ((err as { code?: unknown }).code !== 26) throw err;
}
