// Bounded work per call (issue 26): a pause, resume, disable or delete changes the endpoint
// and at most ENDPOINT_WALK_BATCH of its deliveries; what is left is a walk, recorded here and
// finished batch by batch by the dispatchers (walkEndpoints). hold: 'hold' (open deliveries
// out of the due index while the endpoint is not active) or 'release' (held ones created at
// or after held_since due again, older ones failed); fail_before: open deliveries created
// before it fail (deleted or disabled), done first. The held index lets a release find held
// deliveries without reading those already released.
/** Schema step 12 (user_version 11 → 12); shipped, so never edited. */
export const endpointWalks = `
  CREATE TABLE endpoint_walks (
    endpoint_id TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL,
    env         TEXT NOT NULL,
    hold        TEXT CHECK (hold IN ('hold', 'release')),
    held_since  INTEGER,
    fail_before INTEGER
  ) STRICT;
  CREATE INDEX deliveries_endpoint_held ON deliveries (endpoint_id) WHERE status IN ('pending', 'retrying') AND held = 1;
  INSERT INTO endpoint_walks (endpoint_id, org_id, env, hold)
    SELECT DISTINCT d.endpoint_id, d.org_id, d.env, 'hold' FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id
    WHERE d.status IN ('pending', 'retrying') AND d.held = 0 AND e.status <> 'active';
  `;
