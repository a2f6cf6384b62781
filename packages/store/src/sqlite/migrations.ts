import type { DatabaseSync } from 'node:sqlite';
import { immediateTransaction } from './connection.ts';

// Append only: step N (1-based) moves a database from user_version N-1 to N. Never edit a
// step that has shipped; add a new one.

/** The schema, as numbered steps; `PRAGMA user_version` records how many were applied. */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE orgs (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    plan        TEXT NOT NULL,
    owner_email TEXT,
    created_at  INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES orgs (id),
    env        TEXT NOT NULL CHECK (env IN ('live', 'test')),
    key_hash   TEXT NOT NULL,
    scopes     TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER,
    expires_at INTEGER
  ) STRICT;
  CREATE UNIQUE INDEX api_keys_key_hash ON api_keys (key_hash);

  CREATE TABLE consumers (
    id          TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL REFERENCES orgs (id),
    env         TEXT NOT NULL CHECK (env IN ('live', 'test')),
    external_id TEXT NOT NULL,
    name        TEXT,
    created_at  INTEGER NOT NULL
  ) STRICT;
  CREATE UNIQUE INDEX consumers_external_id ON consumers (org_id, env, external_id);
  -- Paging by id within a tenant; also the target of the endpoints' tenant-wide foreign key.
  CREATE UNIQUE INDEX consumers_tenant_id ON consumers (org_id, env, id);

  CREATE TABLE endpoints (
    id               TEXT PRIMARY KEY,
    org_id           TEXT NOT NULL,
    env              TEXT NOT NULL CHECK (env IN ('live', 'test')),
    consumer_id      TEXT NOT NULL,
    url              TEXT NOT NULL,
    description      TEXT,
    event_types      TEXT,
    fixed_ip         INTEGER NOT NULL CHECK (fixed_ip IN (0, 1)),
    status           TEXT NOT NULL,
    disabled_reason  TEXT,
    failing_since    INTEGER,
    created_at       INTEGER NOT NULL,
    retry            TEXT NOT NULL,
    compat_signature TEXT,
    -- The consumer must be in the same org and environment as its endpoint.
    FOREIGN KEY (org_id, env, consumer_id) REFERENCES consumers (org_id, env, id)
  ) STRICT;
  CREATE INDEX endpoints_tenant_consumer ON endpoints (org_id, env, consumer_id, id);
  CREATE INDEX endpoints_tenant ON endpoints (org_id, env, id);

  CREATE TABLE endpoint_secrets (
    id          INTEGER PRIMARY KEY,
    endpoint_id TEXT NOT NULL REFERENCES endpoints (id) ON DELETE CASCADE,
    sealed      TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER
  ) STRICT;
  CREATE INDEX endpoint_secrets_endpoint ON endpoint_secrets (endpoint_id, created_at);

  CREATE TABLE event_types (
    id          INTEGER PRIMARY KEY,
    org_id      TEXT NOT NULL REFERENCES orgs (id),
    env         TEXT NOT NULL CHECK (env IN ('live', 'test')),
    name        TEXT NOT NULL,
    description TEXT,
    archived_at INTEGER,
    created_at  INTEGER NOT NULL
  ) STRICT;
  CREATE UNIQUE INDEX event_types_name ON event_types (org_id, env, name);
  `,
  `
  CREATE TABLE messages (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL,
    env             TEXT NOT NULL CHECK (env IN ('live', 'test')),
    consumer_id     TEXT NOT NULL,
    event_type      TEXT NOT NULL,
    payload         TEXT NOT NULL,
    idempotency_key TEXT,
    created_at      INTEGER NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'retrying', 'success', 'failed')),
    FOREIGN KEY (org_id, env, consumer_id) REFERENCES consumers (org_id, env, id)
  ) STRICT;
  CREATE INDEX messages_tenant ON messages (org_id, env, id DESC);
  CREATE INDEX messages_tenant_status ON messages (org_id, env, status, id DESC);
  CREATE INDEX messages_tenant_event_type ON messages (org_id, env, event_type, id DESC);
  CREATE INDEX messages_idempotency ON messages (org_id, env, idempotency_key, created_at)
    WHERE idempotency_key IS NOT NULL;
  CREATE INDEX messages_created_at ON messages (created_at);

  -- endpoint_id has no foreign key: a delivery and its attempts outlive a deleted endpoint.
  CREATE TABLE deliveries (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL,
    env             TEXT NOT NULL CHECK (env IN ('live', 'test')),
    message_id      TEXT NOT NULL REFERENCES messages (id),
    endpoint_id     TEXT NOT NULL,
    url             TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'retrying', 'success', 'failed')),
    attempt_count   INTEGER NOT NULL,
    policy_attempts INTEGER NOT NULL,
    next_attempt_at INTEGER,
    manual          INTEGER NOT NULL CHECK (manual IN (0, 1)),
    lease_until     INTEGER,
    created_at      INTEGER NOT NULL
  ) STRICT;
  -- Only open deliveries are ever due; the rest never enter this index.
  CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status IN ('pending', 'retrying');
  CREATE INDEX deliveries_message ON deliveries (message_id, id);
  CREATE INDEX deliveries_endpoint_status ON deliveries (org_id, env, endpoint_id, status);

  CREATE TABLE attempts (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL,
    env             TEXT NOT NULL CHECK (env IN ('live', 'test')),
    delivery_id     TEXT NOT NULL REFERENCES deliveries (id),
    endpoint_id     TEXT NOT NULL,
    at              INTEGER NOT NULL,
    response_status INTEGER,
    response_head   TEXT,
    duration_ms     INTEGER NOT NULL,
    error           TEXT,
    via             TEXT NOT NULL CHECK (via IN ('direct', 'relay')),
    source_ip       TEXT
  ) STRICT;
  CREATE INDEX attempts_delivery ON attempts (delivery_id, at);
  CREATE INDEX attempts_endpoint ON attempts (org_id, env, endpoint_id, at DESC, id DESC);

  CREATE TABLE usage_counters (
    key        TEXT PRIMARY KEY,
    value      INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX usage_counters_expires_at ON usage_counters (expires_at);
  `,
  // Deliveries held by an endpoint that is not active (paused) leave the due index, so the
  // sweeper's scan does not grow with every held delivery (100,000 held behind one paused
  // endpoint used to be read on every sweep).
  `
  ALTER TABLE deliveries ADD COLUMN held INTEGER NOT NULL DEFAULT 0 CHECK (held IN (0, 1));
  UPDATE deliveries SET held = 1
    WHERE status IN ('pending', 'retrying')
      AND NOT EXISTS (SELECT 1 FROM endpoints e WHERE e.id = deliveries.endpoint_id AND e.status = 'active');
  DROP INDEX deliveries_due;
  CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status IN ('pending', 'retrying') AND held = 0;
  `,
  // Leases become fences: every claim takes a larger lease_token, and a completion or release
  // acts only with the current one. `resend`: a manual re-send was asked for while the
  // delivery was being sent, so that send's completion keeps it due. The endpoint-ordered
  // due index lets the sweeper take a few due deliveries from each endpoint (fairness).
  `
  ALTER TABLE deliveries ADD COLUMN lease_token INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE deliveries ADD COLUMN resend INTEGER NOT NULL DEFAULT 0 CHECK (resend IN (0, 1));
  CREATE INDEX deliveries_endpoint_due ON deliveries (endpoint_id, next_attempt_at) WHERE status IN ('pending', 'retrying') AND held = 0;
  `,
  // The key ring's check values: a known text sealed with each key that has sealed secrets
  // here, so a process started with the wrong WIREHOOK_SECRET_KEY finds out at once.
  `
  CREATE TABLE sealing_key_checks (
    key_id     TEXT PRIMARY KEY,
    sealed     TEXT NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT;
  `,
  // Recoveries, and the snapshot of each one's targets (dropped when it ends). At most one
  // running per endpoint: the unique partial index makes two concurrent starts one 202, one 409.
  `
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
  `,
  // Portal link tokens, by hash: the token in the link is the only credential.
  `
  CREATE TABLE portal_tokens (
    hash         TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL,
    env          TEXT NOT NULL CHECK (env IN ('live', 'test')),
    consumer_id  TEXT NOT NULL,
    frame_origin TEXT,
    locale       TEXT CHECK (locale IN ('ja', 'en')),
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX portal_tokens_expiry ON portal_tokens (expires_at);
  `,
  // Alert conditions per organization (both environments share them).
  `
  CREATE TABLE alert_conditions (
    org_id     TEXT PRIMARY KEY REFERENCES orgs (id),
    conditions TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;
  `,
  // Where an organization's failure notices go.
  `
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
  `,
  // The alerting engine: the outbox of events (written with the change that causes them),
  // each organization's throttle state, and the notices queued per target with their tries.
  `
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
  `,
  // Fewer pages written per message: each index entry a message, delivery or attempt adds
  // or moves lands on a page of its own (one per tenant or endpoint of the moment), and the
  // WAL takes every such page whole (wal-bench.ts measures it). A delivery's endpoint index
  // keeps only what is read by endpoint: open deliveries (failing, holding, counting them)
  // and failed ones (a recovery's snapshot), so a success leaves it rather than moving within
  // it. The endpoint's attempts are keyed by endpoint id alone (unique on its own): smaller
  // entries, fewer page splits. (The message status index keeps its successes: without
  // them a list of successes walked the tenant's whole history.)
  `
  DROP INDEX deliveries_endpoint_status;
  CREATE INDEX deliveries_endpoint_open ON deliveries (org_id, env, endpoint_id, status) WHERE status IN ('pending', 'retrying');
  CREATE INDEX deliveries_endpoint_failed ON deliveries (org_id, env, endpoint_id) WHERE status = 'failed';
  DROP INDEX attempts_endpoint;
  CREATE INDEX attempts_endpoint ON attempts (endpoint_id, at DESC, id DESC);
  `,
  // Bounded work per call (issue 26): a pause, resume, disable or delete changes the endpoint
  // and at most ENDPOINT_WALK_BATCH of its deliveries; what is left is a walk, recorded here and
  // finished batch by batch by the dispatchers (walkEndpoints). hold: 'hold' (open deliveries
  // out of the due index while the endpoint is not active) or 'release' (held ones created at
  // or after held_since due again, older ones failed); fail_before: open deliveries created
  // before it fail (deleted or disabled), done first. The held index lets a release find held
  // deliveries without reading those already released.
  `
  CREATE TABLE endpoint_walks (
    endpoint_id TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL,
    env         TEXT NOT NULL,
    hold        TEXT CHECK (hold IN ('hold', 'release')),
    held_since  INTEGER,
    fail_before INTEGER
  ) STRICT;
  CREATE INDEX deliveries_endpoint_held ON deliveries (endpoint_id) WHERE status IN ('pending', 'retrying') AND held = 1;
  INSERT INTO endpoint_walks (endpoint_id, org_id, env, hold)
    SELECT DISTINCT d.endpoint_id, d.org_id, d.env, 'hold' FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id
    WHERE d.status IN ('pending', 'retrying') AND d.held = 0 AND e.status <> 'active';
  `,
  // Alerting (#27): an endpoint's repeated events collapse into the one queued (the first
  // stays; duplicates already queued go), each organization's events read apart (fairness),
  // the delivery an event came from, targets per environment (those made before: live),
  // notices claimed under a claim id (only its holder records the outcome), and failing
  // endpoints walked per organization.
  `
  DELETE FROM alert_events WHERE seq NOT IN (SELECT min(seq) FROM alert_events GROUP BY endpoint_id, kind);
  CREATE UNIQUE INDEX alert_events_collapse ON alert_events (endpoint_id, kind);
  CREATE INDEX alert_events_org ON alert_events (org_id, seq);
  ALTER TABLE alert_events ADD COLUMN delivery_id TEXT;
  ALTER TABLE alert_targets ADD COLUMN env TEXT NOT NULL DEFAULT 'live' CHECK (env IN ('live', 'test'));
  DROP INDEX alert_targets_org;
  CREATE INDEX alert_targets_org ON alert_targets (org_id, env, id);
  ALTER TABLE alert_notices ADD COLUMN claim TEXT;
  CREATE INDEX endpoints_failing_org ON endpoints (org_id, failing_since, id) WHERE failing_since IS NOT NULL;
  `,
  // A recovery's targets are read as it goes (issue 26), not copied at its start: each step
  // takes the next batch of the endpoint's failed deliveries after a cursor, oldest first, by
  // this index; the spec's "failed at the start" is kept by skipping any attempted since (rule
  // 4). A start then only counts (an index range), and an end deletes nothing. A recovery
  // running at the upgrade goes on from its since: what it queued is no longer failed, and what
  // failed again was attempted since its start, so nothing is queued twice.
  `
  CREATE INDEX deliveries_endpoint_failed_since ON deliveries (endpoint_id, created_at, id) WHERE status = 'failed';
  ALTER TABLE recoveries ADD COLUMN cursor_created_at INTEGER;
  ALTER TABLE recoveries ADD COLUMN cursor_id TEXT;
  DELETE FROM recovery_targets;
  `,
  // The URL each attempt was sent to (#27): an endpoint's url can change between attempts.
  // Attempts recorded before have none (NULL), rather than a guess.
  `
  ALTER TABLE attempts ADD COLUMN url TEXT;
  `,
  // Work one replica does at a time (retention: every dispatcher used to delete the same
  // chunk at once): a named lease per job.
  `
  CREATE TABLE job_leases (
    name        TEXT PRIMARY KEY,
    holder      TEXT NOT NULL,
    lease_until INTEGER NOT NULL
  ) STRICT;
  `,
];

/**
 * Brings `db` up to the last of `steps` in one transaction, so a failed step leaves the
 * database as it was, and two processes opening one file at once migrate it once.
 * @returns how many steps were applied (0 when the database was current).
 * @throws Error when the database was made by a newer build (more steps than known).
 */
export function migrate(db: DatabaseSync, steps: readonly string[] = MIGRATIONS): number {
  return immediateTransaction(db, () => {
    const current = schemaVersion(db);
    if (current > steps.length) {
      throw new Error(`database schema version ${current} is newer than this build knows (${steps.length}); upgrade Wirehook to open it`);
    }
    for (const step of steps.slice(current)) db.exec(step);
    db.exec(`PRAGMA user_version = ${steps.length}`);
    return steps.length - current;
  });
}

/** The schema version recorded in `db` (`PRAGMA user_version`). */
export function schemaVersion(db: DatabaseSync): number {
  const row = db.prepare('PRAGMA user_version').get();
  const version = row?.['user_version'];
  if (typeof version !== 'number') throw new TypeError('PRAGMA user_version returned no number');
  return version;
}
