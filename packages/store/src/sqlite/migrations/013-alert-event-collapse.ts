// Alerting: an endpoint's repeated events collapse into the one queued (the first
// stays; duplicates already queued go), each organization's events read apart (fairness),
// the delivery an event came from, targets per environment (those made before: live),
// notices claimed under a claim id (only its holder records the outcome), and failing
// endpoints walked per organization.
/** Schema step 13 (user_version 12 → 13); shipped, so never edited. */
export const alertEventCollapse = `
  DELETE FROM alert_events WHERE seq NOT IN (SELECT min(seq) FROM alert_events GROUP BY endpoint_id, kind);
  CREATE UNIQUE INDEX alert_events_collapse ON alert_events (endpoint_id, kind);
  CREATE INDEX alert_events_org ON alert_events (org_id, seq);
  ALTER TABLE alert_events ADD COLUMN delivery_id TEXT;
  ALTER TABLE alert_targets ADD COLUMN env TEXT NOT NULL DEFAULT 'live' CHECK (env IN ('live', 'test'));
  DROP INDEX alert_targets_org;
  CREATE INDEX alert_targets_org ON alert_targets (org_id, env, id);
  ALTER TABLE alert_notices ADD COLUMN claim TEXT;
  CREATE INDEX endpoints_failing_org ON endpoints (org_id, failing_since, id) WHERE failing_since IS NOT NULL;
  `;
