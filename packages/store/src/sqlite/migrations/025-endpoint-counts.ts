// One row of counts per endpoint instead of two tables (steps 18 and 22 kept endpoint_retrying
// and endpoint_open with near-identical triggers): a delivery that goes pending → retrying →
// succeeded wrote three upserts, now two, and one trigger of each kind says what every count
// means. `open` counts pending and retrying deliveries (held ones too), `retrying` those of them
// retrying. Recounted from the deliveries at the upgrade (once; the steps before did the same).
// The old tables' names stay as read-only views, so a process of the previous build still
// running on the same file (a rolling upgrade) reads the same numbers (it only read them: the
// triggers that wrote them are this step's to replace).
/** The step's count of what is there already (a test runs it alone). */
export const countEndpoints = `INSERT INTO endpoint_counts (endpoint_id, org_id, env, open, retrying)
    SELECT endpoint_id, org_id, env, count(*), sum(status = 'retrying') FROM deliveries
    WHERE status IN ('pending', 'retrying') GROUP BY endpoint_id`;

const OPEN_NEW = `new.status IN ('pending', 'retrying')`;
const OPEN_OLD = `old.status IN ('pending', 'retrying')`;

/** Schema step 25 (user_version 24 → 25); shipped, so never edited. */
export const endpointCounts = `
  DROP TRIGGER deliveries_retrying_insert;
  DROP TRIGGER deliveries_retrying_update;
  DROP TRIGGER deliveries_retrying_delete;
  DROP TRIGGER deliveries_open_insert;
  DROP TRIGGER deliveries_open_update;
  DROP TRIGGER deliveries_open_delete;
  DROP TABLE endpoint_retrying;
  DROP TABLE endpoint_open;
  CREATE TABLE endpoint_counts (
    endpoint_id TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL,
    env         TEXT NOT NULL,
    open        INTEGER NOT NULL,
    retrying    INTEGER NOT NULL
  ) STRICT, WITHOUT ROWID;
  ${countEndpoints};
  CREATE VIEW endpoint_retrying AS SELECT endpoint_id, org_id, env, retrying AS n FROM endpoint_counts;
  CREATE VIEW endpoint_open AS SELECT endpoint_id, org_id, env, open AS n FROM endpoint_counts;
  CREATE TRIGGER deliveries_counts_insert AFTER INSERT ON deliveries WHEN ${OPEN_NEW} BEGIN
    INSERT INTO endpoint_counts (endpoint_id, org_id, env, open, retrying)
      VALUES (new.endpoint_id, new.org_id, new.env, 1, new.status = 'retrying')
      ON CONFLICT (endpoint_id) DO UPDATE SET open = open + 1, retrying = retrying + excluded.retrying;
  END;
  CREATE TRIGGER deliveries_counts_update AFTER UPDATE OF status ON deliveries
    WHEN (${OPEN_OLD}) <> (${OPEN_NEW}) OR (old.status = 'retrying') <> (new.status = 'retrying') BEGIN
    INSERT INTO endpoint_counts (endpoint_id, org_id, env, open, retrying)
      VALUES (new.endpoint_id, new.org_id, new.env, (${OPEN_NEW}) - (${OPEN_OLD}), (new.status = 'retrying') - (old.status = 'retrying'))
      ON CONFLICT (endpoint_id) DO UPDATE SET open = open + excluded.open, retrying = retrying + excluded.retrying;
  END;
  CREATE TRIGGER deliveries_counts_delete AFTER DELETE ON deliveries WHEN ${OPEN_OLD} BEGIN
    UPDATE endpoint_counts SET open = open - 1, retrying = retrying - (old.status = 'retrying') WHERE endpoint_id = old.endpoint_id;
  END;
  `;
