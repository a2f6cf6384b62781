import { idTime } from '@wirehook/core';

// Monthly buckets: messages, their bodies, deliveries and attempts live in one collection
// per UTC month — `messages_202611`, `deliveries_202611` … — so retention drops a month whole
// (a collection drop: no per-document delete, no index entry removed one by one, no oplog entry
// per document) instead of deleting faster than 5,000 deliveries/s arrive.
// Which month a document is in:
// - a message, its body and its deliveries: the month of the message's id (a delivery's id is
//   made in the same transaction, so a delivery is found from its own id's month too, except
//   within a clock's tick of a month's end: see bucketOfDelivery);
// - an attempt: its delivery's month (a delivery's history is one collection's range);
// the month of a time-ordered id is read from the id itself (packages/core/src/ids.ts).

/** A UTC month as `YYYYMM` (`'202611'`): sorts as text in time order. */
export type Month = string;

/** The month holding Unix ms `ms`. */
export function monthOf(ms: number): Month {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** Unix ms of the month's first instant. */
export function monthStartOf(month: Month): number {
  return Date.UTC(Number(month.slice(0, 4)), Number(month.slice(4, 6)) - 1, 1);
}

/** The month after `month`. */
export function nextMonth(month: Month): Month {
  const y = Number(month.slice(0, 4));
  const m = Number(month.slice(4, 6));
  return m === 12 ? `${y + 1}01` : `${y}${String(m + 1).padStart(2, '0')}`;
}

/** The month before `month`. */
export function previousMonth(month: Month): Month {
  const y = Number(month.slice(0, 4));
  const m = Number(month.slice(4, 6));
  return m === 1 ? `${y - 1}12` : `${y}${String(m - 1).padStart(2, '0')}`;
}

/**
 * The month of a time-ordered id (`msg_…`, `dlv_…`). Ids reach the store already checked by
 * the API (shape and retention window), so a malformed one is a bug, not input.
 * @throws Error when `id` holds no time.
 */
export function monthOfId(id: string): Month {
  const at = idTime(id);
  if (at === undefined) throw new Error(`not a time-ordered id: ${id}`);
  return monthOf(at);
}

/** `YYYYMM` of the right shape. */
export function isMonth(value: string): value is Month {
  return /^\d{4}(0[1-9]|1[0-2])$/.test(value);
}

/**
 * `ids` (each once) by the month of each (`monthOfIt`: the bucket's, connection.ts
 * idsByBucket, for queries): a batch of ids of any months, one query per month.
 */
export function idsByMonth(ids: Iterable<string>, monthOfIt: (id: string) => Month = monthOfId): Map<Month, string[]> {
  const byMonth = new Map<Month, string[]>();
  for (const id of new Set(ids)) {
    const month = monthOfIt(id);
    const of = byMonth.get(month);
    if (of === undefined) byMonth.set(month, [id]);
    else of.push(id);
  }
  return byMonth;
}
