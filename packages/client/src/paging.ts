/** One page of a cursor-paged list. */
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/**
 * Yields every item of a cursor-paged list, fetching page after page (from `cursor`, or the
 * first) until `next_cursor` is null. Stopping the loop early fetches nothing more.
 */
export async function* paginate<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>, cursor?: string): AsyncGenerator<T, void, undefined> {
  let next = cursor;
  const seen = new Set<string>();
  do {
    const page = await fetchPage(next);
    yield* page.items;
    next = page.next_cursor ?? undefined;
    // A cursor coming back (a proxy's cache, a bug) would page forever: stop loudly instead.
    if (next !== undefined && seen.has(next)) throw new Error(`paging stopped: the API returned cursor ${next} twice`);
    if (next !== undefined) seen.add(next);
  } while (next !== undefined);
}
