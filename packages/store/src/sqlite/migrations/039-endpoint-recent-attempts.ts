// An endpoint's newest attempts kept in one row per endpoint, not by an index over every
// attempt (issue 46; recent-attempts.ts says how it is kept). attempts_endpoint served one
// read, the endpoint's page's newest 20 (RECENT_ATTEMPTS when this step shipped), and cost a
// page write per endpoint in every batch of completions: over half of fan-out's WAL pages a
// completion. Each endpoint with attempts (a deleted one's are kept, its row is not made) gets
// its row from that index before it goes: a seek
// per endpoint to find the next (a skip scan) and its newest 20, not a read of all attempts
// (dropping the index then reads each of its pages once, to free it).
// An earlier build still running on a migrated file lists an endpoint's recent attempts by
// reading the whole attempts table, and leaves its own attempts out of the rows: restart every
// process of a SQLite install after upgrading (docs/operations.md). A rowid table: a row of 20
// attempts (≈ 1 KB) fits a table page's cell whole, where a WITHOUT ROWID table's cells spill
// past ≈ 1,000 bytes to an overflow page that every rewrite writes too; and its endpoint's
// unique index changes only when the endpoint's first row is made.
/** Schema step 39 (user_version 38 → 39); shipped, so never edited. */
export const endpointRecentAttempts = `
  CREATE TABLE endpoint_recent_attempts (
    endpoint_id TEXT NOT NULL UNIQUE,
    attempts    TEXT NOT NULL
  ) STRICT;
  WITH RECURSIVE endpoint (id) AS (
    SELECT min(endpoint_id) FROM attempts
    UNION ALL
    SELECT (SELECT min(endpoint_id) FROM attempts WHERE endpoint_id > endpoint.id) FROM endpoint WHERE endpoint.id IS NOT NULL
  )
  INSERT INTO endpoint_recent_attempts (endpoint_id, attempts)
    SELECT endpoint.id, (
      SELECT json_group_array(json_array(newest.at, newest.id)) FROM (
        SELECT at, id FROM attempts WHERE endpoint_id = endpoint.id ORDER BY at DESC, id DESC LIMIT 20
      ) AS newest
    ) FROM endpoint WHERE endpoint.id IS NOT NULL AND EXISTS (SELECT 1 FROM endpoints WHERE endpoints.id = endpoint.id);
  DROP INDEX attempts_endpoint;
  `;
