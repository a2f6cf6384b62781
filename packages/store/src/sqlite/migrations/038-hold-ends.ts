// An endpoint's walk keeps the rests of a few ended Retry-After holds, not only the newest
// (hold-ends.ts): `put_off_until` the one it walks, `put_off_more` those after it (a JSON array
// of their old ends, at most seven). A process of the previous build still running on the same
// file (a rolling upgrade) ignores the column and may delete a walk row whose `put_off_until` it
// finished; those further rests then keep their holds' old ends, as before this step.
/** Schema step 38 (user_version 37 → 38); shipped, so never edited. */
export const holdEnds = `
  ALTER TABLE endpoint_walks ADD COLUMN put_off_more TEXT;
  `;
