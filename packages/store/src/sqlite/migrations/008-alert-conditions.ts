// Alert conditions per organization (both environments share them).
/** Schema step 8 (user_version 7 → 8); shipped, so never edited. */
export const alertConditions = `
  CREATE TABLE alert_conditions (
    org_id     TEXT PRIMARY KEY REFERENCES orgs (id),
    conditions TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;
  `;
