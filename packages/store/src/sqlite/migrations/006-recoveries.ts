// Recoveries, and the snapshot of each one's targets (dropped when it ends). At most one
// running per endpoint: the unique partial index makes two concurrent starts one 202, one 409.
/** Schema step 6 (user_version 5 → 6); shipped, so never edited. */
export const recoveryTables = `
  CREATE TABLE recoveries (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL,
    env           TEXT NOT NULL CHECK (env IN ('live', 'test')),
    endpoint_id   TEXT NOT NULL,
    since         INTEGER NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('running', 'done', 'stopped')),
    total         INTEGER NOT NULL,
    queued        INTEGER NOT NULL,
    created_at    INTEGER NOT NULL,
    finished_at   INTEGER,
    last_batch_at INTEGER,
    lease_until   INTEGER,
    lease_token   INTEGER NOT NULL DEFAULT 0
  ) STRICT;
  CREATE UNIQUE INDEX recoveries_one_running ON recoveries (endpoint_id) WHERE status = 'running';
  CREATE INDEX recoveries_endpoint ON recoveries (org_id, env, endpoint_id, id);
  CREATE TABLE recovery_targets (
    recovery_id TEXT NOT NULL,
    seq         INTEGER NOT NULL,
    delivery_id TEXT NOT NULL,
    PRIMARY KEY (recovery_id, seq)
  ) STRICT, WITHOUT ROWID;
  `;
