// Where an organization's failure notices go.
/** Schema step 9 (user_version 8 → 9); shipped, so never edited. */
export const alertTargets = `
  CREATE TABLE alert_targets (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL REFERENCES orgs (id),
    type          TEXT NOT NULL CHECK (type IN ('webhook', 'chat', 'email')),
    url           TEXT,
    address       TEXT,
    sealed_secret TEXT,
    created_at    INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX alert_targets_org ON alert_targets (org_id, id);
  `;
