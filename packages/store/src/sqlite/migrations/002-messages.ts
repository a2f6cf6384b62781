// Messages, their deliveries and attempts, and the usage counters.
/** Schema step 2 (user_version 1 → 2); shipped, so never edited. */
export const messageTables = `
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
  `;
