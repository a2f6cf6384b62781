// A recovery's targets are read as it goes (issue 26), not copied at its start: each step
// takes the next batch of the endpoint's failed deliveries after a cursor, oldest first, by
// this index; the spec's "failed at the start" is kept by skipping any attempted since (rule
// 4). A start then only counts (an index range), and an end deletes nothing. A recovery
// running at the upgrade goes on from its since: what it queued is no longer failed, and what
// failed again was attempted since its start, so nothing is queued twice.
/** Schema step 14 (user_version 13 → 14); shipped, so never edited. */
export const recoveryCursor = `
  CREATE INDEX deliveries_endpoint_failed_since ON deliveries (endpoint_id, created_at, id) WHERE status = 'failed';
  ALTER TABLE recoveries ADD COLUMN cursor_created_at INTEGER;
  ALTER TABLE recoveries ADD COLUMN cursor_id TEXT;
  DELETE FROM recovery_targets;
  `;
