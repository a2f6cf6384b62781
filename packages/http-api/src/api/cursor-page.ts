import { encodeCursor } from '@wirehook/core';

/**
 * One page of a cursor-paged list from the rows the store gave for `limit + 1` (one extra row
 * tells whether another page exists without a second query): its first `limit` items, and the
 * cursor after the last of them when that extra row came — or, without it, after `resumeAfterId`,
 * where a store that bounds a page's reads stopped short (MessagePage).
 */
export function cursorPage<T>(
  rows: readonly T[],
  limit: number,
  idOf: (row: T) => string,
  now: number,
  resumeAfterId: string | null = null,
): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const after = rows.length > limit && last !== undefined ? idOf(last) : resumeAfterId;
  return { items, nextCursor: after === null ? null : encodeCursor(after, now) };
}
