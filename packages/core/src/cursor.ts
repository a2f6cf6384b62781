import { InvalidError } from './errors.ts';
import { isId, type IdKind } from './ids.ts';
import { isRetained } from './retention.ts';

// A cursor names the last item of a page (its id: ids are time-ordered, so the id is the
// position) and the time the cursor was issued. The issue time is what the retention rule
// judges: a cursor is accepted from the oldest retained month to the current month, so
// paging through old-but-live records (a consumer made a year ago) still works.
// It is base64url JSON so clients treat it as opaque.

interface CursorV1 {
  v: 1;
  after: string;
  at: number;
}

/** Encodes the position after `lastId`, issued at `now`. */
export function encodeCursor(lastId: string, now: number): string {
  const cursor: CursorV1 = { v: 1, after: lastId, at: now };
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

/**
 * Decodes a cursor made by encodeCursor for a list of `kind` and returns the id to continue after.
 * Not signed: one a client builds itself that passes names a position in its own list, no more.
 * @throws InvalidError when it is malformed, from another list (its id not one of `kind`), or outside the retention window.
 */
export function decodeCursor(cursor: string, kind: IdKind, now: number, retentionMonths: number): string {
  let parsed: Partial<CursorV1> | undefined;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorV1>;
  } catch {
    parsed = undefined;
  }
  if (parsed?.v !== 1 || typeof parsed.after !== 'string' || !isId(kind, parsed.after) || typeof parsed.at !== 'number') {
    throw new InvalidError('cursor: not a cursor returned by this list');
  }
  if (!isRetained(parsed.at, now, retentionMonths)) {
    throw new InvalidError('cursor: outside the retention window (accepted from the oldest retained month to the current month)');
  }
  return parsed.after;
}
