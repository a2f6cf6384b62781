// How many open deliveries (pending or retrying, held ones too) each endpoint has, kept by
// triggers like endpoint_retrying (step 18): an endpoint's stats read its `pending` from
// one row instead of counting a backlog that may be a million deliveries long. Every write that
// makes, ends or deletes a delivery keeps the count without having to remember to.
/** The step's count of what is there already (a test runs it alone). */
export const countOpen = `INSERT INTO endpoint_open (endpoint_id, org_id, env, n)
    SELECT endpoint_id, org_id, env, count(*) FROM deliveries
    WHERE status IN ('pending', 'retrying') GROUP BY endpoint_id`;

/** Schema step 22 (user_version 21 → 22); shipped, so never edited. */
export const endpointOpenCounts = `
  CREATE TABLE endpoint_open (
    endpoint_id TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL,
    env         TEXT NOT NULL,
    n           INTEGER NOT NULL
  ) STRICT, WITHOUT ROWID;
  ${countOpen};
  CREATE TRIGGER deliveries_open_insert AFTER INSERT ON deliveries WHEN new.status IN ('pending', 'retrying') BEGIN
    INSERT INTO endpoint_open (endpoint_id, org_id, env, n) VALUES (new.endpoint_id, new.org_id, new.env, 1)
      ON CONFLICT (endpoint_id) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER deliveries_open_update AFTER UPDATE OF status ON deliveries
    WHEN (old.status IN ('pending', 'retrying')) <> (new.status IN ('pending', 'retrying')) BEGIN
    INSERT INTO endpoint_open (endpoint_id, org_id, env, n)
      VALUES (new.endpoint_id, new.org_id, new.env, CASE WHEN new.status IN ('pending', 'retrying') THEN 1 ELSE -1 END)
      ON CONFLICT (endpoint_id) DO UPDATE SET n = n + excluded.n;
  END;
  CREATE TRIGGER deliveries_open_delete AFTER DELETE ON deliveries WHEN old.status IN ('pending', 'retrying') BEGIN
    UPDATE endpoint_open SET n = n - 1 WHERE endpoint_id = old.endpoint_id;
  END;
  `;
