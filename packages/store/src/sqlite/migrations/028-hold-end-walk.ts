// A Retry-After hold's end makes what it put off due 1,000 at a time: the transaction that
// ends it takes the first 1,000, and the endpoint's walk the rest, a batch at a time, instead of
// leaving them to the hold's old end (up to an hour later). `put_off_until` is that old end: the
// walk makes the deliveries due at exactly that time due now. A process of the previous build
// still running on the same file (a rolling upgrade) may delete a walk row holding only this
// column; its deliveries then keep the hold's old end, as before this step.
/** Schema step 28 (user_version 27 → 28); shipped, so never edited. */
export const holdEndWalk = `
  ALTER TABLE endpoint_walks ADD COLUMN put_off_until INTEGER;
  `;
