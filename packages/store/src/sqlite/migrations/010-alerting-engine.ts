// The alerting engine: the outbox of events (written with the change that causes them),
// each organization's throttle state, and the notices queued per target with their tries.
/** Schema step 10 (user_version 9 → 10); shipped, so never edited. */
export const alertingEngine = `
  CREATE TABLE alert_events (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    org_id          TEXT NOT NULL,
    env             TEXT NOT NULL CHECK (env IN ('live', 'test')),
    kind            TEXT NOT NULL CHECK (kind IN ('failing', 'exhausted', 'disabled')),
    endpoint_id     TEXT NOT NULL,
    at              INTEGER NOT NULL,
    error           TEXT,
    response_status INTEGER
  ) STRICT;
  CREATE TABLE alert_state (
    org_id      TEXT PRIMARY KEY,
    state       TEXT NOT NULL,
    window_end  INTEGER,
    has_pending INTEGER NOT NULL CHECK (has_pending IN (0, 1))
  ) STRICT;
  CREATE INDEX alert_state_due ON alert_state (window_end) WHERE has_pending = 1;
  CREATE TABLE alert_notices (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL,
    target_id       TEXT NOT NULL,
    type            TEXT NOT NULL,
    body            TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER,
    lease_until     INTEGER,
    sent            INTEGER NOT NULL DEFAULT 0 CHECK (sent IN (0, 1))
  ) STRICT;
  CREATE INDEX alert_notices_due ON alert_notices (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
  CREATE TABLE alert_notice_attempts (
    id              INTEGER PRIMARY KEY,
    notice_id       TEXT NOT NULL,
    org_id          TEXT NOT NULL,
    target_id       TEXT NOT NULL,
    at              INTEGER NOT NULL,
    response_status INTEGER,
    error           TEXT,
    duration_ms     INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX alert_notice_attempts_target ON alert_notice_attempts (org_id, target_id, at);
  CREATE INDEX endpoints_failing ON endpoints (failing_since) WHERE failing_since IS NOT NULL;
  `;
