import { InvalidError } from './errors.ts';
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
 * Decodes a cursor made by encodeCursor and returns the id to continue after.
 * @throws InvalidError when it is malformed, from another list, or outside the retention window.
 */
export function decodeCursor(cursor: string, expectedPrefix: string, now: number, retentionMonths: number): string {
  let parsed: Partial<CursorV1> | undefined;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorV1>;
  } catch {
    parsed = undefined;
  }
  if (parsed?.v !== 1 || typeof parsed.after !== 'string' || !parsed.after.startsWith(expectedPrefix) || typeof parsed.at !== 'number') {
    throw new InvalidError('cursor: not a cursor returned by this list');
  }
  if (!isRetained(parsed.at, now, retentionMonths)) {
    throw new InvalidError('cursor: outside the retention window (accepted from the oldest retained month to the current month)');
  }
  return parsed.after;
}
