// The URL each attempt was sent to: an endpoint's url can change between attempts.
// Attempts recorded before have none (NULL), rather than a guess.
/** Schema step 15 (user_version 14 → 15); shipped, so never edited. */
export const attemptUrl = `
  ALTER TABLE attempts ADD COLUMN url TEXT;
  `;
