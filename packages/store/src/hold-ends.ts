// The ended Retry-After holds whose rest an endpoint's walk still has to make due, as both
// adapters keep them. A hold's end makes a request's batch due and leaves the rest (due at
// exactly the hold's old end) to the walk. Another hold can be made and ended before the walk
// has done the first one's rest (manual retries one by one through a 429 storm): keeping only
// the newest end would leave the older rest at its old end, up to its Retry-After away. So the
// walk keeps a few ends, the one it walks (`putOffUntil`) and the next (`putOffMore`), oldest
// hold first, each done in turn.

/**
 * How many ended holds' rests an endpoint's walk keeps at once. Past that, a further hold's
 * rest waits for its old end (at most its Retry-After), as under a hold made longer: the walk
 * takes 1,000 a batch within a tick, so eight holds ended, each with more than a request's
 * batch put off, in one walk's time means a receiver asking to slow down eight times over.
 */
export const HOLD_ENDS_KEPT = 8;

/** An endpoint walk's hold ends: the one it walks (null: none) and those after it, in turn. */
export interface HoldEnds {
  putOffUntil: number | null;
  putOffMore: readonly number[];
}

/**
 * The walk's hold ends once a hold ending at `end` has left a rest behind: added after those
 * still to do, without those over by `now` (what they put off is due by now anyway).
 * @returns the ends to write, or null when nothing changes (the end is kept already, or
 * HOLD_ENDS_KEPT are kept).
 */
export function keepHoldEnd(kept: HoldEnds, end: number, now: number): HoldEnds | null {
  const ends = [kept.putOffUntil, ...kept.putOffMore].filter((e): e is number => e !== null && e > now);
  // An end over by now put off nothing that is not due already: nothing to walk.
  if (end > now && !ends.includes(end) && ends.length < HOLD_ENDS_KEPT) ends.push(end);
  const next = split(ends);
  const same = next.putOffUntil === kept.putOffUntil && next.putOffMore.join() === kept.putOffMore.join();
  return same ? null : next;
}

/** The ends after `putOffUntil`'s is done (over, or its rest all due): null when none is left. */
export function nextHoldEnds(kept: HoldEnds, now: number): HoldEnds {
  return split(kept.putOffMore.filter((e) => e > now));
}

/**
 * Hold ends as an adapter read them: the walked end, then the rest, in turn, without what is not
 * a time (a value an older build or a hand's edit left) and without an end read twice (its rest
 * is walked once), the walked one filled from the rest.
 */
export function holdEndsIn(putOffUntil: unknown, putOffMore: unknown): HoldEnds {
  const ends = [putOffUntil, ...(Array.isArray(putOffMore) ? putOffMore : [])];
  return split([...new Set(ends.filter((e): e is number => Number.isSafeInteger(e)))]);
}

function split(ends: readonly number[]): HoldEnds {
  return { putOffUntil: ends[0] ?? null, putOffMore: ends.slice(1) };
}
