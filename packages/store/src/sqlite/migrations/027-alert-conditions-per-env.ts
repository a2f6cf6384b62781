// Alert conditions per environment: a test key's choice no longer changes what the live
// environment is told. Each organization's conditions chosen so far become both environments'
// (copied once, here). The old table is left as it was and no longer read: a process of the
// previous build still running on the same file (a rolling upgrade) reads and writes it without
// failing, and what it writes there after this step is not seen by this build.
/** Schema step 27 (user_version 26 → 27); shipped, so never edited. */
export const alertConditionsPerEnv = `
  CREATE TABLE alert_env_conditions (
    org_id     TEXT NOT NULL REFERENCES orgs (id),
    env        TEXT NOT NULL CHECK (env IN ('live', 'test')),
    conditions TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (org_id, env)
  ) STRICT, WITHOUT ROWID;
  INSERT INTO alert_env_conditions (org_id, env, conditions, updated_at)
    SELECT c.org_id, e.env, c.conditions, c.updated_at
    FROM alert_conditions AS c CROSS JOIN (SELECT 'live' AS env UNION ALL SELECT 'test') AS e;
  `;
