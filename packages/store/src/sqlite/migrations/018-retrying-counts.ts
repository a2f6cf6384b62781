// How many retrying deliveries each endpoint has, kept by triggers on every status change: the
// endpoint page's retrying_count, the metrics' backlog and alerting's pending-retries check read
// a row per endpoint instead of counting the deliveries (a million retrying behind one endpoint
// took the store thread hundreds of milliseconds per count). Triggers, not the repos' code: every
// write that moves a delivery in or out of `retrying` (completions, walks, deletes, recoveries,
// retention, a manual retry) keeps the count without having to remember to.
/** The step's count of what is there already (a test runs it alone). */
export const countRetrying = `INSERT INTO endpoint_retrying (endpoint_id, org_id, env, n)
    SELECT endpoint_id, org_id, env, count(*) FROM deliveries
    WHERE status IN ('pending', 'retrying') AND status = 'retrying' GROUP BY endpoint_id`;

/** Schema step 18 (user_version 17 → 18); shipped, so never edited. */
export const retryingCounts = `
  CREATE TABLE endpoint_retrying (
    endpoint_id TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL,
    env         TEXT NOT NULL,
    n           INTEGER NOT NULL
  ) STRICT, WITHOUT ROWID;
  ${countRetrying};
  CREATE TRIGGER deliveries_retrying_insert AFTER INSERT ON deliveries WHEN new.status = 'retrying' BEGIN
    INSERT INTO endpoint_retrying (endpoint_id, org_id, env, n) VALUES (new.endpoint_id, new.org_id, new.env, 1)
      ON CONFLICT (endpoint_id) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER deliveries_retrying_update AFTER UPDATE OF status ON deliveries
    WHEN (old.status = 'retrying') <> (new.status = 'retrying') BEGIN
    INSERT INTO endpoint_retrying (endpoint_id, org_id, env, n)
      VALUES (new.endpoint_id, new.org_id, new.env, CASE WHEN new.status = 'retrying' THEN 1 ELSE -1 END)
      ON CONFLICT (endpoint_id) DO UPDATE SET n = n + excluded.n;
  END;
  CREATE TRIGGER deliveries_retrying_delete AFTER DELETE ON deliveries WHEN old.status = 'retrying' BEGIN
    UPDATE endpoint_retrying SET n = n - 1 WHERE endpoint_id = old.endpoint_id;
  END;
  `;
