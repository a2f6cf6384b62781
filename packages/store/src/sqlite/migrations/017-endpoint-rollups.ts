// Endpoint health: each endpoint's attempts rolled up as they complete, one row per
// grain (5 minutes, 1 hour) and bucket: counts by class (core's STATS_ERROR_KINDS) and a
// fixed latency histogram (l0 … l31, one column per LATENCY_BOUNDS_MS bucket), so a window
// reads at most 168 rows. Keyed by endpoint first (unique on its own), like attempts_endpoint;
// endpoint_rollups_age finds expired rows by grain and age. deliveries_endpoint_open gains
// created_at: an endpoint's open deliveries are counted, and the oldest found, on the index
// alone. Attempts made before this step are not rolled up: the stats start at the upgrade.
/** Schema step 17 (user_version 16 → 17); shipped, so never edited. */
export const endpointRollups = `
  CREATE TABLE endpoint_rollups (
    endpoint_id TEXT NOT NULL,
    grain_ms    INTEGER NOT NULL,
    at          INTEGER NOT NULL,
    org_id      TEXT NOT NULL,
    env         TEXT NOT NULL CHECK (env IN ('live', 'test')),
    attempts    INTEGER NOT NULL,
    succeeded   INTEGER NOT NULL,
    http_4xx INTEGER NOT NULL, http_5xx INTEGER NOT NULL, timeout INTEGER NOT NULL, connection INTEGER NOT NULL,
    tls INTEGER NOT NULL, dns INTEGER NOT NULL, refused INTEGER NOT NULL, relay INTEGER NOT NULL,
    l0 INTEGER NOT NULL, l1 INTEGER NOT NULL, l2 INTEGER NOT NULL, l3 INTEGER NOT NULL, l4 INTEGER NOT NULL, l5 INTEGER NOT NULL, l6 INTEGER NOT NULL, l7 INTEGER NOT NULL,
    l8 INTEGER NOT NULL, l9 INTEGER NOT NULL, l10 INTEGER NOT NULL, l11 INTEGER NOT NULL, l12 INTEGER NOT NULL, l13 INTEGER NOT NULL, l14 INTEGER NOT NULL, l15 INTEGER NOT NULL,
    l16 INTEGER NOT NULL, l17 INTEGER NOT NULL, l18 INTEGER NOT NULL, l19 INTEGER NOT NULL, l20 INTEGER NOT NULL, l21 INTEGER NOT NULL, l22 INTEGER NOT NULL, l23 INTEGER NOT NULL,
    l24 INTEGER NOT NULL, l25 INTEGER NOT NULL, l26 INTEGER NOT NULL, l27 INTEGER NOT NULL, l28 INTEGER NOT NULL, l29 INTEGER NOT NULL, l30 INTEGER NOT NULL, l31 INTEGER NOT NULL,
    PRIMARY KEY (endpoint_id, grain_ms, at)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX endpoint_rollups_age ON endpoint_rollups (grain_ms, at);
  DROP INDEX deliveries_endpoint_open;
  CREATE INDEX deliveries_endpoint_open ON deliveries (org_id, env, endpoint_id, status, created_at) WHERE status IN ('pending', 'retrying');
  `;
