// Throughput control per endpoint: its `rate_limit` (deliveries per second, NULL: none)
// and the hold a receiver's Retry-After put on it (`held_until`, Unix ms, NULL: not held).
/** Schema step 21 (user_version 20 → 21); shipped, so never edited. */
export const endpointThroughput = `
  ALTER TABLE endpoints ADD COLUMN rate_limit INTEGER;
  ALTER TABLE endpoints ADD COLUMN held_until INTEGER;
  `;
