// Notices of a fixed IP pool change: the gateway's sync records what changed, and the
// alerting worker walks the organizations with fixed_ip endpoints from `cursor`, a page per
// tick, queuing their notices with each step. `endpoints_fixed_ip` makes each organization of
// that walk one index seek (a skip scan), whatever its number of endpoints.
/** Schema step 24 (user_version 23 → 24); shipped, so never edited. */
export const egressChanges = `
  CREATE TABLE egress_changes (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    at          INTEGER NOT NULL,
    added       TEXT NOT NULL,
    retiring    TEXT NOT NULL,
    retiring_at INTEGER,
    cursor      TEXT,
    done        INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1))
  ) STRICT;
  CREATE INDEX egress_changes_pending ON egress_changes (seq) WHERE done = 0;
  CREATE INDEX endpoints_fixed_ip ON endpoints (org_id) WHERE fixed_ip = 1;
  `;
